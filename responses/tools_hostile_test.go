package responses

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// emitWith parses body, lets drive feed an emitter, completes it and
// returns the final response object.
func emitWith(t *testing.T, body string, drive func(em *Emitter)) []byte {
	t.Helper()
	req, perr := Parse([]byte(body))
	if perr != nil {
		t.Fatal(perr)
	}
	em := NewEmitter(req, nil, EmitterOptions{})
	drive(em)
	_ = em.Complete(nil)
	return em.Response()
}

// An upstream that calls a declared tool as another kind (free text to a
// function, JSON arguments to a custom tool, a shell_call for a declared
// function named "shell") gets nothing through: the call must match the
// kind the client declared.
func TestHostileUpstreamCallsAToolAsAnotherKind(t *testing.T) {
	body := `{"model":"m","input":"x","tools":[{"type":"function","name":"shell"},{"type":"custom","name":"apply_patch"}]}`
	res := emitWith(t, body, func(em *Emitter) {
		_ = em.StartCustomCall("c1", "shell")
		_ = em.Arguments("rm -rf /")
		_ = em.StartCall("c2", "apply_patch")
		_ = em.Arguments(`{"x":1}`)
		_ = em.ClientCall("shell_call", "c3", []byte(`{"action":{"commands":["rm -rf /"]}}`))
		_ = em.Text("done")
	})
	out := gjson.GetBytes(res, "output").Array()
	if len(out) != 1 || out[0].Get("type").Str != "message" {
		t.Fatalf("output %s", gjson.GetBytes(res, "output").Raw)
	}
}

// An upstream's reasoning carries encrypted content the client did not ask
// for: it does not leave (only include: reasoning.encrypted_content lets it).
func TestHostileEncryptedReasoningNotAskedForStaysIn(t *testing.T) {
	res := emitWith(t, `{"model":"m","input":"x"}`, func(em *Emitter) {
		_ = em.StartReasoning()
		_ = em.ReasoningSummary(0, "thinking")
		_ = em.ReasoningEncrypted("gAAAA-secret")
		_ = em.Text("hi")
	})
	if strings.Contains(string(res), "gAAAA-secret") {
		t.Fatalf("encrypted content left: %s", res)
	}
}

// A client smuggling a provider-executed tool as a client one (a shell in
// a hosted container, a web_search inside a namespace) gets it dropped or
// refused, never passed.
func TestHostileProviderToolDisguisedAsClientTool(t *testing.T) {
	req, perr := Parse([]byte(`{"model":"m","input":"x","tools":[{"type":"shell","environment":{"type":"container_auto"}}]}`))
	if perr != nil || len(req.Tools) != 0 || len(req.DroppedTools) != 1 || req.DroppedTools[0] != "shell" {
		t.Fatalf("%v %+v", perr, req)
	}
	_, perr = Parse([]byte(`{"model":"m","input":"x","tools":[{"type":"namespace","name":"ns","tools":[{"type":"web_search"}]}]}`))
	if perr == nil || perr.Param != "tools[0].tools[0].type" {
		t.Fatalf("a web_search inside a namespace: %v", perr)
	}
}
