package builtin_test

import (
	"context"
	"reflect"
	"testing"

	_ "github.com/farebox/farebox/builtin"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// TestBuiltinSchemesWithoutAChain: with no relayer of farebox's own and no
// facilitator, exact is served and the metered schemes stay known,
// unserved, offered before it, each refusing with its own reason.
func TestBuiltinSchemesWithoutAChain(t *testing.T) {
	var got x402.Schemes
	d := settle.SchemeDeps{Networks: []*x402.Network{x402.DefaultRegistry().ByCAIP2("eip155:84532")}}
	if err := settle.BuildSchemes(d, &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got.All() {
		names = append(names, s.Name())
	}
	if want := []string{"batch-settlement", "upto", "exact"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("schemes %v, want %v", names, want)
	}
	for _, name := range []string{"batch-settlement", "upto"} {
		u, ok := got.Lookup(name).(*x402.Unserved)
		if !ok {
			t.Fatalf("%s is %T, want unserved", name, got.Lookup(name))
		}
		if _, err := u.Authorize(context.Background(), nil, nil, x402.Facts{}); err == nil || u.Refusal.Reason != x402.ReasonUnsupportedScheme {
			t.Fatalf("%s refuses with %v", name, err)
		}
	}
}

// TestBuiltinSettlers are the two kinds, each refusing a configuration it
// cannot serve with the words the operator is told.
func TestBuiltinSettlers(t *testing.T) {
	for kind, want := range map[string]string{
		"facilitator": "payments.facilitator.url is required with settler: facilitator",
		"chain":       "payments.chain.rpc_url is required with settler: chain",
	} {
		build := settle.LookupSettler(kind)
		if build == nil {
			t.Fatalf("no settler %s", kind)
		}
		_, err := build(settle.SettlerDeps{Getenv: func(string) string { return "" }, AddCloser: func(func()) {}})
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", kind, err, want)
		}
	}
	d := settle.SettlerDeps{SettlerConfig: settle.SettlerConfig{Chain: settle.ChainSettings{RPCURL: "http://127.0.0.1:1", RelayerKeyEnv: "K"}},
		Getenv: func(string) string { return "" }, AddCloser: func(func()) {}}
	_, err := settle.LookupSettler("chain")(d)
	if want := "settler chain: the relayer key is read from $K, which is empty"; err == nil || err.Error() != want {
		t.Errorf("chain without a key: %v", err)
	}
}
