package gemini

import (
	"context"
	"testing"

	"github.com/farebox/farebox/internal/testkit/fakegemini"
	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// A count goes to countTokens as the whole generateContent request farebox
// would send (model named, system instruction and tools included), with
// the operator's key, and the upstream's totalTokens is the count.
func TestCountInputTokensAsksCountTokens(t *testing.T) {
	s := newFake(t, fakegemini.Options{})
	m := newModel(t, s, Config{Model: "text"})
	req, perr := responses.Parse([]byte(`{"model":"gemini-2.5-flash","instructions":"Be brief.","input":"How warm is Paris today?",` +
		`"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]}`))
	if perr != nil {
		t.Fatal(perr)
	}
	n, err := m.CountInputTokens(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Last()
	if err != nil {
		t.Fatal(err)
	}
	g := gjson.GetBytes(rec.Body, "generateContentRequest")
	if rec.Path != "text:countTokens" || g.Get("model").Str != "models/text" || rec.Header.Get("X-Goog-Api-Key") != "gm-operator" {
		t.Fatalf("count sent to %s, model %s, key %q", rec.Path, g.Get("model").Raw, rec.Header.Get("X-Goog-Api-Key"))
	}
	if !g.Get("systemInstruction").Exists() || !g.Get("tools.0.functionDeclarations.0").Exists() {
		t.Errorf("the count left out the system instruction or the tools: %s", g.Raw)
	}
	if want := fakegemini.CountTokens(g); n != want || n <= 3 {
		t.Errorf("count %d, want the upstream's %d", n, want)
	}
	if _, err := newModel(t, s, Config{Model: "status:503"}).CountInputTokens(context.Background(), req); err == nil {
		t.Error("a 503 from countTokens gave a count")
	}
}
