package gateway

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/farebox/farebox/x402"
)

// clientCap is the per-payment cap x402's official clients apply unless
// their user raises it (@x402/fetch: spendControls.maxAmountPerPayment,
// default "$1"): 1 USDC in atomic units.
var clientCap = big.NewInt(1_000_000)

// moneyWarnings are the payment choices Validate accepts that cost an
// operator payments or keys: a price an official client refuses by
// default, a mainnet relayer key in a plain environment variable.
func (c Config) moneyWarnings() []string {
	var out []string
	for i, mc := range c.Models {
		for _, p := range modelPrices(mc) {
			amount, err := x402.ParseUSDC(p.value)
			if err != nil || amount.Cmp(clientCap) <= 0 {
				continue
			}
			out = append(out, fmt.Sprintf("models[%d] (%s): %s %s USDC is above 1 USDC, the default per-payment cap of x402's official clients: an @x402/fetch client refuses to pay it unless its user raises spendControls.maxAmountPerPayment (the 402 says how)",
				i, mc.Name, p.key, p.value))
		}
	}
	pc := c.Payments
	if pc.Settler == "chain" && pc.Chain.RelayerKeystore == "" && acceptsMainnet(pc.Networks) {
		env := pc.Chain.RelayerKeyEnv
		if env == "" {
			env = "FAREBOX_RELAYER_KEY"
		}
		out = append(out, fmt.Sprintf("payments.chain: the mainnet relayer key is read from the plain environment variable $%s: anything that can read the process's environment can take its gas; prefer relayer_keystore with relayer_password_file (a go-ethereum v3 keystore)", env))
	}
	return out
}

type namedPrice struct{ key, value string }

// modelPrices are a model's per-call amounts: its price, or the ceiling
// of a per-token price.
func modelPrices(mc ModelConfig) []namedPrice {
	var out []namedPrice
	if p := strings.TrimSpace(mc.Price); p != "" {
		out = append(out, namedPrice{"price", p})
	}
	if tp := mc.PricePerMTok; tp != nil && strings.TrimSpace(tp.MaxPerCall) != "" {
		out = append(out, namedPrice{"price_per_mtok.max_per_call", strings.TrimSpace(tp.MaxPerCall)})
	}
	return out
}
