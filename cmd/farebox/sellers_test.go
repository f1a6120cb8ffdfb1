package main

import (
	"bytes"
	"context"
	"github.com/farebox/farebox/upstream/resell"
	"strconv"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402/payer/payertest"
	"gopkg.in/yaml.v3"
)

// `farebox sellers` lists the Responses sellers of the model asked for,
// over every page of the catalogue, cheapest first, as suppliers that
// load and validate when pasted under a model.
func TestSellersListsPasteReadySuppliers(t *testing.T) {
	var items []map[string]any
	for i := range 150 { // more than a page of other resources
		items = append(items, payertest.CatalogueItem("https://other"+strconv.Itoa(i)+".example/v1/responses", "other-model", "1", false))
	}
	items = append(items,
		payertest.CatalogueItem("https://dear.example/v1/responses", "gpt-4.1-mini", "2500", false),
		payertest.CatalogueItem("https://weather.example/forecast", "gpt-4.1-mini", "1", false), // not a Responses endpoint
		payertest.CatalogueItem("https://cheap.example/v1/responses", "gpt-4.1-mini", "1000", true))
	srv := payertest.Catalogue(t, items)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"sellers", "--facilitator", srv.URL, "--query", "gpt-4.1-mini"}, &stdout, &stderr, func(string) string { return "" }); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var listed struct {
		Suppliers []gateway.SupplierConfig `yaml:"suppliers"`
	}
	dec := yaml.NewDecoder(strings.NewReader(stdout.String()))
	dec.KnownFields(true)
	if err := dec.Decode(&listed); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(listed.Suppliers) != 2 {
		t.Fatalf("%d suppliers listed, want 2:\n%s", len(listed.Suppliers), stdout.String())
	}
	cheap, _ := listed.Suppliers[0].UpstreamConfig.(*resell.Settings)
	dear, _ := listed.Suppliers[1].UpstreamConfig.(*resell.Settings)
	if cheap == nil || dear == nil {
		t.Fatalf("listed %+v: want x402 sellers", listed.Suppliers)
	}
	if cheap.BaseURL != "https://cheap.example/v1" || cheap.MaxUpstreamPrice != "0.001" || dear.BaseURL != "https://dear.example/v1" || dear.MaxUpstreamPrice != "0.0025" {
		t.Errorf("listed %+v, %+v", cheap, dear)
	}
	cfg := gateway.Config{Models: []gateway.ModelConfig{{Name: "gpt-4.1-mini", Price: "0", Suppliers: listed.Suppliers,
		Routing: gateway.RoutingConfig{Strategy: "cheapest"}}}}
	key := "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
	if err := cfg.Validate(func(k string) string { return map[string]string{"FAREBOX_RESELLER_KEY": key}[k] }); err != nil {
		t.Errorf("the pasted suppliers do not validate: %v", err)
	}
}

// A catalogue without the model is an error naming it, not an empty list.
func TestSellersOfAnUnlistedModelIsAnError(t *testing.T) {
	srv := payertest.Catalogue(t, []map[string]any{payertest.CatalogueItem("https://a.example/v1/responses", "other-model", "1", false)})
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"sellers", "--facilitator", srv.URL, "--query", "gpt-4.1-mini"}, &stdout, &stderr, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), `"gpt-4.1-mini"`) {
		t.Fatalf("got %v", err)
	}
}

// A catalogue is written by strangers: whatever its strings hold, the
// printed suppliers parse as YAML into only the keys farebox writes (a
// newline in a scheme once turned the comment's tail into supplier keys
// such as max_upstream_deposit and rpc_url).
func TestSellersQuotesWhatTheCatalogueSays(t *testing.T) {
	inject := "exact\n    max_upstream_deposit: \"5000\"\n    rpc_url: http://attacker.example"
	hostile := payertest.CatalogueItem("https://evil.example/v1/responses", "gpt-4.1-mini", "1000", false)
	hostile["accepts"].([]any)[0].(map[string]any)["scheme"] = inject
	quoted := payertest.CatalogueItem("https://odd.example/v1/responses", "gpt-4.1-mini", "2000", false)
	quoted["accepts"].([]any)[0].(map[string]any)["network"] = `eip155:84532" # ' : {x: 1}`
	srv := payertest.Catalogue(t, []map[string]any{hostile, quoted,
		payertest.CatalogueItem("https://fine.example/v1/responses", "gpt-4.1-mini", "3000", false)})
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"sellers", "--facilitator", srv.URL, "--query", "gpt-4.1-mini"}, &stdout, &stderr, func(string) string { return "" }); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var listed struct {
		Suppliers []map[string]any `yaml:"suppliers"`
	}
	if err := yaml.Unmarshal(stdout.Bytes(), &listed); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	allowed := map[string]bool{"name": true, "upstream": true, "base_url": true, "upstream_model": true, "payer_key_env": true, "max_upstream_price": true}
	for _, s := range listed.Suppliers {
		for k := range s {
			if !allowed[k] {
				t.Errorf("a catalogue string became the supplier key %q:\n%s", k, stdout.String())
			}
		}
		if s["base_url"] == "https://evil.example/v1" {
			t.Errorf("the seller with a control character in its scheme is listed:\n%s", stdout.String())
		}
	}
	if len(listed.Suppliers) != 2 || !strings.Contains(stderr.String(), "evil.example") {
		t.Errorf("listed %d suppliers (want the odd and the fine one), stderr %q\n%s", len(listed.Suppliers), stderr.String(), stdout.String())
	}
}
