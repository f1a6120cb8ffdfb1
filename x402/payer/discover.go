package payer

// Seller discovery: which x402 sellers of a model a facilitator's
// catalogue (its Bazaar, GET /discovery/resources) lists, at what price.

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

	"github.com/tidwall/gjson"
)

// Bounds of one discovery listing: a facilitator's catalogue is read page
// by page, never without end.
const (
	sellersPageSize = 100
	sellersMaxPages = 20
	sellersMaxBody  = 8 << 20
)

// Seller is one x402 seller of a model, from a facilitator's catalogue.
// Its price is what the catalogue says today: the seller's own 402 is
// what a payment is checked against.
type Seller struct {
	// BaseURL is the endpoint's base URL: its Responses route without
	// /responses, as an upstream's base_url is written.
	BaseURL string
	// Price is the cheapest of its offers, in the token's atomic units.
	Price *big.Int
	// Scheme and Network are that offer's.
	Scheme, Network string
}

// FindSellers reads the catalogue of the facilitator at facilitator (its
// base URL) page by page through client (nil: http.DefaultClient) and
// returns the Responses endpoints that sell model, each once, cheapest
// first.
func FindSellers(ctx context.Context, client *http.Client, facilitator, model string) ([]Seller, error) {
	if client == nil {
		client = http.DefaultClient
	}
	facilitator = strings.TrimSuffix(facilitator, "/")
	var out []Seller
	seen := map[string]bool{}
	for page := range sellersMaxPages {
		body, err := discoveryPage(ctx, client, facilitator, page*sellersPageSize)
		if err != nil {
			return nil, err
		}
		items := gjson.GetBytes(body, "items").Array()
		for _, it := range items {
			if s, ok := sellerOf(it, model); ok && !seen[s.BaseURL] {
				seen[s.BaseURL] = true
				out = append(out, s)
			}
		}
		total := gjson.GetBytes(body, "pagination.total").Int()
		if len(items) == 0 || int64((page+1)*sellersPageSize) >= total {
			break
		}
	}
	slices.SortStableFunc(out, func(a, b Seller) int { return a.Price.Cmp(b.Price) })
	return out, nil
}

// discoveryPage is one page of the catalogue, from offset.
func discoveryPage(ctx context.Context, client *http.Client, fac string, offset int) ([]byte, error) {
	u := fac + "/discovery/resources?" + url.Values{"type": {"http"}, "limit": {strconv.Itoa(sellersPageSize)},
		"offset": {strconv.Itoa(offset)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("facilitator %q: %w", fac, err)
	}
	res, err := client.Do(req)
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
func sellerOf(it gjson.Result, model string) (Seller, bool) {
	resource := it.Get("resource").Str
	if resource == "" {
		resource = it.Get("url").Str
	}
	base, ok := strings.CutSuffix(strings.TrimSuffix(resource, "/"), "/responses")
	if !ok {
		return Seller{}, false
	}
	if !sellsModel(it, model) {
		return Seller{}, false
	}
	var best Seller
	for _, a := range it.Get("accepts").Array() {
		amount := a.Get("amount").Str
		if amount == "" {
			amount = a.Get("maxAmountRequired").Str // x402 v1
		}
		p, ok := new(big.Int).SetString(amount, 10)
		if !ok || p.Sign() <= 0 {
			continue
		}
		if best.Price == nil || p.Cmp(best.Price) < 0 {
			best = Seller{BaseURL: base, Price: p, Scheme: a.Get("scheme").Str, Network: a.Get("network").Str}
		}
	}
	return best, best.Price != nil
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
