package upstreamtest

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
)

// NewModel builds the upstream kind under test: baseURL is the upstream's
// /v1 address, apiKey the operator's key ("" sends none), model the
// upstream's model name ("" passes the client's on; against fakeupstream it
// picks the behaviour), tm the call's timeouts (zero fields take defaults).
type NewModel func(baseURL, apiKey, model string, tm upstreamhttp.Timeouts) (responses.Model, error)

// FailureMapping ensures every way the upstream can fail before the first
// byte (4xx, 5xx, 429 with and without a delay, timeouts) reaches the client
// as the mapped *responses.Error, before any event, without leaking the key.
func FailureMapping(t *testing.T, newModel NewModel) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	short := upstreamhttp.Timeouts{FirstByte: 150 * time.Millisecond, Gap: 150 * time.Millisecond}
	cases := []struct {
		model      string
		timeouts   upstreamhttp.Timeouts
		status     int
		typ, code  string
		retryAfter time.Duration
		message    string // a substring the message must hold; "" skips
	}{
		{"status:400", upstreamhttp.Timeouts{}, 400, "invalid_request_error", "context_length_exceeded", 0, "maximum context length is 8192 tokens"},
		{"status:400+plain", upstreamhttp.Timeouts{}, 400, "invalid_request_error", "", 0, "maximum context length"},
		{"status:401", upstreamhttp.Timeouts{}, 502, "server_error", "server_error", 0, "refused farebox's credentials"},
		{"status:403", upstreamhttp.Timeouts{}, 502, "server_error", "server_error", 0, "refused farebox's credentials"},
		{"status:429+retry_after=7", upstreamhttp.Timeouts{}, 503, "server_error", "rate_limit_exceeded", 7 * time.Second, ""},
		{"status:429+retry_after_ms=1500", upstreamhttp.Timeouts{}, 503, "server_error", "rate_limit_exceeded", 1500 * time.Millisecond, ""},
		{"status:429", upstreamhttp.Timeouts{}, 503, "server_error", "rate_limit_exceeded", time.Second, ""},
		{"status:500", upstreamhttp.Timeouts{}, 502, "server_error", "server_error", 0, "HTTP 5"},
		{"status:503+plain", upstreamhttp.Timeouts{}, 502, "server_error", "server_error", 0, "HTTP 5"},
		{"status:timeout", short, 504, "server_error", "server_error", 0, "timed out"},
		{"fixture:text+gap=2s", short, 504, "server_error", "server_error", 0, "timed out"},
	}
	for _, tc := range cases {
		t.Run(tc.model, func(t *testing.T) {
			m, err := newModel(up.URL(), "sk-farebox-operator-key", tc.model, tc.timeouts)
			if err != nil {
				t.Fatal(err)
			}
			req := Parse(t, `{"model":"m","input":"hi"}`)
			em := responses.NewEmitter(req, Discard{}, EmitterOptions("m"))
			err = m.Respond(context.Background(), req, em)
			var e *responses.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a *responses.Error", err)
			}
			if em.Started() {
				t.Error("events reached the client before the failure")
			}
			if e.Status != tc.status || e.Type != tc.typ || e.Code != tc.code || e.RetryAfter != tc.retryAfter {
				t.Errorf("got %d %s %q retry %s, want %d %s %q retry %s", e.Status, e.Type, e.Code, e.RetryAfter, tc.status, tc.typ, tc.code, tc.retryAfter)
			}
			if !strings.Contains(e.Message, tc.message) {
				t.Errorf("message %q lacks %q", e.Message, tc.message)
			}
			for _, secret := range []string{"SECRET", "sk-"} {
				if strings.Contains(e.Message, secret) {
					t.Errorf("message leaks a credential: %q", e.Message)
				}
			}
		})
	}
}

// OperatorKeyIsSentAsBearer ensures the operator's key goes upstream as a
// bearer token, and that no key sends no Authorization even when
// OPENAI_API_KEY is set in the environment.
func OperatorKeyIsSentAsBearer(t *testing.T, newModel NewModel) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	for _, key := range []string{"sk-operator", ""} {
		m, err := newModel(up.URL(), key, "", upstreamhttp.Timeouts{})
		if err != nil {
			t.Fatal(err)
		}
		req := Parse(t, `{"model":"m","input":"hi"}`)
		if err := m.Respond(context.Background(), req, responses.NewEmitter(req, Discard{}, EmitterOptions("m"))); err != nil {
			t.Fatal(err)
		}
		recs := up.Records()
		got := recs[len(recs)-1].Authorization
		want := ""
		if key != "" {
			want = "Bearer " + key
		}
		if got != want {
			t.Errorf("Authorization %q, want %q", got, want)
		}
	}
}

// UnreachableUpstreamIs502 ensures an upstream nobody listens at is a 502
// for the client.
func UnreachableUpstreamIs502(t *testing.T, newModel NewModel) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	m, err := newModel("http://"+addr+"/v1", "", "", upstreamhttp.Timeouts{})
	if err != nil {
		t.Fatal(err)
	}
	req := Parse(t, `{"model":"m","input":"hi"}`)
	err = m.Respond(context.Background(), req, responses.NewEmitter(req, Discard{}, EmitterOptions("m")))
	var e *responses.Error
	if !errors.As(err, &e) || e.Status != 502 {
		t.Fatalf("got %v, want a 502", err)
	}
}

// ClientDisconnectCancelsUpstream ensures the client going away (its context
// cancelled) ends the upstream request, both while waiting for the first
// byte and in the middle of a stream. Neither upstream can end on its own
// (one never answers, the other holds its last frame back until its client
// leaves), so an upstream request that ends at all was cancelled by farebox.
func ClientDisconnectCancelsUpstream(t *testing.T, newModel NewModel) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	for i, tc := range []struct {
		model     string
		midStream bool
	}{{"status:timeout", false}, {"fixture:text+stall", true}} {
		t.Run(tc.model, func(t *testing.T) {
			m, err := newModel(up.URL(), "", tc.model, upstreamhttp.Timeouts{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req := Parse(t, `{"model":"m","input":"hi"}`)
			sink := newFirstEvent()
			done := make(chan error, 1)
			go func() { done <- m.Respond(ctx, req, responses.NewEmitter(req, sink, EmitterOptions("m"))) }()
			// A guard against a hang, never a measurement.
			wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer wcancel()
			rec, err := up.WaitRequest(wctx, i+1)
			if err != nil {
				t.Fatal(err)
			}
			if tc.midStream {
				select {
				case <-sink.seen:
				case err := <-done:
					t.Fatalf("Respond returned %v before any output reached the client", err)
				case <-wctx.Done():
					t.Fatal("no output reached the client")
				}
			}
			cancel()
			select {
			case <-rec.Done():
			case <-wctx.Done():
				t.Fatal("the upstream request never ended after the client left")
			}
			if !rec.Canceled() {
				t.Error("the upstream request was answered, not cancelled")
			}
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Respond returned %v, want context.Canceled", err)
			}
		})
	}
}

// firstEvent is a sink that closes seen when the first event reaches the
// client, so a test can act mid-stream on an event instead of a delay.
type firstEvent struct {
	once sync.Once
	seen chan struct{}
}

func newFirstEvent() *firstEvent { return &firstEvent{seen: make(chan struct{})} }

// Event drops the event after signalling the first.
func (f *firstEvent) Event(string, []byte) error {
	f.once.Do(func() { close(f.seen) })
	return nil
}
