package charge

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/farebox/farebox/responses"
)

// A stored response leaves out what it echoes of the request (a 1 MB
// instructions costs the store nothing), comes back byte for byte with
// the echo of the same request, and is refused with another request's.
func TestStoredAnswersLeaveTheEchoOut(t *testing.T) {
	instr := strings.Repeat("echoed, never stored. ", 1<<20/22)
	req, perr := responses.Parse([]byte(`{"model":"m","instructions":"` + instr + `","input":"hi"}`))
	if perr != nil {
		t.Fatal(perr)
	}
	em := responses.NewEmitter(req, responses.Discard{}, responses.EmitterOptions{Model: "m"})
	_ = em.Text("an answer")
	_ = em.Complete(nil)
	object := em.Response()

	w := newAnswerWriter(em.Echo(), answerJSON)
	w.write(object)
	if len(w.out) > 4<<10 {
		t.Fatalf("the stored answer holds %d bytes for a %d-byte response", len(w.out), len(object))
	}
	plain, err := expandAnswer(w.out, responses.ResponseEcho(req, "m"))
	if err != nil || !bytes.Equal(plain, append([]byte{answerJSON}, object...)) {
		t.Fatalf("expanded: %v, identical: %v", err, bytes.Equal(plain[1:], object))
	}
	other, _ := responses.Parse([]byte(`{"model":"m","instructions":"something else entirely, long enough to be left out of an answer","input":"hi"}`))
	if _, err := expandAnswer(w.out, responses.ResponseEcho(other, "m")); !errors.Is(err, errBadStoredAnswer) {
		t.Errorf("expanded with another request's echo: %v", err)
	}
}
