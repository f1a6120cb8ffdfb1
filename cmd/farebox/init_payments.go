package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
)

// The facilitators `farebox init` writes: x402.org's settles test networks
// only, so a mainnet config gets Coinbase's (CDP, which needs an API key)
// or the operator's own relayer.
const (
	testFacilitatorURL = "https://x402.org/facilitator"
	cdpFacilitatorURL  = "https://api.cdp.coinbase.com/platform/v2/x402"
	cdpKeyIDEnv        = "CDP_API_KEY_ID"
	cdpKeySecretEnv    = "CDP_API_KEY_SECRET"
	cdpPortal          = "https://portal.cdp.coinbase.com"
)

// initPayments are init's flags for how payments settle.
type initPayments struct {
	network, settler, facilitator, rpcURL string
	keystore, passwordFile                string
}

func addInitPayments(fs *flag.FlagSet) *initPayments {
	p := &initPayments{}
	fs.StringVar(&p.network, "network", "base-sepolia", "the network payments are made on, by x402 name or CAIP-2 id: base-sepolia (test USDC), base, polygon, arbitrum, eip155:42161, ... (docs/operator.md lists them)")
	fs.StringVar(&p.settler, "settler", "facilitator", "who settles the payments: facilitator, or chain (farebox's own relayer: needs --rpc-url and a funded relayer key)")
	fs.StringVar(&p.facilitator, "facilitator", "", "with --settler facilitator: x402.org (test networks; the default there), cdp (Coinbase's, needs a CDP API key; the default on a mainnet), or a facilitator's URL")
	fs.StringVar(&p.rpcURL, "rpc-url", "", "with --settler chain: a JSON-RPC endpoint of the network")
	fs.StringVar(&p.keystore, "relayer-keystore", "", "with --settler chain: the relayer's go-ethereum v3 keystore file (default: the key in $FAREBOX_RELAYER_KEY)")
	fs.StringVar(&p.passwordFile, "relayer-password-file", "", "the file holding --relayer-keystore's password")
	return p
}

// resolve checks the flags together and fills the defaults that depend on
// the network: a mainnet never gets the test-network facilitator.
func (p *initPayments) resolve() error {
	mainnet := x402.IsMainnet(p.network)
	switch p.settler {
	case "facilitator":
		if p.rpcURL != "" || p.keystore != "" {
			return fmt.Errorf("--rpc-url and --relayer-keystore go with --settler chain")
		}
		if p.facilitator == "" {
			p.facilitator = "x402.org"
			if mainnet {
				p.facilitator = "cdp"
			}
		}
		if mainnet && p.facilitatorURL() == testFacilitatorURL {
			return fmt.Errorf("--facilitator %s: x402.org's facilitator settles test networks only, and %s is a mainnet: use --facilitator cdp (Coinbase's, with a CDP API key) or --settler chain --rpc-url URL (your own relayer)", p.facilitator, p.network)
		}
		if u, err := url.Parse(p.facilitatorURL()); err != nil || u.Host == "" {
			return fmt.Errorf("--facilitator %q: want x402.org, cdp or a facilitator's URL", p.facilitator)
		}
	case "chain":
		if p.facilitator != "" {
			return fmt.Errorf("--facilitator goes with --settler facilitator")
		}
		if p.rpcURL == "" {
			return fmt.Errorf("--settler chain needs --rpc-url URL: a JSON-RPC endpoint of %s", p.network)
		}
		if (p.keystore == "") != (p.passwordFile == "") {
			return fmt.Errorf("--relayer-keystore and --relayer-password-file go together")
		}
	default:
		return fmt.Errorf("--settler %q: want facilitator or chain", p.settler)
	}
	return nil
}

func (p *initPayments) cdp() bool { return p.settler == "facilitator" && p.facilitator == "cdp" }

func (p *initPayments) facilitatorURL() string {
	switch p.facilitator {
	case "x402.org":
		return testFacilitatorURL
	case "cdp":
		return cdpFacilitatorURL
	}
	return strings.TrimRight(p.facilitator, "/")
}

// config is the payments block; a CDP facilitator's with its kind and the
// names of its key's two variables.
func (p *initPayments) config(payTo string) gateway.PaymentsConfig {
	pc := gateway.PaymentsConfig{PayTo: payTo, Networks: []string{p.network}, Settler: p.settler}
	if p.settler == "chain" {
		pc.Chain = gateway.ChainConfig{RPCURL: p.rpcURL, RelayerKeystore: p.keystore, RelayerPasswordFile: p.passwordFile}
		return pc
	}
	pc.Facilitator = gateway.FacilitatorConfig{URL: p.facilitatorURL()}
	if p.cdp() {
		pc.Facilitator.Kind, pc.Facilitator.KeyIDEnv, pc.Facilitator.KeySecretEnv = "cdp", cdpKeyIDEnv, cdpKeySecretEnv
	}
	return pc
}

// laterEnv are the variables the written config names that the operator
// sets after init: their being empty now does not stop init.
func (p *initPayments) laterEnv() []string {
	switch {
	case p.cdp():
		return []string{cdpKeyIDEnv, cdpKeySecretEnv}
	case p.settler == "chain" && p.keystore == "":
		return []string{"FAREBOX_RELAYER_KEY"}
	}
	return nil
}

// nextSteps says what the operator does before the first paid call.
func (p *initPayments) nextSteps(w io.Writer, getenv func(string) string) {
	switch {
	case p.cdp():
		if getenv(cdpKeyIDEnv) == "" || getenv(cdpKeySecretEnv) == "" {
			fmt.Fprintf(w, "Payments settle through Coinbase's CDP facilitator: create a Secret API key at %s and set %s (its id) and %s (its secret) in the environment.\n", cdpPortal, cdpKeyIDEnv, cdpKeySecretEnv)
		}
	case p.settler == "chain":
		fmt.Fprintf(w, "Payments settle through your own relayer at %s: fund its address with gas on %s", p.rpcURL, p.network)
		if p.keystore == "" {
			fmt.Fprint(w, ", and set FAREBOX_RELAYER_KEY (or use --relayer-keystore)")
		}
		fmt.Fprintln(w, ".")
	}
	if x402.IsMainnet(p.network) {
		fmt.Fprintln(w, "This is a mainnet: payments are real USDC. docs/operator.md, \"Going live\", walks through the first paid call.")
	}
}
