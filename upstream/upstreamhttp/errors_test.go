package upstreamhttp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetryAfterReadsEveryForm(t *testing.T) {
	cases := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {"soon"}}, DefaultRetryAfter},
		{http.Header{}, DefaultRetryAfter},
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range cases {
		if got := retryAfter(tc.h, now); got != tc.want {
			t.Errorf("retryAfter(%v) = %s, want %s", tc.h, got, tc.want)
		}
	}
	future := now.Add(30 * time.Second).Format(http.TimeFormat)
	if got := retryAfter(http.Header{"Retry-After": {future}}, now); got != 30*time.Second {
		t.Errorf("HTTP-date Retry-After 30 s ahead gave %s", got)
	}
	past := now.Add(-time.Minute).Format(http.TimeFormat)
	if got := retryAfter(http.Header{"Retry-After": {past}}, now); got != DefaultRetryAfter {
		t.Errorf("HTTP-date Retry-After in the past gave %s, want the default", got)
	}
}

func TestMessageReadsServerShapes(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"too long","type":"invalid_request_error"}}`: "too long",
		`{"error":"model not loaded"}`:                                    "model not loaded",
		`{"message":"bad"}`:                                               "bad",
		`{"detail":"unprocessable"}`:                                      "unprocessable",
		`not json`:                                                        "",
	} {
		if got := errorMessage([]byte(body)); got != want {
			t.Errorf("errorMessage(%s) = %q, want %q", body, got, want)
		}
	}
}

func TestFromStatusNeverEchoesAuthFailures(t *testing.T) {
	body := []byte(`{"error":{"message":"Incorrect API key provided: sk-live-abcdef"}}`)
	for _, status := range []int{401, 403} {
		e := FromStatus(status, http.Header{}, body)
		if e.Status != 502 || strings.Contains(e.Message, "sk-") {
			t.Errorf("%d -> %d %q", status, e.Status, e.Message)
		}
	}
	if e := FromStatus(422, http.Header{}, []byte(`{"detail":"bad field"}`)); e.Status != 400 || e.Message != "bad field" {
		t.Errorf("422 -> %d %q", e.Status, e.Message)
	}
	if e := FromStatus(504, http.Header{}, nil); e.Status != 504 {
		t.Errorf("504 -> %d", e.Status)
	}
}

// A 5xx or 408 that names a delay passes it on (a paid call is retried
// after it); one that names none leaves RetryAfter unset.
func TestFromStatusKeepsAServerErrorsRetryAfter(t *testing.T) {
	for _, status := range []int{408, 500, 502, 503, 504} {
		if e := FromStatus(status, http.Header{"Retry-After": {"3"}}, nil); e.RetryAfter != 3*time.Second {
			t.Errorf("%d with Retry-After 3 -> RetryAfter %s", status, e.RetryAfter)
		}
		if e := FromStatus(status, http.Header{}, nil); e.RetryAfter != 0 {
			t.Errorf("%d without Retry-After -> RetryAfter %s", status, e.RetryAfter)
		}
	}
}

func TestTransportTellsTimeoutsFromDisconnects(t *testing.T) {
	ctx, w := watch(context.Background(), Timeouts{FirstByte: time.Millisecond, Gap: -1, Total: -1})
	<-ctx.Done()
	var e interface{ Error() string }
	err := Transport(ctx, ctx.Err())
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "504") {
		t.Errorf("first-byte timeout mapped to %v", err)
	}
	w.Stop()

	parent, cancel := context.WithCancel(context.Background())
	ctx, w = watch(parent, Timeouts{})
	defer w.Stop()
	cancel()
	if err := Transport(ctx, ctx.Err()); !errors.Is(err, context.Canceled) {
		t.Errorf("client disconnect mapped to %v", err)
	}
}
