package upstreamhttp

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/farebox/farebox/responses"
)

// sseAnswer is what the fuzzed upstream serves: the bytes and how many of
// them go out per flush (0: all at once).
type sseAnswer struct {
	body  []byte
	chunk int
}

// sseSeeds are the event streams both fuzz targets start from: JSON and
// [DONE], named events, multi-line data with comments, retry and id lines,
// a stream without its last blank line, CR-only line ends and a BOM.
var sseSeeds = []string{
	"data: {\"a\":1}\n\ndata: [DONE]\n\n",
	"event: response.created\ndata: {\"type\":\"response.created\"}\n\n",
	"data: one\ndata: two\n\n: comment\n\nretry: 10\nid: 7\ndata:three\r\n\r\n",
	"data: no blank line at the end",
	"\r\r\rdata: cr only\r\r",
	"\xef\xbb\xbfdata: bom\n\n",
}

// FuzzSSE reads arbitrary bytes as an upstream's event stream through Open
// and Next: no panic or hang, a failure is a mapped *responses.Error, and the
// events are the same whether the bytes arrive at once or a few at a time
// (the line reader must not depend on how the network splits the stream).
func FuzzSSE(f *testing.F) {
	for _, seed := range append(sseSeeds, "data: "+string(bytes.Repeat([]byte("x"), 70000))+"\n\n") {
		f.Add([]byte(seed), uint8(3))
	}
	var answer atomic.Pointer[sseAnswer]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answer.Load()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		if a.chunk == 0 {
			_, _ = w.Write(a.body)
			return
		}
		for b := a.body; len(b) > 0; {
			n := min(a.chunk, len(b))
			_, _ = w.Write(b[:n])
			w.(http.Flusher).Flush()
			b = b[n:]
		}
	}))
	f.Cleanup(srv.Close)
	tm := Timeouts{FirstByte: 10 * time.Second, Gap: 10 * time.Second, Total: 20 * time.Second}
	client, err := NewClient(srv.URL, "", tm, nil)
	if err != nil {
		f.Fatal(err)
	}
	read := func(t *testing.T, a *sseAnswer) (events []string, err error) {
		answer.Store(a)
		st, err := Open(context.Background(), client, "events", []byte(`{}`), tm)
		if err != nil {
			t.Fatalf("Open on a 200 event stream: %v", err)
		}
		defer st.Close()
		for st.Next() {
			ev := st.Event()
			events = append(events, ev.Type+"\x00"+string(ev.Data))
		}
		return events, st.Err()
	}
	f.Fuzz(func(t *testing.T, body []byte, chunk uint8) {
		whole, errWhole := read(t, &sseAnswer{body: body})
		split, errSplit := read(t, &sseAnswer{body: body, chunk: 1 + int(chunk%16)})
		for _, err := range []error{errWhole, errSplit} {
			var e *responses.Error
			if err != nil && (!errors.As(err, &e) || e.Status < 500) {
				t.Fatalf("stream error %v is not a mapped 5xx", err)
			}
		}
		if (errWhole == nil) != (errSplit == nil) || len(whole) != len(split) {
			t.Fatalf("at once: %d events (%v); in pieces: %d events (%v)", len(whole), errWhole, len(split), errSplit)
		}
		for i := range whole {
			if whole[i] != split[i] {
				t.Fatalf("event %d differs: %q at once, %q in pieces", i, whole[i], split[i])
			}
		}
	})
}
