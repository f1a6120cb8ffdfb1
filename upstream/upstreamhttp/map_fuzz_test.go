package upstreamhttp

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzFromStatus maps arbitrary upstream error answers: the client gets one
// of the documented statuses, a non-empty message no longer than the cap
// that stays valid UTF-8 when the upstream's was, and a 503's Retry-After
// is positive and bounded however absurd the upstream's headers.
func FuzzFromStatus(f *testing.F) {
	f.Add(400, "", "", []byte(`{"error":{"message":"bad tool schema","code":"invalid_schema"}}`))
	f.Add(429, "3", "", []byte(`{"error":"slow down"}`))
	f.Add(429, "Wed, 21 Oct 2099 07:28:00 GMT", "1500", []byte(`{"detail":"rate"}`))
	f.Add(422, "", "", []byte(`{"message":"`+strings.Repeat("é", 1500)+`"}`))
	f.Add(503, "", "", []byte(`<html>`))
	f.Fuzz(func(t *testing.T, status int, retryAfter, retryAfterMs string, body []byte) {
		h := http.Header{}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		if retryAfterMs != "" {
			h.Set("Retry-After-Ms", retryAfterMs)
		}
		e := FromStatus(status, h, body)
		switch e.Status {
		case 400, 502, 503, 504:
		default:
			t.Fatalf("upstream %d became %d", status, e.Status)
		}
		if e.Message == "" || len(e.Message) > maxMessage+len("...") {
			t.Fatalf("message of %d bytes", len(e.Message))
		}
		if utf8.Valid(body) && !utf8.ValidString(e.Message) {
			t.Fatalf("message %q is not valid UTF-8", e.Message)
		}
		if status == 429 && (e.RetryAfter <= 0 || e.RetryAfter > MaxRetryAfter) {
			t.Fatalf("Retry-After %q / Retry-After-Ms %q became %v", retryAfter, retryAfterMs, e.RetryAfter)
		}
	})
}
