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
	writeSuppliers(stdout, stderr, *fac, *query, *keyEnv, sellers)
	return nil
}

// writeSuppliers prints the sellers as a suppliers list, cheapest first.
// Every string but the prices comes from a stranger's catalogue and is
// quoted wherever it is printed, comments included; a seller with a
// control character in any of its strings is left out and named on
// stderr (a newline in a comment would start a key of the supplier the
// operator pastes).
func writeSuppliers(w, stderr io.Writer, fac, model, keyEnv string, sellers []payer.Seller) {
	fmt.Fprintf(w, "# %d x402 seller(s) of %q listed by %q, cheapest first.\n", len(sellers), model, fac)
	fmt.Fprintf(w, "# Paste under the model; max_upstream_price is each seller's price today: raise it to allow for changes.\n")
	fmt.Fprintln(w, "suppliers:")
	names := map[string]int{}
	for _, s := range sellers {
		if hasControl(s.BaseURL) || hasControl(s.Scheme) || hasControl(s.Network) {
			fmt.Fprintf(stderr, "left out a seller whose catalogue entry holds control characters: %q (%q on %q)\n", s.BaseURL, s.Scheme, s.Network)
			continue
		}
		name := sellerName(s.BaseURL)
		if names[name]++; names[name] > 1 {
			name += "-" + strconv.Itoa(names[name])
		}
		price := x402.FormatUSDC(s.Price)
		fmt.Fprintf(w, "  - name: %s\n    upstream: x402\n    base_url: %s\n    upstream_model: %s\n    payer_key_env: %s\n    max_upstream_price: %q   # asks %s USDC per call (%q on %q)\n",
			yamlString(name), yamlString(s.BaseURL), yamlString(model), yamlString(keyEnv), price, price, s.Scheme, s.Network)
	}
}

// hasControl reports whether s holds a control character (C0, DEL or C1)
// or a Unicode line or paragraph separator.
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 {
			return true
		}
	}
	return false
}

// sellerName is a supplier name from a seller's host.
func sellerName(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return "seller"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, u.Host)
}

// yamlString quotes s for YAML.
func yamlString(s string) string { return strconv.Quote(s) }
