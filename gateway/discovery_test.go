package gateway

import (
	"bytes"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tidwall/gjson"
)

// The bazaar declaration of a model validates against its own schema, as
// a facilitator checks before cataloguing it, and names the model.
func TestDiscoveryExtensionValidatesAgainstItsSchema(t *testing.T) {
	ext := discoveryExtension(&route{name: "gpt-4.1-mini", price: big.NewInt(2000)})[bazaarExtension]
	schemaDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(gjson.GetBytes(ext, "schema").Raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("bazaar.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("bazaar.json")
	if err != nil {
		t.Fatal(err)
	}
	var info any
	if err := json.Unmarshal([]byte(gjson.GetBytes(ext, "info").Raw), &info); err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(info); err != nil {
		t.Fatalf("info does not validate: %v", err)
	}
	if got := gjson.GetBytes(ext, "info.input.body.model").Str; got != "gpt-4.1-mini" {
		t.Errorf("the declared body names model %q", got)
	}
	var wrong any
	json.Unmarshal([]byte(`{"input":{"type":"http","method":"POST","bodyType":"json","body":{"model":"other","input":"x"}}}`), &wrong)
	if sch.Validate(wrong) == nil {
		t.Error("the schema accepts a body naming another model")
	}
}
