package gateway

import (
	"github.com/farebox/farebox/upstream/resell"
	"reflect"
	"testing"
	"time"
)

// modelLevelKeys are ModelConfig's keys about the public model (its name,
// price, limits, pool) rather than its upstream: a supplier does not take
// them.
var modelLevelKeys = map[string]bool{"Name": true, "Price": true, "PricePerMTok": true, "Limits": true,
	"Description": true, "Created": true, "Cost": true, "Suppliers": true, "Routing": true}

// TestSupplierTakesEveryUpstreamKey: every upstream key of a model is a
// supplier's key too (same name, type and YAML key), and asModel carries
// each one over, so an upstream key added to models cannot be missing
// from pools.
func TestSupplierTakesEveryUpstreamKey(t *testing.T) {
	mt, st := reflect.TypeOf(ModelConfig{}), reflect.TypeOf(SupplierConfig{})
	for i := range mt.NumField() {
		f := mt.Field(i)
		if modelLevelKeys[f.Name] {
			continue
		}
		sf, ok := st.FieldByName(f.Name)
		if !ok || sf.Type != f.Type || sf.Tag.Get("yaml") != f.Tag.Get("yaml") {
			t.Errorf("ModelConfig.%s (%s): SupplierConfig has no such key", f.Name, f.Tag.Get("yaml"))
		}
	}
	sc := SupplierConfig{Name: "s", Weight: 2, Cost: CostConfig{PerCall: "0.1"}, Upstream: "x402",
		UpstreamConfig: &resell.Settings{UpstreamModel: "m", BaseURL: "http://b", Timeouts: UpstreamTimeouts{Total: Duration(time.Second)},
			PayerKeyEnv: "P", MaxUpstreamPrice: "0.1", MaxSpendPerDay: "1",
			MaxUpstreamDeposit: "2", MaxUpstreamWithdrawDelay: Duration(time.Hour), RPCURL: "http://r"}}
	m := sc.asModel(ModelConfig{Name: "public", Price: "0.5"})
	mv, sv := reflect.ValueOf(m), reflect.ValueOf(sc)
	for i := range sv.NumField() {
		name := sv.Type().Field(i).Name
		if _, own := supplierKeys[name]; own {
			continue
		}
		if sv.Field(i).IsZero() {
			t.Errorf("the test leaves SupplierConfig.%s unset", name)
		}
		if !reflect.DeepEqual(mv.FieldByName(name).Interface(), sv.Field(i).Interface()) {
			t.Errorf("asModel dropped %s", name)
		}
	}
	if m.Name != "public" || m.Price != "" || m.Cost != (CostConfig{}) {
		t.Errorf("asModel: %+v, want the public name and no price or cost of the supplier's", m)
	}
}
