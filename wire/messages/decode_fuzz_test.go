package messages

import (
	"os"
	"strings"
	"testing"

	"github.com/farebox/farebox/responses"
)

// FuzzDecode holds that no body makes Decode panic, and that every
// refusal is a 400 naming a Messages field, never a Responses one.
func FuzzDecode(f *testing.F) {
	if b, err := os.ReadFile("testdata/claude_code.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(thinkingBody))
	f.Add([]byte(`{"model":"m","max_tokens":100,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, p := range []responses.HostedPolicy{responses.HostedDrop, responses.HostedRefuse} {
			_, err := Decode(body, p)
			if err != nil && (err.Status != 400 || strings.Contains(err.Param, "input[") || strings.Contains(err.Message, "'input[")) {
				t.Fatalf("error %d %q %q", err.Status, err.Param, err.Message)
			}
		}
	})
}
