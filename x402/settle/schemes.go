package settle

import (
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// SchemeConfig is the part of the payments configuration the schemes
// read, as plain values: a scheme's registration validates and reads it
// without knowing the server's configuration types.
type SchemeConfig struct {
	// Settler is the settler kind configured (payments.settler).
	Settler string
	// RPCURL is payments.chain.rpc_url: a chain to read, with either settler.
	RPCURL string
	// Channels is payments.batch_settlement.
	Channels ChannelsConfig
	// Getenv reads the variables the configuration names for secrets.
	Getenv func(string) string
}

// ChannelsConfig tunes the payment channels (payments.batch_settlement);
// a zero duration or an empty string means the scheme's default.
type ChannelsConfig struct {
	WithdrawDelay            uint64 // seconds
	ClaimInterval            time.Duration
	ClaimThreshold           string // USDC
	ClaimWithdrawLead        time.Duration
	MinDeposit               string // USDC
	RefundInterval           time.Duration
	MinRefund                string // USDC
	ReceiverAuthorizer       string
	ReceiverAuthorizerKeyEnv string
}

// SchemeDeps is what the composition hands a scheme's constructor: the
// engine and verifier every scheme shares, the settler (and, when it is
// the server's own relayer, its Chain), and the hooks through which a
// scheme's own service joins the server's life.
type SchemeDeps struct {
	SchemeConfig
	Engine   *Engine
	Verifier *x402.Verifier
	Settler  x402.Settler
	Chain    Chain // nil unless the settler is the server's own relayer
	PayTo    common.Address
	Networks []*x402.Network
	Now      func() time.Time
	Log      *slog.Logger
	// Timeout bounds one settlement (payments.settle_timeout).
	Timeout time.Duration
	// Overlap runs the chain check alongside the model (payments.chain.overlap,
	// settling after the answer).
	Overlap bool
	// Metered reports a model priced per token: only then would a metered
	// scheme be offered, so only then is its absence worth a log line.
	Metered bool
	// ChannelStore is the channel store the configured storage opened, for
	// the scheme that keeps channels (it asserts its own store type).
	ChannelStore any
	// AddCloser runs fn when the payments close, after what was added
	// before; first puts it before everything (a service that still needs
	// the engine and the chain to finish).
	AddCloser func(fn func(), first bool)
}

// SchemeBuilder makes a scheme for the composition. A scheme that the
// configuration cannot serve is returned as an *x402.Unserved (known,
// never offered, its payments refused with its own reason), not an error.
type SchemeBuilder func(SchemeDeps) (x402.ServerScheme, error)

type schemeKind struct {
	name, family string
	build        SchemeBuilder
}

var schemeRegistry struct {
	sync.Mutex
	kinds    []schemeKind
	validate map[string]func(SchemeConfig) []error
}

// RegisterScheme registers the scheme name on every network of family (a
// CAIP-2 namespace: "eip155" for every EVM chain). It is called from the
// scheme package's init; registering a (name, family) twice panics.
func RegisterScheme(name, family string, build SchemeBuilder) {
	schemeRegistry.Lock()
	defer schemeRegistry.Unlock()
	for _, k := range schemeRegistry.kinds {
		if k.name == name && k.family == family {
			panic(fmt.Sprintf("settle: scheme %s on %s registered twice", name, family))
		}
	}
	schemeRegistry.kinds = append(schemeRegistry.kinds, schemeKind{name, family, build})
}

// RegisterSchemeValidation adds validate to what ValidateSchemes runs: it
// reports, without dialling anything, what is wrong with the part of the
// configuration the scheme name reads, each error naming its key.
func RegisterSchemeValidation(name string, validate func(SchemeConfig) []error) {
	schemeRegistry.Lock()
	defer schemeRegistry.Unlock()
	if schemeRegistry.validate == nil {
		schemeRegistry.validate = map[string]func(SchemeConfig) []error{}
	}
	schemeRegistry.validate[name] = validate
}

// ValidateSchemes is every registered scheme's validation of c, in the
// schemes' name order.
func ValidateSchemes(c SchemeConfig) []error {
	schemeRegistry.Lock()
	names := make([]string, 0, len(schemeRegistry.validate))
	for n := range schemeRegistry.validate {
		names = append(names, n)
	}
	fns := schemeRegistry.validate
	schemeRegistry.Unlock()
	sort.Strings(names)
	var errs []error
	for _, n := range names {
		errs = append(errs, fns[n](c)...)
	}
	return errs
}

// Family is the CAIP-2 namespace of a network ("eip155" for eip155:8453).
func Family(n *x402.Network) string {
	ns, _, _ := strings.Cut(n.CAIP2, ":")
	return ns
}

// BuildSchemes makes every scheme registered for a family of d.Networks
// and registers them in into, in offer order: the metered ones first
// (they charge the use where the others charge the ceiling), each group
// by name (batch-settlement, upto, then exact).
func BuildSchemes(d SchemeDeps, into *x402.Schemes) error {
	families := map[string]bool{}
	for _, n := range d.Networks {
		families[Family(n)] = true
	}
	schemeRegistry.Lock()
	kinds := append([]schemeKind(nil), schemeRegistry.kinds...)
	schemeRegistry.Unlock()
	var built []x402.ServerScheme
	for _, k := range kinds {
		if !families[k.family] {
			continue
		}
		s, err := k.build(d)
		if err != nil {
			return err
		}
		built = append(built, s)
	}
	sort.SliceStable(built, func(i, j int) bool {
		if built[i].Metered() != built[j].Metered() {
			return built[i].Metered()
		}
		return built[i].Name() < built[j].Name()
	})
	for _, s := range built {
		into.Register(s)
	}
	return nil
}
