package main

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/tidwall/gjson"
)

// Bounds of one discovery listing: a facilitator's catalogue is read page
// by page, never without end.
const (
	sellersPageSize = 100
	sellersMaxPages = 20
	sellersMaxBody  = 8 << 20
)

// seller is one x402 seller of the model asked for, from a facilitator's
// catalogue.
type seller struct {
	baseURL string
	price   *big.Int // the cheapest of its offers, atomic USDC
	scheme  string
	network string
}

// runSellers is `farebox sellers`: the x402 sellers of a model that a
// facilitator's discovery endpoint lists, with their prices, written as
// suppliers to paste under the model.
func runSellers(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sellers", "--facilitator URL --query MODEL [flags]", "List the x402 sellers of a model from a facilitator's discovery catalogue\n(GET /discovery/resources), cheapest first, as suppliers to paste under the\nmodel in farebox.yaml.", stderr)
	fac := fs.String("facilitator", "", "the facilitator's base URL, e.g. https://x402.org/facilitator (required)")
	query := fs.String("query", "", "the model name to look for (required)")
	keyEnv := fs.String("payer-key-env", "FAREBOX_RESELLER_KEY", "the environment variable holding the wallet key that pays the sellers, as written in the output")
	timeout := fs.Duration("timeout", 30*time.Second, "how long the whole listing may take")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *fac == "" || *query == "" {
		return fmt.Errorf("farebox sellers needs --facilitator URL and --query MODEL (farebox sellers -h lists the flags)")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	sellers, err := listSellers(ctx, strings.TrimSuffix(*fac, "/"), *query)
	if err != nil {
		return err
	}
	if len(sellers) == 0 {
		return fmt.Errorf("the facilitator at %s lists no x402 Responses seller of %q", *fac, *query)
	}
	writeSuppliers(stdout, *fac, *query, *keyEnv, sellers)
	return nil
}

// listSellers reads the catalogue page by page and keeps the Responses
// endpoints that sell model.
func listSellers(ctx context.Context, fac, model string) ([]seller, error) {
	var out []seller
	seen := map[string]bool{}
	for page := range sellersMaxPages {
		body, err := discoveryPage(ctx, fac, page*sellersPageSize)
		if err != nil {
			return nil, err
		}
		items := gjson.GetBytes(body, "items").Array()
		for _, it := range items {
			if s, ok := sellerOf(it, model); ok && !seen[s.baseURL] {
				seen[s.baseURL] = true
				out = append(out, s)
			}
		}
		total := gjson.GetBytes(body, "pagination.total").Int()
		if len(items) == 0 || int64((page+1)*sellersPageSize) >= total {
			break
		}
	}
	slices.SortStableFunc(out, func(a, b seller) int { return a.price.Cmp(b.price) })
	return out, nil
}

func discoveryPage(ctx context.Context, fac string, offset int) ([]byte, error) {
	u := fac + "/discovery/resources?" + url.Values{"type": {"http"}, "limit": {strconv.Itoa(sellersPageSize)},
		"offset": {strconv.Itoa(offset)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("--facilitator: %w", err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading the facilitator's catalogue: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, sellersMaxBody))
	if err != nil {
		return nil, fmt.Errorf("reading the facilitator's catalogue: %w", err)
	}
	if res.StatusCode != http.StatusOK || !gjson.ValidBytes(body) {
		return nil, fmt.Errorf("the facilitator's catalogue (%s) answered %d, not a JSON listing", u, res.StatusCode)
	}
	return body, nil
}

// sellerOf reads one catalogue item: a Responses endpoint (its URL ends in
// /responses) whose discovery declaration names model, or, when it
// declares none, whose description does.
func sellerOf(it gjson.Result, model string) (seller, bool) {
	resource := it.Get("resource").Str
	if resource == "" {
		resource = it.Get("url").Str
	}
	base, ok := strings.CutSuffix(strings.TrimSuffix(resource, "/"), "/responses")
	if !ok {
		return seller{}, false
	}
	if !sellsModel(it, model) {
		return seller{}, false
	}
	var best seller
	for _, a := range it.Get("accepts").Array() {
		amount := a.Get("amount").Str
		if amount == "" {
			amount = a.Get("maxAmountRequired").Str // x402 v1
		}
		p, ok := new(big.Int).SetString(amount, 10)
		if !ok || p.Sign() <= 0 {
			continue
		}
		if best.price == nil || p.Cmp(best.price) < 0 {
			best = seller{baseURL: base, price: p, scheme: a.Get("scheme").Str, network: a.Get("network").Str}
		}
	}
	return best, best.price != nil
}

// sellsModel: the model a catalogued Responses endpoint declares it sells.
func sellsModel(it gjson.Result, model string) bool {
	declared := false
	for _, path := range []string{"extensions.bazaar.info.input.body.model", "metadata.bazaar.info.input.body.model",
		"metadata.input.body.model", "accepts.#.outputSchema.input.body.model", "accepts.#.extensions.bazaar.info.input.body.model"} {
		v := it.Get(path)
		for _, m := range append(v.Array(), v) {
			if m.Type == gjson.String {
				declared = true
				if m.Str == model {
					return true
				}
			}
		}
	}
	if declared {
		return false
	}
	return strings.Contains(strings.ToLower(it.Get("description").Str+" "+it.Get("accepts.0.description").Str), strings.ToLower(model))
}

// writeSuppliers prints the sellers as a suppliers list, cheapest first.
func writeSuppliers(w io.Writer, fac, model, keyEnv string, sellers []seller) {
	fmt.Fprintf(w, "# %d x402 seller(s) of %s listed by %s, cheapest first.\n", len(sellers), model, fac)
	fmt.Fprintf(w, "# Paste under the model; max_upstream_price is each seller's price today: raise it to allow for changes.\n")
	fmt.Fprintln(w, "suppliers:")
	names := map[string]int{}
	for _, s := range sellers {
		name := sellerName(s.baseURL)
		if names[name]++; names[name] > 1 {
			name += "-" + strconv.Itoa(names[name])
		}
		price := x402.FormatUSDC(s.price)
		fmt.Fprintf(w, "  - name: %s\n    upstream: x402\n    base_url: %s\n    upstream_model: %s\n    payer_key_env: %s\n    max_upstream_price: %q   # asks %s USDC per call (%s on %s)\n",
			name, yamlString(s.baseURL), yamlString(model), keyEnv, price, price, s.scheme, s.network)
	}
}

// sellerName is a supplier name from a seller's host.
func sellerName(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return "seller"
	}
	return strings.NewReplacer(".", "-", ":", "-").Replace(u.Host)
}

// yamlString quotes s for YAML.
func yamlString(s string) string { return strconv.Quote(s) }
