package upstreamhttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/farebox/farebox/internal/testkit/fakeupstream"
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
		c, err := NewClient(up.URL(), key, Timeouts{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		body := []byte(`{"model":"status:500","messages":[{"role":"user","content":"hi"}],"stream":true}`)
		st, err := Open(context.Background(), c, "chat/completions", body, Timeouts{})
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
			t.Fatalf("%d requests reached the upstream, want %d: the client retried", len(recs), i+1)
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

// seen is one request as an upstream received it.
type seen struct {
	path   string
	header http.Header
	body   string
}

// recorder is an upstream that remembers what it was sent and answers with
// answer.
type recorder struct {
	mu   sync.Mutex
	reqs []seen
}

func (rec *recorder) handler(answer http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, seen{r.URL.Path, r.Header.Clone(), string(b)})
		rec.mu.Unlock()
		answer(w, r)
	}
}

func (rec *recorder) all() []seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]seen(nil), rec.reqs...)
}

func sseOK(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, "data: {\"ok\":true}\n\n")
}

// TestOpenPostsJSONUnderTheBaseURL checks the request itself: a POST of the
// body as given to the path under the base URL's path (with or without its
// trailing slash), asking for an event stream, with no organisation or
// project headers even when the environment names them.
func TestOpenPostsJSONUnderTheBaseURL(t *testing.T) {
	var rec recorder
	srv := httptest.NewServer(rec.handler(sseOK))
	defer srv.Close()
	t.Setenv("OPENAI_ORG_ID", "org-from-the-environment")
	t.Setenv("OPENAI_PROJECT_ID", "proj-from-the-environment")
	body := `{"model":"m","input":"hi","stream":true}`
	for _, base := range []string{srv.URL + "/v1", srv.URL + "/v1/"} {
		c, err := NewClient(base, "sk-op", Timeouts{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Open(context.Background(), c, "responses", []byte(body), Timeouts{})
		if err != nil {
			t.Fatalf("base %s: %v", base, err)
		}
		if !st.Next() || string(st.Event().Data) != `{"ok":true}` {
			t.Errorf("base %s: first event %q, err %v", base, st.Event().Data, st.Err())
		}
		st.Close()
	}
	reqs := rec.all()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		if r.path != "/v1/responses" || r.body != body {
			t.Errorf("posted %q to %s, want %q to /v1/responses", r.body, r.path, body)
		}
		if got := r.header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type %q", got)
		}
		if got := r.header.Get("Accept"); got != "text/event-stream" {
			t.Errorf("Accept %q", got)
		}
		for _, h := range []string{"OpenAI-Organization", "OpenAI-Project"} {
			if v := r.header.Values(h); len(v) > 0 {
				t.Errorf("sent %s: %q", h, v)
			}
		}
	}
}

// TestRedirectsStayWithinTheOrigin follows a redirect on the upstream's own
// origin and refuses one to another origin without sending it anything: the
// key must not leave the configured upstream.
func TestRedirectsStayWithinTheOrigin(t *testing.T) {
	var elsewhere recorder
	other := httptest.NewServer(elsewhere.handler(sseOK))
	defer other.Close()
	var home recorder
	srv := httptest.NewServer(home.handler(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/responses":
			http.Redirect(w, r, "/v2/responses", http.StatusTemporaryRedirect)
		case "/v1/away":
			http.Redirect(w, r, other.URL+"/v1/responses", http.StatusTemporaryRedirect)
		default:
			sseOK(w, r)
		}
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL+"/v1", "sk-op", Timeouts{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(context.Background(), c, "responses", []byte(`{"a":1}`), Timeouts{})
	if err != nil {
		t.Fatalf("same-origin redirect: %v", err)
	}
	if !st.Next() {
		t.Errorf("same-origin redirect: no event (%v)", st.Err())
	}
	st.Close()
	if reqs := home.all(); len(reqs) != 2 || reqs[1].path != "/v2/responses" || reqs[1].body != `{"a":1}` ||
		reqs[1].header.Get("Authorization") != "Bearer sk-op" {
		t.Errorf("the redirected request: %+v", reqs)
	}

	_, err = Open(context.Background(), c, "away", []byte(`{}`), Timeouts{})
	var e *responses.Error
	if !errors.As(err, &e) || e.Status != 502 {
		t.Errorf("cross-origin redirect: %v, want the mapped 502", err)
	}
	if reqs := elsewhere.all(); len(reqs) != 0 {
		t.Errorf("the other origin received %d requests", len(reqs))
	}
}

// TestOpenMapsErrorAnswers passes an error answer's status, headers and
// body to FromStatus, and refuses a 200 that is not an event stream.
func TestOpenMapsErrorAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/limited":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/bad":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"message":"too long","code":"context_length_exceeded"}}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{}`)
		}
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, "", Timeouts{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	open := func(path string) *responses.Error {
		t.Helper()
		st, err := Open(context.Background(), c, path, []byte(`{}`), Timeouts{})
		if err == nil {
			st.Close()
			t.Fatalf("%s opened a stream", path)
		}
		var e *responses.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %v is not a *responses.Error", path, err)
		}
		return e
	}
	if e := open("limited"); e.Status != 503 || e.RetryAfter.Seconds() != 7 {
		t.Errorf("429: %d, Retry-After %s", e.Status, e.RetryAfter)
	}
	if e := open("bad"); e.Status != 400 || e.Message != "too long" || e.Code != "context_length_exceeded" {
		t.Errorf("400: %d %q %q", e.Status, e.Code, e.Message)
	}
	if e := open("json"); e.Status != 502 {
		t.Errorf("a JSON 200: %d", e.Status)
	}
}
