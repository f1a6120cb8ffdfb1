package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"time"

	"github.com/farebox/farebox/charge"
	"github.com/farebox/farebox/responses"

	"github.com/farebox/farebox/store"
	"github.com/farebox/farebox/upstream"
	"github.com/farebox/farebox/upstream/pool"
)

// SupplierConfig is one supplier of a pooled model: the upstream a model
// takes (upstream and its kind's keys: base_url, upstream_model,
// api_key_env, timeouts, and for x402 sellers payer_key_env,
// max_upstream_price, ...) plus its name in logs and metrics, its weight
// and what it costs the operator.
type SupplierConfig struct {
	// Name names the supplier in logs and metrics (default: its position).
	Name string `yaml:"name"`
	// Weight is its share of calls under strategy weighted (default 1).
	Weight float64 `yaml:"weight"`
	// Cost is what a call costs the operator (per call, or per million
	// tokens from the call's usage): booked as the call's cost, how
	// cheapest ranks API-key suppliers, and the spend metric. An x402
	// seller's cost is the price its 402 asks, booked as its wallet pays.
	Cost CostConfig `yaml:"cost"`

	// Upstream is the supplier's kind, as a model's.
	Upstream string `yaml:"upstream"`
	// UpstreamConfig is the kind's own keys, as a model's.
	UpstreamConfig upstream.Config `yaml:"-"`

	// keyProblems are what decoding found wrong, as a model's.
	keyProblems []string
}

// RoutingConfig is a pool's routing: which supplier first, how many tries,
// and when a failing supplier is left alone.
type RoutingConfig struct {
	// Strategy is ordered (default), weighted, cheapest or fastest.
	Strategy string `yaml:"strategy"`
	// MaxAttempts bounds the suppliers one call may try (default: all).
	MaxAttempts int `yaml:"max_attempts"`
	// Circuit opens a supplier's circuit after failures in a row.
	Circuit CircuitConfig `yaml:"circuit"`
}

// CircuitConfig is a supplier's circuit breaker: Failures failed calls in a
// row open it for Cooldown, after which one probe call decides.
type CircuitConfig struct {
	Failures int      `yaml:"failures"`
	Cooldown Duration `yaml:"cooldown"`
}

// Defaults of a pool's circuit.
const (
	defaultCircuitFailures = 5
	defaultCircuitCooldown = 30 * time.Second
)

// pooled reports whether mc declares suppliers.
func (mc ModelConfig) pooled() bool { return len(mc.Suppliers) > 0 }

// supplierName is a supplier's name in logs and metrics.
func supplierName(i int, sc SupplierConfig) string {
	if sc.Name != "" {
		return sc.Name
	}
	return fmt.Sprintf("supplier-%d", i+1)
}

// asModel is the supplier as a model of its own, so it is built and
// validated by the code that builds a model's upstream: every upstream key
// (a field SupplierConfig shares with ModelConfig by name) is copied, so a
// key added to both can never be left behind here.
func (sc SupplierConfig) asModel(mc ModelConfig) ModelConfig {
	m := ModelConfig{Name: mc.Name}
	dst, src := reflect.ValueOf(&m).Elem(), reflect.ValueOf(sc)
	for i := range src.NumField() {
		f := src.Type().Field(i)
		if _, supplierOnly := supplierKeys[f.Name]; supplierOnly {
			continue
		}
		dst.FieldByName(f.Name).Set(src.Field(i))
	}
	return m
}

// supplierKeys are SupplierConfig's own keys, which a model does not take
// for its upstream (a model's cost is booked, a supplier's also ranks it).
// keyProblems is the decoder's own, reported once by LoadConfig.
var supplierKeys = map[string]struct{}{"Name": {}, "Weight": {}, "Cost": {}, "keyProblems": {}}

// strategy is the routing strategy, or an error naming the key.
func (r RoutingConfig) strategy() (pool.Strategy, error) {
	switch r.Strategy {
	case "", "ordered":
		return pool.Ordered, nil
	case "weighted":
		return pool.Weighted, nil
	case "cheapest":
		return pool.Cheapest, nil
	case "fastest":
		return pool.Fastest, nil
	}
	return 0, fmt.Errorf("want ordered, weighted, cheapest or fastest, got %q", r.Strategy)
}

// pool validates mc's suppliers and routing (key names the model).
func (v *validation) pool(key string, mc ModelConfig) {
	if !mc.pooled() {
		if mc.Routing != (RoutingConfig{}) {
			v.add(key+".routing", "needs suppliers")
		}
		v.upstream(key, mc)
		v.cost(key+".cost", mc.Cost)
		return
	}
	if mc.Cost.set() {
		v.add(key+".cost", "a pool's cost is each supplier's: move cost into its suppliers")
	}
	if mc.Upstream != "" || mc.UpstreamConfig != nil {
		v.add(key, "suppliers and the model's own upstream keys are exclusive: move upstream, base_url, ... into a supplier")
	}
	if _, err := mc.Routing.strategy(); err != nil {
		v.add(key+".routing.strategy", "%v", err)
	}
	r := mc.Routing
	if r.MaxAttempts < 0 {
		v.add(key+".routing.max_attempts", "must not be negative")
	}
	if r.Circuit.Failures < 0 {
		v.add(key+".routing.circuit.failures", "must not be negative")
	}
	seen := map[string]bool{}
	for i, sc := range mc.Suppliers {
		skey := fmt.Sprintf("%s.suppliers[%d]", key, i)
		name := supplierName(i, sc)
		if seen[name] {
			v.add(skey+".name", "%q used twice in this pool", name)
		}
		seen[name] = true
		if sc.Weight < 0 {
			v.add(skey+".weight", "must not be negative")
		}
		v.cost(skey+".cost", sc.Cost)
		v.upstream(skey, sc.asModel(mc))
	}
}

// reasoningProvider is whose encrypted reasoning a supplier of each kind
// takes back; a kind not named (an x402 seller, chat, scripted) gets every
// reasoning item as it came.
var reasoningProvider = map[string]string{"anthropic": pool.ProviderAnthropic, "openai": pool.ProviderOpenAI,
	"gemini": pool.ProviderGemini}

// newPool builds a model's pool of suppliers, each built as a model's
// upstream is, through the registry of kinds.
func (s *Server) newPool(mc ModelConfig, opts Options, circuits pool.Circuits) (*pool.Pool, error) {
	strategy, err := mc.Routing.strategy()
	if err != nil {
		return nil, fmt.Errorf("routing.strategy: %w", err)
	}
	var sups []pool.Supplier
	for i, sc := range mc.Suppliers {
		name := supplierName(i, sc)
		m, err := s.newUpstream(sc.asModel(mc), opts)
		if err != nil {
			return nil, fmt.Errorf("suppliers[%d] (%s): %w", i, name, err)
		}
		sup := pool.Supplier{Name: name, Model: m, Weight: sc.Weight, Provider: reasoningProvider[sc.Upstream]}
		uc, err := parseCost(sc.Cost)
		if err != nil {
			return nil, fmt.Errorf("suppliers[%d] (%s).cost: %w", i, name, err)
		}
		if uc != nil {
			sup.Cost = uc.rank()
		}
		if o, ok := m.(pool.Offerer); ok {
			sup.Offer = o
		}
		sups = append(sups, sup)
	}
	failures := mc.Routing.Circuit.Failures
	if failures == 0 {
		failures = defaultCircuitFailures
	}
	return pool.New(pool.Config{Model: mc.Name, Suppliers: sups, Strategy: strategy, MaxAttempts: mc.Routing.MaxAttempts,
		Failures: failures, Cooldown: mc.Routing.Circuit.Cooldown.D(defaultCircuitCooldown),
		Circuits: circuits, Observer: s.metrics.poolObserver(), Log: s.log.With("model", mc.Name)})
}

// newModel is the model behind one public name: its pool when it lists
// suppliers, else its one upstream exactly as it always was.
func (s *Server) newModel(mc ModelConfig, opts Options) (responses.Model, error) {
	if !mc.pooled() {
		return s.newUpstream(mc, opts)
	}
	circuits, err := s.poolCircuits()
	if err != nil {
		return nil, err
	}
	p, err := s.newPool(mc, opts, circuits)
	if err != nil {
		return nil, err
	}
	s.metrics.registerPool(mc.Name, p)
	return p, nil
}

// poolCircuits is the circuits every pool shares, from the same stores
// as the journal (in Redis, replicas agree on which supplier is failing;
// else in this process). Without payments the stores are opened here.
func (s *Server) poolCircuits() (pool.Circuits, error) {
	if s.circuits != nil {
		return s.circuits, nil
	}
	set := s.pay.stores
	if set == nil {
		var err error
		if set, _, err = openStores(s.cfg, store.Options{Log: s.log}); err != nil {
			return nil, err
		}
		s.pay.stores = set
		s.pay.closers = append(s.pay.closers, func() { set.Close() })
	}
	s.circuits = set.Circuits()
	return s.circuits, nil
}

// supplierKey holds, on a pooled call, the supplier that served it.
const supplierKey = "farebox.supplier"

// paymentContext is ctx naming the call's payment to a pool (a hash of its
// header): the failures of one payment sent again count once against a
// supplier's circuit.
func paymentContext(ctx context.Context, p charge.Payment) context.Context {
	if p.V2 == "" && p.V1 == "" {
		return ctx
	}
	sum := sha256.Sum256([]byte(p.V2 + "\x00" + p.V1))
	return pool.WithPayment(ctx, hex.EncodeToString(sum[:16]))
}
