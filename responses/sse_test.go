package responses

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Keep-alive comments and events written at once never interleave inside
// a frame, and nothing is written after stop.
func TestSSEKeepAliveFramesStayWhole(t *testing.T) {
	rec := httptest.NewRecorder()
	w := NewSSEWriter(rec)
	comments := 0
	stop := w.KeepAlive(time.Microsecond, func() { comments++ })
	for i := range 2000 {
		if err := w.Event("response.output_text.delta", []byte(`{"type":"response.output_text.delta","n":`+strconv.Itoa(i)+`}`)); err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 {
			time.Sleep(time.Millisecond) // room for the timer
		}
	}
	stop()
	n := comments
	body := rec.Body.String()
	if err := w.Done(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(body, ": keep-alive\n\n"); got != n || n == 0 {
		t.Errorf("%d comments on the wire, %d counted", got, n)
	}
	for _, f := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		if f != ": keep-alive" && !strings.HasPrefix(f, "event: response.output_text.delta\ndata: {") {
			t.Fatalf("a broken frame %q", f)
		}
	}
	time.Sleep(5 * time.Millisecond) // a timer that fired late must not write
	if strings.Count(rec.Body.String(), ": keep-alive") != n {
		t.Error("a comment after stop")
	}
}
