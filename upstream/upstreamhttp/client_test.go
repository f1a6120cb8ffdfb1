package upstreamhttp

import (
	"context"
	"errors"
	"testing"

	"github.com/farebox/farebox/internal/fakeupstream"
	"github.com/farebox/farebox/responses"
)

func TestNewClientSendsOnlyTheOperatorKeyAndNeverRetries(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	for i, key := range []string{"sk-operator", ""} {
		c := NewClient(up.URL(), key, Timeouts{}, nil)
		body := []byte(`{"model":"status:500","messages":[{"role":"user","content":"hi"}],"stream":true}`)
		st, err := Open(context.Background(), &c, "chat/completions", body, Timeouts{})
		if err == nil {
			st.Close()
			t.Fatal("a 500 answer opened a stream")
		}
		var e *responses.Error
		if !errors.As(err, &e) || e.Status != 502 {
			t.Errorf("got %v, want the mapped 502", err)
		}
		recs := up.Records()
		if len(recs) != i+1 {
			t.Fatalf("%d requests reached the upstream, want %d: the SDK retried", len(recs), i+1)
		}
		want := ""
		if key != "" {
			want = "Bearer " + key
		}
		if got := recs[i].Authorization; got != want {
			t.Errorf("Authorization %q, want %q", got, want)
		}
	}
}
