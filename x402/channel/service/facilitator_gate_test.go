package service_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
)

// exchanger answers every exchange with status and body, or err, counting them.
type exchanger struct {
	status int
	body   string
	err    error
	n      int
}

func (e *exchanger) Exchange(context.Context, string, []byte) (int, []byte, error) {
	e.n++
	return e.status, []byte(e.body), e.err
}

// A deposit or refund asks the facilitator's /verify: when the facilitator
// was seen down it is not asked at all, and when it cannot be reached the
// refusal is x402's unexpected verify error (the server's 503, retry the
// same payment), never a batch-settlement reason (a 402 that has the
// client sign again). An answer of its own is still its own refusal.
func TestVerifyRemoteTellsAnUnreachableFacilitator(t *testing.T) {
	p := &channel.Payload{Raw: []byte(`{"type":"deposit"}`)}
	down := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	for _, c := range []struct {
		name      string
		ex        exchanger
		available error
		asked     int
		reason    string
	}{
		{name: "seen down", available: &x402.Error{Reason: x402.ReasonUnexpectedVerifyError}, asked: 0, reason: x402.ReasonUnexpectedVerifyError},
		{name: "refused", ex: exchanger{err: down}, asked: 1, reason: x402.ReasonUnexpectedVerifyError},
		{name: "proxy 503", ex: exchanger{status: http.StatusServiceUnavailable, body: "<html>"}, asked: 1, reason: x402.ReasonUnexpectedVerifyError},
		{name: "proxy 502", ex: exchanger{status: http.StatusBadGateway}, asked: 1, reason: x402.ReasonUnexpectedVerifyError},
		{name: "its refusal", ex: exchanger{status: http.StatusOK, body: `{"isValid":false,"invalidReason":"` + channel.ReasonInsufficientBalance + `"}`},
			asked: 1, reason: channel.ReasonInsufficientBalance},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := &service.FacilitatorBackend{Facilitator: &c.ex, Available: func(context.Context) error { return c.available }}
			_, err := b.VerifyRemote(context.Background(), p, []byte(`{}`))
			if c.ex.n != c.asked {
				t.Errorf("/verify asked %d times, want %d", c.ex.n, c.asked)
			}
			var xe *x402.Error
			var ce *channel.Error
			switch {
			case c.reason == x402.ReasonUnexpectedVerifyError && (!errors.As(err, &xe) || xe.Reason != c.reason || errors.As(err, &ce)):
				t.Errorf("error %v, want an *x402.Error %s and no batch-settlement reason", err, c.reason)
			case c.reason != x402.ReasonUnexpectedVerifyError && (!errors.As(err, &ce) || ce.Reason != c.reason):
				t.Errorf("error %v, want the facilitator's %s", err, c.reason)
			}
		})
	}
}
