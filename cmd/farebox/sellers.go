package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// runSellers is `farebox sellers`: the x402 sellers of a model that a
// facilitator's discovery endpoint lists (payer.FindSellers), with their
// prices, written as suppliers to paste under the model.
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
	sellers, err := payer.FindSellers(ctx, nil, *fac, *query)
	if err != nil {
		return err
	}
	if len(sellers) == 0 {
		return fmt.Errorf("the facilitator at %s lists no x402 Responses seller of %q", *fac, *query)
	}
	writeSuppliers(stdout, *fac, *query, *keyEnv, sellers)
	return nil
}

// writeSuppliers prints the sellers as a suppliers list, cheapest first.
func writeSuppliers(w io.Writer, fac, model, keyEnv string, sellers []payer.Seller) {
	fmt.Fprintf(w, "# %d x402 seller(s) of %s listed by %s, cheapest first.\n", len(sellers), model, fac)
	fmt.Fprintf(w, "# Paste under the model; max_upstream_price is each seller's price today: raise it to allow for changes.\n")
	fmt.Fprintln(w, "suppliers:")
	names := map[string]int{}
	for _, s := range sellers {
		name := sellerName(s.BaseURL)
		if names[name]++; names[name] > 1 {
			name += "-" + strconv.Itoa(names[name])
		}
		price := x402.FormatUSDC(s.Price)
		fmt.Fprintf(w, "  - name: %s\n    upstream: x402\n    base_url: %s\n    upstream_model: %s\n    payer_key_env: %s\n    max_upstream_price: %q   # asks %s USDC per call (%s on %s)\n",
			name, yamlString(s.BaseURL), yamlString(model), keyEnv, price, price, s.Scheme, s.Network)
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
