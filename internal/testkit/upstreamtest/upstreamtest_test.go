package upstreamtest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/farebox/farebox/responses"
)

func TestAsClientErrorKeepsMappedErrorsAndMakesTheRest502(t *testing.T) {
	mapped := &responses.Error{Status: 429, Type: "server_error", Code: "rate_limit_exceeded"}
	if got := AsClientError(fmt.Errorf("wrapped: %w", mapped)); got != mapped {
		t.Errorf("a wrapped *responses.Error came back as %+v", got)
	}
	cause := errors.New("connection reset")
	got := AsClientError(cause)
	if got.Status != 502 || got.Type != "server_error" || !errors.Is(got, cause) {
		t.Errorf("a plain error became %d %s (cause kept: %v), want 502 server_error", got.Status, got.Type, errors.Is(got, cause))
	}
}

func TestEmitterOptionsCountIdsPerPrefixFromOne(t *testing.T) {
	o := EmitterOptions("m")
	got := []string{o.IDs("resp_"), o.IDs("msg_"), o.IDs("resp_")}
	want := []string{"resp_0001", "msg_0001", "resp_0002"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("id %d = %q, want %q", i, got[i], want[i])
		}
	}
	if again := EmitterOptions("m").IDs("resp_"); again != "resp_0001" {
		t.Errorf("a fresh EmitterOptions starts at %q, want resp_0001", again)
	}
	if o.Now() != EmitterOptions("m").Now() {
		t.Error("the clock is not fixed")
	}
}
