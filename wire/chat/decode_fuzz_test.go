package chat

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/responses"
)

// FuzzDecode holds that no body makes Decode panic, and that every
// refusal is a 400 naming a chat field, never a Responses one.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(toolsBody))
	f.Add([]byte(`{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{"name":"x","input":"y"}}]},{"role":"tool","tool_call_id":"c","content":"z"}]}`))
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":{}}},"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[]}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, p := range []responses.HostedPolicy{responses.HostedDrop, responses.HostedRefuse} {
			_, err := Decode(body, p)
			if err != nil && (err.Status != 400 || strings.HasPrefix(err.Param, "input") || strings.Contains(err.Message, "'input[")) {
				t.Fatalf("error %d %q %q", err.Status, err.Param, err.Message)
			}
		}
	})
}
