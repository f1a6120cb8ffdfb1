// Package exact is the exact scheme as a server serves it: an EIP-3009
// transferWithAuthorization of the requirement's whole amount. Its wire
// types, decoder and local verification are package x402's own (exact is
// the scheme x402 v1 was written for, and every header decodes through
// x402.DecodePayment); this package verifies a payment against the
// server's requirement, reserves it in the settlement journal and, when
// the server settles on chain itself, follows its transfer.
package exact

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// Scheme is exact's `scheme` field.
const Scheme = x402.SchemeExact

// Chain is the server's own relayer, when it settles on chain itself: a
// broadcast transfer is followed to its end (evm.Settler).
type Chain interface {
	// Await waits for the transfer tx of p: nil when it succeeded, an
	// *x402.Error when it failed.
	Await(ctx context.Context, tx common.Hash, p *x402.Payment) error
	// PaidBy is the transaction that moved p's authorization to req.PayTo
	// in full, the zero hash when none did.
	PaidBy(ctx context.Context, p *x402.Payment, req *x402.Requirement) (common.Hash, time.Time, error)
}

// Server is the exact scheme for a server (an x402.ServerScheme).
type Server struct {
	// Verifier checks payments locally, then on chain (its Checker).
	Verifier *x402.Verifier
	// Engine journals every purchase: replays, holds, settlement.
	Engine *settle.Engine
	// Chain, when set, follows a transfer broadcast before the answer is
	// streamed (FollowedHold); nil with a facilitator.
	Chain Chain
	// Overlap leaves the chain's check of a payment to run alongside the
	// model (CheckingHold) instead of before it.
	Overlap bool
	// Log reports a purchase that could not be released.
	Log *slog.Logger
}

var _ x402.ServerScheme = (*Server)(nil)

// Name is "exact".
func (*Server) Name() string { return Scheme }

// Accept is req as an exact accept (the plain requirement).
func (*Server) Accept(req *x402.Requirement) json.RawMessage {
	r := *req
	r.Scheme = Scheme
	return x402.PlainAccept(&r)
}

// Metered is false: exact moves the requirement's whole amount.
func (*Server) Metered() bool { return false }

// Authorize verifies an exact payment locally, reserves it in the journal
// and has the chain check it: before returning, or (Overlap, a plain
// signature, not a replay) left to the hold's Check.
func (s *Server) Authorize(ctx context.Context, pay *x402.Payment, req *x402.Requirement, f x402.Facts) (x402.Hold, error) {
	id, err := settle.PaymentID(pay)
	if err != nil {
		return nil, err
	}
	reqs := [1]*x402.Requirement{req}
	if req, err = s.Verifier.VerifyLocal(ctx, pay, reqs[:]); err != nil {
		return nil, x402.Refusal(err, x402.ReasonUnexpectedVerifyError)
	}
	held, err := s.Engine.Reserve(ctx, settle.Purchase{Payment: pay, Requirement: req, BodyHash: f.BodyHash, PaymentID: id, Model: f.Model}, false)
	if err != nil {
		return nil, err
	}
	h := &hold{Hold: held, s: s, pay: pay, req: req}
	// The chain is asked once the journal knows the purchase: a paid one
	// is served again even though its nonce is used on chain. A contract
	// wallet's signature (longer than 65 bytes) was not checked locally at
	// all: it is checked before the model starts, or anyone could run the
	// model for nothing by sending junk.
	if held.Replay() {
		return h, nil
	}
	if s.Overlap && s.Verifier.Checker != nil && s.Verifier.Gate == nil && len(pay.Signature) <= 65 {
		h.deferred = true
		return h, nil
	}
	end, err := s.Verifier.CheckPayer(ctx, pay, req)
	if err != nil {
		if rerr := held.Release(ctx); rerr != nil && s.Log != nil {
			s.Log.Error("releasing a purchase the chain refused", "err", rerr)
		}
		return nil, x402.Refusal(err, x402.ReasonUnexpectedVerifyError)
	}
	h.end = end
	return h, nil
}

// hold is an exact purchase in the journal.
type hold struct {
	settle.Hold
	s        *Server
	pay      *x402.Payment
	req      *x402.Requirement
	deferred bool
	// end tells the checker how the purchase ended (x402.PayerChecker);
	// nil when its check did not go through CheckPayer.
	end func(failed bool)
}

// Settle settles through the engine and tells the checker whether the
// settlement was refused (a pending one is not).
func (h *hold) Settle(ctx context.Context, amount *big.Int) (*x402.Receipt, error) {
	rc, err := h.Hold.Settle(ctx, amount)
	if h.end != nil {
		h.end(err != nil && !errors.Is(err, x402.ErrSettlementPending))
	}
	return rc, err
}

// Release gives the purchase up; nothing failed.
func (h *hold) Release(ctx context.Context) error {
	if h.end != nil {
		h.end(false)
	}
	return h.Hold.Release(ctx)
}

// Owe records the payer's debt; its payments are checked again.
func (h *hold) Owe(ctx context.Context, reason string) error {
	if h.end != nil {
		h.end(true)
	}
	return h.Hold.Owe(ctx, reason)
}

var (
	_ x402.AnsweredHold = (*hold)(nil)
	_ x402.CheckingHold = (*hold)(nil)
	_ x402.FollowedHold = (*hold)(nil)
)

// Deferred reports a chain check left to run alongside the model.
func (h *hold) Deferred() bool { return h.deferred }

// Check runs the chain's check of the payment.
func (h *hold) Check(ctx context.Context) error { return h.s.Verifier.Check(ctx, h.pay, h.req) }

// Follow waits for the transfer of a successful receipt r: the chain's
// refusal when it failed, unless someone else's transaction used the
// authorization first and paid payTo in full (the call is paid all the
// same: paidBy names it). Nothing without a chain of the server's own.
func (h *hold) Follow(ctx context.Context, r *x402.Receipt) (string, *x402.Error) {
	st := h.s.Chain
	if st == nil || r == nil || r.Transaction == "" || !r.Success {
		return "", nil
	}
	err := st.Await(ctx, common.HexToHash(r.Transaction), h.pay)
	var xe *x402.Error
	if !errors.As(err, &xe) {
		return "", nil
	}
	if xe.Reason == x402.ReasonNonceAlreadyUsed {
		if tx, _, perr := st.PaidBy(ctx, h.pay, h.req); perr == nil && tx != (common.Hash{}) {
			return tx.Hex(), nil
		}
	}
	if h.end != nil {
		h.end(true)
	}
	return "", xe
}
