package settle_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// fakeScheme is a registered scheme that only names itself.
type fakeScheme struct {
	name    string
	metered bool
}

func (s fakeScheme) Name() string                           { return s.name }
func (fakeScheme) Accept(*x402.Requirement) json.RawMessage { return nil }
func (s fakeScheme) Metered() bool                          { return s.metered }
func (fakeScheme) Authorize(context.Context, *x402.Payment, *x402.Requirement, x402.Facts) (x402.Hold, error) {
	return nil, errors.New("not a real scheme")
}

func register(name, family string, metered bool) {
	settle.RegisterScheme(name, family, func(settle.SchemeDeps) (x402.ServerScheme, error) {
		return fakeScheme{name: name, metered: metered}, nil
	})
}

func init() {
	// Registered out of order: the offer order does not follow it.
	register("t-exact", "ordertest", false)
	register("t-upto", "ordertest", true)
	register("t-batch", "ordertest", true)
	register("t-elsewhere", "otherfamily", false)
	settle.RegisterScheme("t-broken", "brokentest", func(settle.SchemeDeps) (x402.ServerScheme, error) {
		return nil, errors.New("payments.t_broken: wrong")
	})
}

func network(caip2 string) *x402.Network {
	return x402.NewNetwork(caip2, "", big.NewInt(1), common.Address{}, "T", "1")
}

func TestSchemesOfferedMeteredFirstThenByName(t *testing.T) {
	var got x402.Schemes
	if err := settle.BuildSchemes(settle.SchemeDeps{Networks: []*x402.Network{network("ordertest:1")}}, &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got.All() {
		names = append(names, s.Name())
	}
	if want := []string{"t-batch", "t-upto", "t-exact"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("offer order %v, want %v (another family's scheme left out)", names, want)
	}
}

func TestSchemeBuildErrorStopsTheBuild(t *testing.T) {
	var got x402.Schemes
	err := settle.BuildSchemes(settle.SchemeDeps{Networks: []*x402.Network{network("brokentest:1")}}, &got)
	if err == nil || err.Error() != "payments.t_broken: wrong" {
		t.Fatalf("err = %v, want the scheme's own", err)
	}
}

func TestSchemeRegisteredTwicePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "registered twice") {
			t.Fatalf("recovered %v, want a panic naming the duplicate", r)
		}
	}()
	register("t-exact", "ordertest", false)
}

func TestSettlerLookedUpByKind(t *testing.T) {
	want := errors.New("built")
	settle.RegisterSettler("t-kind", func(settle.SettlerDeps) (*settle.SettlerParts, error) { return nil, want })
	if settle.LookupSettler("t-none") != nil {
		t.Fatal("an unregistered kind has a builder")
	}
	if _, err := settle.LookupSettler("t-kind")(settle.SettlerDeps{}); err != want {
		t.Fatalf("the kind's builder answered %v", err)
	}
}

func TestSchemeValidationsRunInNameOrder(t *testing.T) {
	settle.RegisterSchemeValidation("t-b", func(c settle.SchemeConfig) []error { return []error{errors.New("b " + c.Settler)} })
	settle.RegisterSchemeValidation("t-a", func(c settle.SchemeConfig) []error { return []error{errors.New("a " + c.Settler)} })
	var got []string
	for _, err := range settle.ValidateSchemes(settle.SchemeConfig{Settler: "chain"}) {
		if s := err.Error(); strings.HasPrefix(s, "a ") || strings.HasPrefix(s, "b ") {
			got = append(got, s)
		}
	}
	if want := []string{"a chain", "b chain"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("validations %v, want %v", got, want)
	}
}

func TestGasLabelTravelsInTheContext(t *testing.T) {
	ctx := settle.WithGasLabel(context.Background(), "model-a")
	if got := settle.GasLabel(ctx); got != "model-a" {
		t.Fatalf("label %q", got)
	}
	if got := settle.GasLabel(context.Background()); got != "" {
		t.Fatalf("unlabelled context has label %q", got)
	}
}
