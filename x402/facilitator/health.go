package facilitator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/farebox/farebox/x402"
)

// probeEvery spaces the probes of a facilitator seen down, and probeTimeout
// bounds one: while it stays down, a paid call is refused at once rather
// than after a wait of its own.
const (
	probeEvery   = time.Second
	probeTimeout = 2 * time.Second
)

// health is what the client saw of the facilitator's reachability: down
// after an exchange it could not complete (refused, reset, timed out) or
// one a proxy in front of it answered 502, 503 or 504; up again after any
// answer of its own.
type health struct {
	mu      sync.Mutex
	down    bool
	cause   string
	probed  time.Time
	probing bool
}

// saw records the outcome of one exchange: err is the transport's error
// (nil when an answer came), status the answer's HTTP status. An exchange
// its caller cancelled (a client gone) says nothing about the facilitator;
// one whose deadline passed found it too slow.
func (h *health) saw(caller context.Context, status int, err error) {
	if errors.Is(caller.Err(), context.Canceled) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err != nil:
		h.down, h.cause = true, err.Error()
	case status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout:
		h.down, h.cause = true, fmt.Sprintf("HTTP %d", status)
	default:
		h.down, h.cause = false, ""
	}
}

// Available is nil unless the facilitator was last seen down: then it
// probes /supported (once a second at most, one probe at a time) and is an
// *x402.Error (x402.ReasonUnexpectedVerifyError, which the server answers
// 503 with Retry-After) until the facilitator answers again. A paid call
// asks it before its model runs, so a payment that could not be settled
// buys nothing and costs the operator no model run.
func (c *Client) Available(ctx context.Context) error {
	h := &c.health
	h.mu.Lock()
	if !h.down {
		h.mu.Unlock()
		return nil
	}
	if h.probing || time.Since(h.probed) < probeEvery {
		cause := h.cause
		h.mu.Unlock()
		return unavailable(cause)
	}
	h.probing, h.probed = true, time.Now()
	h.mu.Unlock()

	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	_, _ = c.Supported(pctx) // any answer at all is the facilitator's
	cancel()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.probing = false
	if !h.down { // it answered (even refusing the probe: it is reachable)
		return nil
	}
	return unavailable(h.cause)
}

func unavailable(cause string) error {
	return fmt.Errorf("facilitator unreachable (%s): %w", cause, &x402.Error{Reason: x402.ReasonUnexpectedVerifyError,
		Message: "The facilitator that settles payments cannot be reached; try again shortly."})
}
