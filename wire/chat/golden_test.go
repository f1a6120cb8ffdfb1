package chat

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
var goldenScripts = map[string]struct {
	body   string
	script func(e *responses.Emitter)
}{
	"text_then_calls": {toolsBody, func(e *responses.Emitter) {
		_ = e.Text("Let me look.")
		_ = e.StartCall("call_A", "get_weather")
		_ = e.Arguments(`{"city":"Paris"}`)
		_ = e.StartCall("call_B", "get_time")
		e.SetUsage(responses.Usage{InputTokens: 10, OutputTokens: 7})
		_ = e.Complete(map[string]json.RawMessage{"x402": json.RawMessage(`{"success":true,"transaction":"0xabc","network":"eip155:84532"}`)})
	}},
	"failed_mid_stream": {`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, func(e *responses.Emitter) {
		_ = e.Text("partial")
		_ = e.Fail(&responses.Error{Status: 502, Type: "server_error", Message: "upstream went away"}, nil)
	}},
}

func TestGoldenStreams(t *testing.T) {
	for name, g := range goldenScripts {
		t.Run(name, func(t *testing.T) {
			rec, _ := run(t, g.body, g.script)
			body := rec.Body.Bytes()
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
