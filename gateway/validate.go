package gateway

import (
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// Validate reports every problem of the config at once, each naming its
// key, before anything is dialled: it reads the environment variables the
// config names for its secrets (getenv; nil = none set) and touches
// nothing else, so it is fast and safe to run anywhere (`farebox serve
// --check`). nil means the gateway can be built from c; what only the
// outside world can answer (an RPC that is down, a facilitator that does
// not settle batch-settlement) is still found when it starts.
func (c Config) Validate(getenv func(string) string) error {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	v := &validation{getenv: getenv}
	c = c.withDefaults()
	v.top(c)
	priced := v.models(c)
	v.payments(c.Payments, priced)
	v.storedAnswers(c.StoredAnswers)
	v.store(c)
	return errors.Join(v.errs...)
}

// validation collects the problems of one config.
type validation struct {
	getenv func(string) string
	errs   []error
}

func (v *validation) add(key, format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
}

// secret checks that the variable env (named by key) holds a value, and a
// private key when isKey.
func (v *validation) secret(key, env string, isKey bool) {
	val := strings.TrimPrefix(v.getenv(env), "0x")
	switch {
	case val == "":
		v.add(key, "$%s is empty: set it in the environment", env)
	case isKey:
		if _, err := crypto.HexToECDSA(val); err != nil {
			v.add(key, "$%s is not a hex private key", env)
		}
	}
}

func (v *validation) usdc(key, s string) *big.Int {
	n, err := x402.ParseUSDC(s)
	if err != nil {
		v.add(key, "%v", err)
		return nil
	}
	return n
}

func (v *validation) url(key, s string, schemes ...string) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		v.add(key, "%q is not a URL", s)
		return
	}
	for _, sc := range schemes {
		if u.Scheme == sc {
			return
		}
	}
	v.add(key, "%q: want a %s URL", s, strings.Join(schemes, " or "))
}

func (v *validation) top(c Config) {
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		v.add("log_level", "want debug, info, warn or error, got %q", c.LogLevel)
	}
	if c.PublicURL != "" {
		v.url("public_url", c.PublicURL, "http", "https")
	}
	if c.BodyLimit < 0 {
		v.add("body_limit", "must not be negative")
	}
	if c.Metrics.BearerTokenEnv != "" {
		v.secret("metrics.bearer_token_env", c.Metrics.BearerTokenEnv, false)
	}
	v.admin(c.Admin)
	v.books(c.Books)
	if len(c.Models) == 0 {
		v.add("models", "at least one model is required")
	}
}

// models checks each model and reports whether any is priced.
func (v *validation) models(c Config) (priced bool) {
	seen := map[string]bool{}
	for i, mc := range c.Models {
		key := fmt.Sprintf("models[%d]", i)
		if mc.Name == "" {
			v.add(key+".name", "required")
		} else {
			key = fmt.Sprintf("models[%d] (%s)", i, mc.Name)
			if seen[mc.Name] {
				v.add(key, "model %q declared twice", mc.Name)
			}
			seen[mc.Name] = true
		}
		switch {
		case mc.PricePerMTok != nil && mc.Price != "":
			v.add(key, "price and price_per_mtok are exclusive: a model is priced per call or per token")
		case mc.PricePerMTok != nil:
			if _, err := parseTokenPrice(mc.PricePerMTok); err != nil {
				v.add(key, "%v", err)
			}
			priced = true
		case mc.Price != "":
			if p := v.usdc(key+".price", mc.Price); p != nil && p.Sign() > 0 {
				priced = true
			}
		}
		v.pool(key, mc)
		if err := checkLimits(mc.resolvedLimits()); err != nil {
			v.add(key, "%v", err)
		}
	}
	if env := c.EndUsers.KeyEnv; env != "" {
		v.secret("end_users.key_env", env, false)
	}
	return priced
}

func (v *validation) payments(pc PaymentsConfig, priced bool) {
	switch pc.Settle {
	case "after", "before":
	default:
		v.add("payments.settle", "want after or before, got %q", pc.Settle)
	}
	switch pc.Confirm {
	case "", "broadcast", "mined":
	default:
		v.add("payments.confirm", "want broadcast or mined, got %q", pc.Confirm)
	}
	if pc.AdoptAfter.D(0) < 0 {
		v.add("payments.adopt_after", "must not be negative")
	}
	if pc.MaxTimeoutSeconds < 0 {
		v.add("payments.max_timeout_seconds", "must not be negative")
	}
	if pc.PayTo != "" && !common.IsHexAddress(pc.PayTo) {
		v.add("payments.pay_to", "%q is not an address", pc.PayTo)
	}
	nets := v.networks(pc)
	if pc.RedisURL != "" {
		v.url("payments.redis_url", pc.RedisURL, "redis", "rediss", "unix")
	}
	if !priced {
		return
	}
	// Priced models need somebody to pay, somewhere, and a way to settle.
	switch {
	case pc.PayTo == "":
		v.add("payments.pay_to", "required for priced models: the address that receives the payments (or FAREBOX_PAY_TO)")
	case common.IsHexAddress(pc.PayTo) && common.HexToAddress(pc.PayTo) == (common.Address{}):
		v.add("payments.pay_to", "the zero address burns every payment: set your own address (or FAREBOX_PAY_TO)")
	case common.IsHexAddress(pc.PayTo) && publicTestAccounts[common.HexToAddress(pc.PayTo)] && acceptsMainnet(pc.Networks):
		v.add("payments.pay_to", "%s is a test account whose key is public (farebox.example.yaml's): anyone could take real USDC paid to it; set your own address (or FAREBOX_PAY_TO)", pc.PayTo)
	}
	if nets == 0 {
		v.add("payments.networks", "required for priced models, e.g. [base-sepolia]")
	}
	v.settler(pc)
	v.batch(pc)
}

// networks checks the custom networks and that every accepted network is
// known; it returns how many are accepted.
func (v *validation) networks(pc PaymentsConfig) int {
	known := map[string]bool{}
	for _, n := range x402.DefaultRegistry().Networks() {
		known[n.CAIP2], known[n.V1Name] = true, true
		if k, ok := x402.FindKnown(n.CAIP2); ok && k.Alias != "" {
			known[k.Alias] = true
		}
	}
	for i, nc := range pc.CustomNetworks {
		key := fmt.Sprintf("payments.custom_networks[%d]", i)
		if !common.IsHexAddress(nc.Asset) {
			v.add(key+".asset", "%q is not an address", nc.Asset)
		}
		if nc.ChainID <= 0 {
			v.add(key+".chain_id", "required: a positive chain id")
		}
		if nc.Name == "" || nc.Version == "" {
			v.add(key, "name and version (the token's EIP-712 domain) are required")
		}
		caip2 := nc.CAIP2
		if caip2 == "" {
			caip2 = fmt.Sprintf("eip155:%d", nc.ChainID)
		} else if want := fmt.Sprintf("eip155:%d", nc.ChainID); caip2 != want {
			v.add(key+".caip2", "%q does not match chain_id %d (want %s)", caip2, nc.ChainID, want)
		}
		known[caip2] = true
		if k, ok := x402.FindKnown(caip2); ok && k.Alias != "" {
			known[k.Alias] = true
		}
		if nc.V1Name != "" {
			known[nc.V1Name] = true
		}
	}
	n := 0
	for _, name := range pc.Networks {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		n++
		if !known[name] {
			v.add("payments.networks", "%s", x402.UnknownNetwork(name))
		}
	}
	return n
}

func (v *validation) settler(pc PaymentsConfig) {
	switch pc.Settler {
	case "facilitator":
		fc := pc.Facilitator
		if fc.URL == "" {
			v.add("payments.facilitator.url", "required with settler: facilitator (or FAREBOX_FACILITATOR_URL)")
		} else {
			v.url("payments.facilitator.url", fc.URL, "http", "https")
		}
		if fc.AuthHeaderEnv != "" {
			v.secret("payments.facilitator.auth_header_env", fc.AuthHeaderEnv, false)
		}
		v.facilitator(fc)
	case "chain":
		if pc.Chain.RPCURL == "" {
			v.add("payments.chain.rpc_url", "required with settler: chain (or FAREBOX_RPC_URL)")
		}
		v.relayerKey(pc.Chain)
	case "":
		v.add("payments.settler", "required for priced models: facilitator or chain (or FAREBOX_SETTLER)")
	default:
		v.add("payments.settler", "want facilitator or chain, got %q", pc.Settler)
	}
	if pc.Chain.RPCURL != "" {
		v.url("payments.chain.rpc_url", pc.Chain.RPCURL, "http", "https", "ws", "wss")
	}
	if c := pc.Chain.Confirmations; c < 0 || c > maxConfirmations {
		v.add("payments.chain.confirmations", "want 0 to %d blocks, got %d", maxConfirmations, c)
	}
}

// maxConfirmations bounds payments.chain.confirmations: a payer's hold and
// an answer under confirm mined last until the depth is reached, and a
// day of 2 s blocks is already far past any chain's finality.
const maxConfirmations = 43_200

// batch is the schemes' validation of their keys (payments.batch_settlement).
func (v *validation) batch(pc PaymentsConfig) {
	v.errs = append(v.errs, settle.ValidateSchemes(pc.schemeConfig(v.getenv))...)
}

// publicTestAccounts are addresses whose keys every developer has (anvil
// and hardhat's default accounts the examples use): fine for test USDC,
// never for real money.
var publicTestAccounts = map[common.Address]bool{
	common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"): true,
	common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"): true,
	common.HexToAddress("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"): true,
	common.HexToAddress("0x90F79bf6EB2c4f870365E785982E1f101E93b906"): true,
}

// relayerKey checks where the relayer key comes from: a keystore and its
// password file that exist (decrypting waits for the start, as it is
// slow by design), or the variable holding the hex key.
func (v *validation) relayerKey(cc ChainConfig) {
	if cc.RelayerKeystore == "" && cc.RelayerPasswordFile == "" {
		v.secret("payments.chain.relayer_key_env", cc.RelayerKeyEnv, true)
		return
	}
	for key, path := range map[string]string{"payments.chain.relayer_keystore": cc.RelayerKeystore, "payments.chain.relayer_password_file": cc.RelayerPasswordFile} {
		if path == "" {
			v.add(key, "required: relayer_keystore and relayer_password_file go together")
		} else if _, err := os.Stat(path); err != nil {
			v.add(key, "%s cannot be read", path)
		}
	}
}

// acceptsMainnet reports whether networks include a chain with real money.
func acceptsMainnet(networks []string) bool {
	for _, n := range networks {
		if x402.IsMainnet(strings.TrimSpace(n)) {
			return true
		}
	}
	return false
}
