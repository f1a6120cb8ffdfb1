package service

import (
	"context"
	"errors"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/eip712"
)

// Call is one paid request on a channel, verified (and its deposit, if
// any, mined) and holding the channel's lock until Commit or Abort.
// Exactly one of them must end it; Abort after Commit does nothing, so
// `defer call.Abort(ctx)` is safe.
type Call struct {
	s      *Service
	p      *channel.Payload
	req    *x402.Requirement
	rec    *Record
	unlock func()
	// depositTx and deposit are the mined deposit of a deposit payload.
	depositTx common.Hash
	deposit   *big.Int
	mu        sync.Mutex
	done      bool
}

// Payer is the channel's payer.
func (c *Call) Payer() common.Address { return c.p.Config.Payer }

// ChannelID is the channel the call is paid from.
func (c *Call) ChannelID() [32]byte { return c.rec.State.ChannelID }

// Ceiling is the most Commit may charge: the requirement's amount.
func (c *Call) Ceiling() *big.Int { return new(big.Int).Set(c.req.Amount) }

// Begin starts a paid request paid by a deposit or voucher payload p
// against the requirement farebox recomputed for it (req.Amount is the
// ceiling, req.PayTo the receiver). sponsoring is the EIP-2612 permit of a
// Permit2 deposit whose payer never approved Permit2 (the
// eip2612GasSponsoring extension), usually nil. It serialises on the
// channel (busy: an *channel.Error with ReasonChannelBusy), verifies the
// payload locally against the channel's state (the chain's when the
// service has no record, mirrored again when stale), and for a deposit
// sends the deposit and waits until it is mined. Refusals are
// *channel.Error with the spec's reason; a cumulative mismatch is a
// *MismatchError carrying the corrective state.
func (s *Service) Begin(ctx context.Context, p *channel.Payload, req *x402.Requirement, sponsoring *eip712.GasSponsoring) (*Call, error) {
	if p.Type != channel.TypeDeposit && p.Type != channel.TypeVoucher {
		return nil, &channel.Error{Reason: channel.ReasonPayloadType, Message: "a paid request takes a deposit or voucher payload"}
	}
	if req.Network == nil || req.Network.ChainID == nil || req.Network.ChainID.Cmp(s.cfg.Contracts.ChainID) != 0 {
		return nil, &channel.Error{Reason: channel.ReasonNetworkMismatch, Message: "the requirement is for another chain"}
	}
	if req.PayTo != s.cfg.Receiver {
		// The claimer sweeps to Receiver only: a channel to another address would never be claimed.
		return nil, &channel.Error{Reason: channel.ReasonReceiverMismatch, Message: "the requirement's payTo is not this service's receiver"}
	}
	unlock, err := s.lock(ctx, p.Voucher.ChannelID)
	if err != nil {
		return nil, err
	}
	c, err := s.begin(ctx, p, req, sponsoring)
	if err != nil {
		unlock()
		return nil, err
	}
	c.unlock = unlock
	return c, nil
}

func (s *Service) begin(ctx context.Context, p *channel.Payload, req *x402.Requirement, sponsoring *eip712.GasSponsoring) (*Call, error) {
	rec, err := s.load(ctx, p)
	if err != nil {
		return nil, err
	}
	if rec.Quarantine != nil {
		return nil, quarantined(rec)
	}
	st := rec.State
	if p.Type == channel.TypeDeposit && !st.Fresh(s.cfg.Now(), s.cfg.MaxStaleness) {
		if st, err = s.mirror(ctx, st); err != nil {
			return nil, err
		}
	}
	verify := s.verifier.Verify
	err = verify(p, req, &s.terms, st)
	remote := p.Type == channel.TypeDeposit
	if errors.Is(err, channel.ErrNeedsChain) {
		// The signatures first: nothing about the channel is told to a
		// payload nobody signed.
		if err = s.verifyOnChain(ctx, p, req); err != nil {
			return nil, err
		}
		verify, remote = s.verifier.VerifySigned, false
		err = verify(p, req, &s.terms, st)
	}
	if errors.Is(err, channel.ErrStale) {
		if st, err = s.mirror(ctx, st); err != nil {
			return nil, err
		}
		err = verify(p, req, &s.terms, st)
	}
	var ce *channel.Error
	if errors.As(err, &ce) && ce.Reason == channel.ReasonCumulativeAmountMismatch {
		s.stats.mismatches.Add(1)
		return nil, &MismatchError{Refusal: ce, State: st}
	}
	if err != nil {
		return nil, err
	}
	if rv, ok := s.cfg.Backend.(RemoteVerifier); ok && remote {
		// The spec: a server that delegates always asks /verify about a deposit.
		if _, err := rv.VerifyRemote(ctx, p, channel.Accept(req, &s.terms, nil)); err != nil {
			return nil, err
		}
	}
	rec.State = st
	c := &Call{s: s, p: p, req: req, rec: rec}
	if p.Type == channel.TypeDeposit {
		if p.Voucher.MaxClaimable.Cmp(st.Balance) <= 0 {
			// The channel already covers the voucher: the deposit would
			// only cost gas. Served as a voucher; the payer's authorization
			// stays unused.
			s.stats.depositsSkipped.Add(1)
			return c, nil
		}
		if err := s.deposit(ctx, c, sponsoring); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// verifyOnChain finishes the verification of a payload whose signature
// the chain must check (an EIP-1271 payer): through the backend's /verify
// when it has one (the spec's rule for a delegating server), and always by
// eth_calls of the wallet asked as the contracts will ask it (a facilitator
// asks from no particular address, and a hostile wallet can tell).
func (s *Service) verifyOnChain(ctx context.Context, p *channel.Payload, req *x402.Requirement) error {
	if rv, ok := s.cfg.Backend.(RemoteVerifier); ok {
		if _, err := rv.VerifyRemote(ctx, p, channel.Accept(req, &s.terms, nil)); err != nil {
			return err
		}
	}
	return s.verifier.VerifyOnChain(ctx, s.cfg.Chain, p, req)
}

// deposit journals, simulates, sends and awaits a deposit, then mirrors
// the channel (the spec: the balance comes from the chain, not the payload).
func (s *Service) deposit(ctx context.Context, c *Call, sponsoring *eip712.GasSponsoring) error {
	p := c.p
	var collector []byte
	if sponsoring != nil && p.Deposit.Permit2 != nil {
		d := s.cfg.Contracts
		if r := sponsoring.Verify(c.req.Network, d.Permit2, p.Config.Payer, p.Deposit.Amount, s.cfg.Now()); r != "" {
			return &channel.Error{Reason: r, Message: "the EIP-2612 permit is invalid"}
		}
		collector = sponsoring.CollectorData()
	}
	rec := c.rec
	journal := func(tx common.Hash) error {
		next := rec.with(rec.State)
		next.Deposit = &PendingTx{Tx: tx, Amount: p.Deposit.Amount.String()}
		if err := s.save(ctx, rec, next); err != nil {
			return err
		}
		*rec = *next
		return nil
	}
	op := DepositOp{Payload: p, Requirement: c.req, Accepted: channel.Accept(c.req, &s.terms, nil), Collector: collector}
	tx, err := s.cfg.Backend.Deposit(ctx, op, journal)
	if err != nil {
		var ce *channel.Error
		if errors.As(err, &ce) {
			rec.Deposit = nil
			return err // refused before anything was sent
		}
		switch st, tx := stage(err); st {
		case StageSimulate:
			// A journaled intent that stayed in the store makes the next request read the chain.
			rec.Deposit = nil
			return &channel.Error{Reason: channel.ReasonDepositSimulationFailed, Message: "the deposit would revert: " + err.Error()}
		case StageSend:
			rec.Deposit = nil
			return &channel.Error{Reason: channel.ReasonDepositTransactionFailed, Message: "the deposit could not be sent"}
		case StageMined:
			s.settleDepositRecord(ctx, rec)
			return &channel.Error{Reason: channel.ReasonDepositTransactionFailed, Message: "deposit transaction " + tx.Hex() + " reverted"}
		default:
			// Outcome unknown: the journaled deposit makes the next request read the chain.
			return &channel.Error{Reason: channel.ReasonWaitForReceiptFailed, Message: "deposit " + tx.Hex() + " not mined in time"}
		}
	}
	s.settleDepositRecord(ctx, rec)
	if rec.Deposit != nil {
		return &channel.Error{Reason: channel.ReasonChannelStateReadFailed, Message: "the channel could not be read after the deposit"}
	}
	c.depositTx, c.deposit = tx, new(big.Int).Set(p.Deposit.Amount)
	s.stats.deposits.Add(1)
	return nil
}

// settleDepositRecord mirrors the chain after a deposit's outcome and
// clears the journaled intent; on failure the intent stays for the next request.
func (s *Service) settleDepositRecord(ctx context.Context, rec *Record) {
	st, err := s.mirror(ctx, rec.State)
	if err != nil {
		return
	}
	next := rec.with(st)
	if err := s.save(ctx, rec, next); err != nil {
		s.log.Warn("channel: recording a deposit's outcome", "channel", channelKey(st.ChannelID), "err", err)
		return
	}
	*rec = *next
}

// Commit charges the request that succeeded charge atomic units (0 <=
// charge <= Ceiling), stores the channel's next state durably, releases
// the channel and returns the spec's receipt (the PAYMENT-RESPONSE):
// voucher-only (transaction "", amount "") or the deposit's. An error
// means nothing was charged (a charge above the ceiling, a store failure);
// the channel is released either way.
func (c *Call) Commit(ctx context.Context, charge *big.Int) (*channel.Receipt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return nil, errors.New("channel service: the call is already finished")
	}
	c.done = true
	defer c.unlock()
	s := c.s
	next, err := c.rec.State.Commit(&c.p.Voucher, charge, c.req.Amount, s.cfg.Now())
	if err != nil {
		return nil, err
	}
	rec := c.rec.with(next)
	if err := s.save(ctx, c.rec, rec); err != nil {
		return nil, &channel.Error{Reason: channel.ReasonVerificationStateUnavailable, Message: "the charge could not be recorded"}
	}
	c.rec = rec
	if c.deposit != nil {
		return next.DepositReceipt(c.req.Network.CAIP2, c.depositTx.Hex(), c.deposit, charge), nil
	}
	s.stats.vouchers.Add(1)
	return next.VoucherReceipt(c.req.Network.CAIP2, charge), nil
}

// Abort ends a request that failed without charging it: the voucher is
// not recorded (the client may send it again), a mined deposit stays in
// the channel.
func (c *Call) Abort(context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	c.done = true
	c.s.stats.aborts.Add(1)
	c.unlock()
}
