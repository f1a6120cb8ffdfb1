package responses

import (
	"encoding/json"
	"testing"

	"github.com/farebox/farebox/schemas"
)

// The codes a failed response may carry are exactly the spec's
// ResponseErrorCode enum, and any error maps into it.
func TestConformanceResponseErrorCodesAreTheSpecs(t *testing.T) {
	var d struct {
		Components struct {
			Schemas struct {
				Code struct {
					Enum []string `json:"enum"`
				} `json:"ResponseErrorCode"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(schemas.OpenAPIDocument(), &d); err != nil {
		t.Fatal(err)
	}
	spec := map[string]bool{}
	for _, c := range d.Components.Schemas.Code.Enum {
		spec[c] = true
		if !responseErrorCodes[c] {
			t.Errorf("the spec's %s is missing from responseErrorCodes", c)
		}
	}
	for c := range responseErrorCodes {
		if !spec[c] {
			t.Errorf("%s is not in the spec's ResponseErrorCode", c)
		}
	}
	for _, e := range []*Error{
		{Status: 502, Type: "server_error", Code: "upstream_error"},
		{Status: 402, Type: "payment_error", Code: "insufficient_funds"},
		{Status: 429, Code: "upstream_rate_limited"},
		{Status: 500},
		{Status: 502, Code: "tool_call_denied"},
	} {
		if got := ResponseErrorCode(e); !spec[got] {
			t.Errorf("ResponseErrorCode(%+v) = %q, not a spec code", e, got)
		}
	}
}
