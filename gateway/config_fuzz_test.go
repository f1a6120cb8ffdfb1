package gateway

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzLoadConfig loads arbitrary YAML as farebox serve does: no panic; every
// duration it accepts is non-negative; and an accepted config written back
// as YAML loads to the same config, so what the operator wrote is what runs.
func FuzzLoadConfig(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "farebox.example.yaml")); err == nil {
		f.Add(string(b))
	}
	for _, seed := range []string{
		"addr: 127.0.0.1:0\nshutdown_timeout: 5\nmodels:\n  - name: m\n    upstream: scripted\n    pace: 30ms\n",
		"read_header_timeout: 1.5\nidle_timeout: 2m\npayments:\n  settle_timeout: 0.25\n",
		"payments:\n  networks: [base, \"eip155:1337\"]\n  custom_networks:\n    - {caip2: \"eip155:1337\", chain_id: 1337, asset: \"0x01\"}\n  chain: {simulate: false}\n",
		"payments:\n  chain: {rpc_url: \"http://127.0.0.1:1\", simulate: payer}\n",
		"payments:\n  chain: {simulate: true}\n",
		"models: [{name: a, images: true}]\nunknown_key: 1\n",
		"&a [*a]",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		path := filepath.Join(t.TempDir(), "farebox.yaml")
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(path)
		if err != nil {
			return
		}
		walkDurations(reflect.ValueOf(c), func(d Duration) {
			if d < 0 {
				t.Fatalf("negative duration %v accepted from %q", d, doc)
			}
		})
		out, err := yaml.Marshal(c)
		if err != nil {
			t.Fatalf("marshal %+v: %v", c, err)
		}
		if err := os.WriteFile(path, out, 0o600); err != nil {
			t.Fatal(err)
		}
		again, err := LoadConfig(path)
		if err != nil {
			t.Fatalf("config written back does not load: %v\n%s", err, out)
		}
		// Compared as YAML: an absent list and an empty one mean the same.
		if out2, err := yaml.Marshal(again); err != nil || string(out2) != string(out) {
			t.Fatalf("config changed when written back (%v):\n%s\n---\n%s", err, out, out2)
		}
		_ = c.ApplyEnv(func(string) string { return "" })
		_ = c.withDefaults()
	})
}

// walkDurations calls fn for every Duration inside v (structs and slices).
func walkDurations(v reflect.Value, fn func(Duration)) {
	switch v.Kind() {
	case reflect.Struct:
		if d, ok := v.Interface().(Duration); ok {
			fn(d)
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !strings.HasPrefix(v.Type().Field(i).Name, "_") {
				walkDurations(v.Field(i), fn)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkDurations(v.Index(i), fn)
		}
	case reflect.Int64:
		if d, ok := v.Interface().(Duration); ok {
			fn(d)
		}
	}
}
