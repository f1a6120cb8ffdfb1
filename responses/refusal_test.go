package responses

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/schemas"
	"github.com/tidwall/gjson"
)

// A refusal after text closes the text message and opens a message whose
// one part is the refusal, with the refusal events; both validate against
// farebox's schemas and OpenAI's spec.
func TestRefusalIsItsOwnMessagePart(t *testing.T) {
	var types []string
	sink := sinkFunc(func(typ string, data []byte) error {
		if err := schemas.ValidateEvent(data); err != nil {
			t.Errorf("%v\n%s", err, data)
		}
		types = append(types, typ)
		return nil
	})
	em := NewEmitter(nil, sink, EmitterOptions{Model: "m"})
	if err := em.Text("Let me see. "); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"I can't", " help with that."} {
		if err := em.Refusal(d); err != nil {
			t.Fatal(err)
		}
	}
	em.SetUsage(Usage{InputTokens: 3, OutputTokens: 5})
	if err := em.Complete(nil); err != nil {
		t.Fatal(err)
	}
	final := em.Response()
	if err := schemas.Validate("response", final); err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(final, "output.1.content.0").Raw; got != `{"type":"refusal","refusal":"I can't help with that."}` {
		t.Errorf("refusal part %s", got)
	}
	if got := gjson.GetBytes(final, "output.0.content.0.text").Str; got != "Let me see. " {
		t.Errorf("text part %q", got)
	}
	want := "response.refusal.delta response.refusal.delta response.refusal.done response.content_part.done"
	if !strings.Contains(strings.Join(types, " "), want) {
		t.Errorf("events %v lack %q", types, want)
	}
}

type sinkFunc func(typ string, data []byte) error

func (f sinkFunc) Event(typ string, data []byte) error { return f(typ, data) }
