package service_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
)

// flakyBackend is the relayer's backend whose next fail claims fail before
// anything is sent, as through a facilitator that is down.
type flakyBackend struct {
	service.Backend
	fail atomic.Int64
}

func (b *flakyBackend) Claim(ctx context.Context, rows []channel.Claim, receiver, token common.Address, journal func(common.Hash) error) (common.Hash, error) {
	if b.fail.Add(-1) >= 0 {
		return common.Hash{}, &service.TxError{Stage: service.StageSend, Err: errors.New("the facilitator cannot be reached")}
	}
	return b.Backend.Claim(ctx, rows, receiver, token, journal)
}

// The interval's claim fails (its facilitator down): the claimer sends it
// again at its next look, once, rather than an interval later (the failed
// attempt restarted the interval, so what was charged waited another hour
// and a withdrawal could take it first).
func TestFaultClaimThatFailedIsSentAgainAtTheNextLook(t *testing.T) {
	ctx := withTimeout(t, 5*time.Minute)
	r := newRig(t, ctx)
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	fb := &flakyBackend{Backend: &service.RelayerBackend{Contracts: r.c, Relayer: r.settler}}
	fb.fail.Store(1)
	s := r.service(t, service.NewMemoryStore(), func(c *service.Config) {
		c.Backend, c.Policy, c.ClaimPoll = fb, channel.ClaimPolicy{Interval: time.Hour}, 50*time.Millisecond
		c.Now = func() time.Time { return time.Unix(0, now.Load()) }
	})
	a, _, _ := honestChannel(t, ctx, r, s)
	now.Add(int64(2 * time.Hour)) // the interval's claim is due
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); s.RunClaims(runCtx) }()
	for deadline := time.Now().Add(20 * time.Second); s.Stats().ClaimTxs == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond) // the claimer's looks are 50 ms apart
	}
	stop()
	<-done
	st := s.Stats()
	if _, claimed := r.onchain(t, ctx, a); st.ClaimTxs != 1 || st.ClaimFailures != 1 || claimed != 1700 {
		t.Errorf("%d claims sent after %d failed, %d claimed on chain; want the failed claim sent again once, claiming 1700",
			st.ClaimTxs, st.ClaimFailures, claimed)
	}
}
