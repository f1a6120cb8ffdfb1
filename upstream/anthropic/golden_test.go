package anthropic

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
	"github.com/farebox/farebox/internal/testkit/upstreamtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestStreamsGolden pins the client's events for each of the fake's
// behaviours: the order of items, the reasoning items of thinking and
// redacted_thinking, the calls, the refusal, the incomplete and failed ends.
func TestStreamsGolden(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{Usage: fakeanthropic.Usage{InputTokens: 30, CacheReadTokens: 100, CacheWriteTokens: 20, OutputTokens: 12}})
	body := `{"model":"claude","stream":true,"instructions":"Be brief.","reasoning":{"effort":"medium"},"include":["reasoning.encrypted_content"],"input":"Weather?","tools":` + weatherTools + `}`
	for _, model := range []string{"text", "call+redacted", "stop:refusal", "stop:max_tokens", "error_midstream"} {
		t.Run(model, func(t *testing.T) {
			m := newModel(t, s, Config{Model: model, Caching: true, Thinking: Thinking{Mode: ThinkingEnabled}})
			got, _, _ := upstreamtest.Transcript(t, m, body)
			name := strings.NewReplacer(":", "_", "+", "_").Replace(model) + ".txt"
			upstreamtest.Golden(t, filepath.Join("testdata", "streams", name), got, *update)
		})
	}
}
