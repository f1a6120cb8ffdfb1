package resell

import (
	"context"
	"errors"
	"math/big"
	"time"

	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/upto"
)

// How long the chain is asked for an upto charge's proof before the
// signed maximum is booked instead: a seller's settlement is normally
// mined before its receipt, so the wait only covers a slow chain.
const (
	proofWait      = time.Minute
	proofFirstPoll = 250 * time.Millisecond
	proofMaxPoll   = 5 * time.Second
	// maxProofs bounds the proofs awaited at once: past it a purchase is
	// booked at its signed maximum, so a seller naming transactions that
	// never come cannot pile up waiting readers.
	maxProofs = 1024
)

// proof is one upto purchase whose cost waits on the chain.
type proof struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// proveLater books p's cost off the answer's path when it is an upto
// charge below the signed maximum and a chain can prove it: the charge
// once the chain proves the seller's settlement moved exactly it, else
// (a lie, a failed or foreign transaction, no proof within proofWait) the
// signed maximum. It reports whether it took the booking over; the
// caller holds p.mu.
func (m *Model) proveLater(p *purchase) bool {
	s := p.settled
	if m.cfg.Chain == nil || s == nil || s.Scheme != upto.Scheme || s.Charged == nil || s.Charged.Cmp(p.req.Amount) >= 0 {
		return false
	}
	signed := new(big.Int).Set(p.req.Amount)
	ctx, cancel := context.WithTimeout(context.Background(), proofWait)
	pr := &proof{cancel: cancel, done: make(chan struct{})}
	m.mu.Lock()
	if len(m.proofs) >= maxProofs {
		m.mu.Unlock()
		cancel()
		return false
	}
	m.proofs[pr] = struct{}{}
	m.mu.Unlock()
	go func() {
		defer close(pr.done)
		defer cancel()
		cost, err := prove(ctx, s, signed)
		m.mu.Lock()
		m.paid.Add(m.paid, cost)
		delete(m.proofs, pr)
		m.mu.Unlock()
		attrs := []any{"upstream", m.cfg.BaseURL, "transaction", s.Transaction, "said", s.Charged.String(), "signed", signed.String(), "booked", cost.String()}
		switch {
		case err == nil:
			m.cfg.Log.Info("upstream upto charge proven on chain", attrs...)
		case errors.Is(err, payer.ErrUnproven):
			m.cfg.Log.Warn("upstream upto charge not proven by the chain: booked the signed maximum", append(attrs, "err", err)...)
		default:
			m.cfg.Log.Warn("upstream upto charge not on chain in time: booked the signed maximum", append(attrs, "err", err)...)
		}
	}()
	return true
}

// prove asks the chain for s's charge until it proves it, says it never
// will, or ctx ends; the cost to book is the charge, else signed.
func prove(ctx context.Context, s *payer.Settlement, signed *big.Int) (*big.Int, error) {
	wait := proofFirstPoll
	for {
		charge, err := s.Proven(ctx)
		switch {
		case err == nil && charge.Cmp(signed) <= 0:
			return charge, nil
		case err == nil:
			return signed, payer.ErrUnproven
		case errors.Is(err, payer.ErrUnproven):
			return signed, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return signed, errors.Join(err, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, proofMaxPoll)
	}
}

// Settle waits until every upto purchase awaiting the chain's proof is
// booked; those still awaited when ctx ends are booked at once at their
// signed maximum (never less than what may have moved). The gateway
// calls it before its last sample of the books' cost.
func (m *Model) Settle(ctx context.Context) {
	m.mu.Lock()
	var all []*proof
	for pr := range m.proofs {
		all = append(all, pr)
	}
	m.mu.Unlock()
wait:
	for _, pr := range all {
		select {
		case <-pr.done:
		case <-ctx.Done():
			for _, pr := range all {
				pr.cancel()
			}
			break wait
		}
	}
	for _, pr := range all {
		<-pr.done
	}
}
