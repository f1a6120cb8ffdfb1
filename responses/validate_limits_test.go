package responses

import (
	"strings"
	"testing"
)

// A model's limits lower what is over a cap and refuse an input over the
// limit, naming it; what is within them is left as sent.
func TestLimitsLowerWhatIsOverACap(t *testing.T) {
	l := &Limits{MaxOutputTokens: 600, MaxInputTokens: 100, Efforts: []string{"none", "low"}, EffortCap: "low",
		ServiceTiers: []string{"default", "flex"}, MaxVerbosity: "medium"}
	for _, c := range []struct{ name, body, maxOut, reasoning, tier, text string }{
		{"nothing sent: max_output_tokens added, no effort added", `{"model":"m","input":"x"}`, "600", "", "default", ""},
		{"all over", `{"model":"m","input":"x","max_output_tokens":100000000,"reasoning":{"effort":"xhigh","summary":"detailed"},"service_tier":"priority","text":{"format":{"type":"text"},"verbosity":"high"}}`,
			"600", `{"effort":"low","summary":"detailed"}`, "default", `{"format":{"type":"text"},"verbosity":"medium"}`},
		{"all within", `{"model":"m","input":"x","max_output_tokens":20,"reasoning":{"effort":"none"},"service_tier":"flex","text":{"verbosity":"low"}}`,
			"20", `{"effort":"none"}`, "flex", `{"verbosity":"low"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustParse(t, []byte(c.body))
			if err := l.Apply(r); err != nil {
				t.Fatal(err)
			}
			if r.MaxOutputTokens == nil || fmtNum(float64(*r.MaxOutputTokens)) != c.maxOut {
				t.Errorf("max_output_tokens %v, want %s", r.MaxOutputTokens, c.maxOut)
			}
			if string(r.Reasoning) != c.reasoning || r.ServiceTier != c.tier || string(r.Text) != c.text {
				t.Errorf("reasoning %s tier %s text %s", r.Reasoning, r.ServiceTier, r.Text)
			}
		})
	}
	r := mustParse(t, []byte(`{"model":"m","input":"`+strings.Repeat("x", 404)+`"}`))
	if err := l.Apply(r); err == nil || err.Status != 400 || err.Code != "input_above_limit" || err.Param != "input" || !strings.Contains(err.Message, "limit of 100 input tokens") {
		t.Fatalf("an input over the limit: %v", err)
	}
}

// The estimate counts every text the upstream reads and a flat count per
// image, whatever the image's bytes.
func TestInputTokensCountsTextAndImages(t *testing.T) {
	r := mustParse(t, []byte(`{"model":"m","instructions":"12345678","input":[{"role":"user","content":[{"type":"input_text","text":"abcd"},{"type":"input_image","image_url":"data:image/png;base64,`+strings.Repeat("A", 4000)+`"}]}],
		"tools":[{"type":"function","name":"f","description":"dddd","parameters":{"type":"object"}}]}`))
	text := int64(8+4+len("f")+len("dddd")+len(`{"type":"object"}`)+3) / 4
	if got, want := r.InputTokens(), text+imageTokens; got != want {
		t.Fatalf("estimate %d, want %d", got, want)
	}
}
