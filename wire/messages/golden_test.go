package messages

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/farebox/farebox/responses"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.sse from the encoder")

// goldenScripts are the streams pinned byte for byte under testdata/golden.
var goldenScripts = map[string]func(e *responses.Emitter){
	"thinking_text_tool_use": func(e *responses.Emitter) {
		_ = e.StartReasoning()
		_ = e.ReasoningSummary(0, "Paris: call the tool.")
		_ = e.ReasoningEncrypted("anthropic.thinking:SIG")
		_ = e.Text("Checking.")
		_ = e.StartCall("toolu_1", "get_weather")
		_ = e.Arguments(`{"city":"Paris"}`)
		e.SetUsage(responses.Usage{InputTokens: 100, CachedTokens: 60, OutputTokens: 20})
		_ = e.Complete(map[string]json.RawMessage{"x402": json.RawMessage(`{"success":true,"transaction":"0xabc","network":"eip155:84532"}`)})
	},
	"redacted_thinking": func(e *responses.Emitter) {
		_ = e.StartReasoning()
		_ = e.ReasoningEncrypted("anthropic.redacted:EmwKAhgB")
		_ = e.Text("Done.")
		_ = e.Complete(nil)
	},
	"failed_mid_stream": func(e *responses.Emitter) {
		_ = e.Text("partial")
		_ = e.Fail(&responses.Error{Status: 502, Type: "server_error", Message: "upstream went away"}, nil)
	},
}

func TestGoldenStreams(t *testing.T) {
	for name, script := range goldenScripts {
		t.Run(name, func(t *testing.T) {
			body, _ := play(t, thinkingBody, script)
			path := filepath.Join("testdata", "golden", name+".sse")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(body, want) {
				t.Fatalf("stream differs from %s (run with -update after checking):\n%s", path, body)
			}
		})
	}
}
