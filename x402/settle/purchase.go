package settle

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// errFinished: Settle or Release was called on a purchase already ended.
var errFinished = errors.New("settle: the purchase was already settled or released")

// Purchase is one paid request's claim on its authorization. The caller
// fills the exported fields for Engine.Begin; the Purchase that Begin
// returns is owned by one request (not for concurrent use) and ends with
// exactly one Settle or Release.
type Purchase struct {
	Payment     *x402.Payment     // verified locally
	Requirement *x402.Requirement // recomputed for this request
	BodyHash    [32]byte          // sha256 of the request body
	PaymentID   string            // the payment-identifier id, "" when none
	Model       string            // the public model paid for, journaled for the books ("" unknown)
	// Charge, when set before Settle, is what is actually settled, at most
	// Requirement.Amount (upto: the use, while the authorization, the hold
	// and the entry's Amount are the ceiling). Zero settles nothing: no
	// transaction, a receipt with amount "0".
	Charge *big.Int

	engine *Engine
	entry  *Entry // as created or found by Begin
	name   string // entry's KeyName
	replay bool
	f      *flight
	ended  bool
	making bool // this request makes the purchase's answer (see Keep)
	// running: the model runs for this purchase (see Running).
	running bool
	// owed: Settle spent the authorization and recorded its payer's debt.
	owed bool
}

// ErrUnpaidRun wraps the chain's refusal of a transfer whose model had
// already started (Purchase.Running): the authorization is spent (Failed)
// and its payer in debt, so neither a replay nor a new authorization of
// that payer runs the model again until the debt is settled.
var ErrUnpaidRun = errors.New("settle: the transfer for a model run was refused")

// Running tells the purchase that the model runs for it from now on. A
// settlement the chain (or facilitator) then refuses for the payer's own
// reasons (its balance, its nonce, its signature) no longer gives the
// authorization back: the operator ran the model for it, so it is spent
// and the payer is in debt for the amount, as for a transfer that fails
// after its answer. A refusal of farebox's own making (a node that does
// not answer) still releases it.
func (p *Purchase) Running() { p.running = true }

// keyName is the entry's KeyName.
func (p *Purchase) keyName() string {
	if p.name == "" {
		p.name = p.entry.Name()
	}
	return p.name
}

// Replay reports whether this purchase was already paid by an earlier
// request with the same authorization and body: serve it again, charge
// nothing; Settle returns the stored receipt.
func (p *Purchase) Replay() bool { return p.replay }

// Entry is a copy of the purchase's journal entry as Begin saw it.
func (p *Purchase) Entry() *Entry { return p.entry.Clone() }

// Settle moves the money: the entry goes to Settling with the transaction
// hash before the transaction is sent, then to Broadcast with the receipt
// (confirm broadcast: returns here, confirmation is tracked in the
// background) or Confirmed (confirm mined). A refusal before anything was
// sent releases the purchase and returns the settler's receipt and error.
func (p *Purchase) Settle(ctx context.Context) (*x402.Receipt, error) {
	if p.replay {
		r := *p.entry.Receipt
		return &r, nil
	}
	if p.ended {
		return nil, errFinished
	}
	p.ended = true
	req, entry, err := p.charged()
	if err != nil {
		p.ended = false
		return nil, err
	}
	p.f = &flight{e: p.engine, entry: entry, key: p.name, pay: p.Payment, req: req}
	if p.Charge != nil && p.Charge.Sign() == 0 {
		return p.settleNothing(ctx)
	}
	if p.engine.chain == nil {
		return p.settlePlain(ctx)
	}
	return p.settleOnChain(ctx, req)
}

// charged is the requirement and entry of what Settle moves: the ceiling,
// or the Charge below it, journaled with the first move so that a Resume
// settles the charge, not the ceiling.
func (p *Purchase) charged() (*x402.Requirement, *Entry, error) {
	req, entry := p.Requirement, p.entry
	if p.Charge == nil {
		return req, entry, nil
	}
	if p.Charge.Sign() < 0 || p.Charge.Cmp(req.Amount) > 0 {
		return nil, nil, fmt.Errorf("settle: charge %s is outside 0..%s", p.Charge, req.Amount)
	}
	c := *req
	c.Amount = new(big.Int).Set(p.Charge)
	entry = entry.Clone()
	entry.Charge = c.Amount
	return &c, entry, nil
}

// settleOnChain broadcasts the transfer through the engine's chain settler,
// journaling the transaction hash before it is sent, then journals the
// broadcast and, unless the engine confirms at broadcast, awaits it mined.
func (p *Purchase) settleOnChain(ctx context.Context, req *x402.Requirement) (*x402.Receipt, error) {
	e, f := p.engine, p.f
	var signed, announced atomic.Bool
	rc, err := e.chain.Broadcast(ctx, p.Payment, req, func(tx common.Hash) error {
		if tx == (common.Hash{}) {
			// The transfer left the signed transaction before it was sent.
			if err := f.move(context.WithoutCancel(ctx), Reserved, func(n *Entry) { n.Tx = common.Hash{} }); err != nil {
				return err
			}
			signed.Store(false)
			return nil
		}
		if err := f.signed(context.WithoutCancel(ctx), tx); err != nil {
			return fmt.Errorf("settle: journaling the transaction: %w", err)
		}
		signed.Store(true)
		if !announced.Swap(true) {
			e.emitFlight(EventSettling, f, nil)
		}
		return nil
	})
	if err != nil {
		return p.broadcastFailed(ctx, rc, err, signed.Load())
	}
	p.journalBroadcast(context.WithoutCancel(ctx), rc)
	if e.cfg.Confirm == ConfirmBroadcast {
		e.track(f, true)
		return rc, nil
	}
	return p.awaitMined(ctx, req, rc)
}

// journalBroadcast records f's transfer as broadcast with its receipt rc
// (the settler's, or the pending one the client is answered with).
func (p *Purchase) journalBroadcast(ctx context.Context, rc *x402.Receipt) {
	e, f := p.engine, p.f
	accepted := func(n *Entry) {
		n.Receipt = rc
		if n.Tx == (common.Hash{}) && rc != nil && rc.Transaction != "" { // a settler that never called onSigned
			n.Tx = common.HexToHash(rc.Transaction)
		}
	}
	if merr := f.moveSoon(ctx, Broadcast, accepted); merr != nil {
		e.cfg.Logger.Error("settle: journaling a broadcast transfer", "entry", f.name(), "err", merr)
	}
	e.emitFlight(EventBroadcast, f, nil)
}

// broadcastFailed ends a purchase whose broadcast returned err: unsigned,
// nothing can have been sent (paid by another transaction, spent by a
// running call, or released); signed, only the chain can tell, so it is
// tracked.
func (p *Purchase) broadcastFailed(ctx context.Context, rc *x402.Receipt, err error, signed bool) (*x402.Receipt, error) {
	e, f := p.engine, p.f
	wctx := context.WithoutCancel(ctx)
	if signed && errors.Is(err, x402.ErrSettlementPending) {
		// The node may hold the transaction (its send timed out) and the
		// client is answered with the pending receipt: Broadcast, so the
		// entry outlives a lost send, never released while the signed
		// transaction can still land and never served to another body.
		p.journalBroadcast(wctx, rc)
		e.track(f, true)
		return rc, err
	}
	if signed {
		e.track(f, false)
		return rc, err
	}
	if prc, ok := e.paidElsewhere(wctx, f, reasonOf(err)); ok {
		return prc, nil
	}
	if p.spend(wctx, err) {
		return rc, fmt.Errorf("%w: %w", ErrUnpaidRun, err)
	}
	e.release(wctx, f)
	return rc, releasedErr(err)
}

// releasedErr is err for a purchase the engine released: an *x402.Error
// (err's, else unexpected_settle_error) with the cause kept as text only,
// so no caller reads a context deadline in it as a settlement that may
// still land: nothing will, and the authorization may pay again.
func releasedErr(err error) error {
	return fmt.Errorf("%w (released: %v)", x402.AsError(err, x402.ReasonUnexpectedSettleError), err)
}

// awaitMined waits up to AwaitTimeout for the broadcast transfer to be
// mined: confirmed; refused by the chain (nobody was answered yet, so the
// payer owes nothing, and an authorization still unused is released so
// that the client may pay with it again); or still pending, tracked in the
// background.
func (p *Purchase) awaitMined(ctx context.Context, req *x402.Requirement, rc *x402.Receipt) (*x402.Receipt, error) {
	e, f := p.engine, p.f
	actx, cancel := context.WithTimeout(ctx, e.cfg.AwaitTimeout)
	stop := e.beat(f)
	aerr := e.await(actx, f, f.tx())
	stop()
	cancel()
	var xe *x402.Error
	switch {
	case aerr == nil:
		e.confirm(context.WithoutCancel(ctx), f, "")
		return rc, nil
	case errors.As(aerr, &xe):
		wctx := context.WithoutCancel(ctx)
		if prc, ok := e.paidElsewhere(wctx, f, xe.Reason); ok {
			return prc, nil
		}
		failed := &x402.Receipt{Payer: rc.Payer, Network: rc.Network, ErrorReason: xe.Reason}
		if p.spend(wctx, xe) {
			return failed, fmt.Errorf("%w: %w", ErrUnpaidRun, xe)
		}
		if used, uerr := e.chain.AuthorizationUsed(wctx, p.Payment, req); uerr == nil && !used {
			e.release(wctx, f)
		} else {
			e.fail(wctx, f, xe.Reason, false)
		}
		return failed, xe
	default:
		e.track(f, true)
		pending := *rc
		pending.Success, pending.ErrorReason = false, x402.ReasonSettlementPending
		return &pending, fmt.Errorf("%w: %w", x402.ErrSettlementPending, aerr)
	}
}

// settleNothing ends a purchase whose charge is zero: nothing is sent (the
// authorization lapses unused), the entry is Confirmed with a receipt of
// amount "0", so a replay is answered with it.
func (p *Purchase) settleNothing(ctx context.Context) (*x402.Receipt, error) {
	e, f := p.engine, p.f
	en := f.snapshot()
	rc := &x402.Receipt{Success: true, Payer: en.Payer.Hex(), Network: en.Network, Amount: "0",
		Extra: x402.ReceiptExtra{ChargedAmount: "0"}}
	if err := f.move(context.WithoutCancel(ctx), Confirmed, func(n *Entry) { n.Receipt = rc }); err != nil {
		e.release(context.WithoutCancel(ctx), f)
		return nil, fmt.Errorf("settle: journal: %w", err)
	}
	en = f.snapshot()
	e.unhold(context.WithoutCancel(ctx), en, f.name())
	e.emitOwn(EventConfirmed, en, nil)
	r := *rc
	return &r, nil
}

// settlePlain settles through a Settler without a broadcast step (a remote
// facilitator): journaled before and after; an unknown outcome stays in
// Settling for an operator, since nothing here can ask the chain.
func (p *Purchase) settlePlain(ctx context.Context) (*x402.Receipt, error) {
	e, f := p.engine, p.f
	if err := f.move(ctx, Settling, nil); err != nil {
		e.release(context.WithoutCancel(ctx), f)
		return nil, fmt.Errorf("settle: journal: %w", err)
	}
	e.emitFlight(EventSettling, f, nil)
	rc, err := e.cfg.Settler.Settle(ctx, p.Payment, p.Requirement)
	ctx = context.WithoutCancel(ctx)
	var xe *x402.Error
	switch {
	case err == nil && rc != nil && rc.Success && e.followsDepth():
		p.deepen(ctx, rc)
	case err == nil && rc != nil && rc.Success:
		_ = f.move(ctx, Settling, func(n *Entry) { n.Receipt, n.Tx = rc, common.HexToHash(rc.Transaction) })
		e.confirm(ctx, f, "")
	case errors.As(err, &xe) && !errors.Is(err, x402.ErrSettlementPending):
		if p.spend(ctx, xe) {
			return rc, fmt.Errorf("%w: %w", ErrUnpaidRun, err)
		}
		e.release(ctx, f)
		return rc, releasedErr(err)
	default:
		p.pending(ctx, rc, err)
	}
	return rc, err
}

// followsDepth reports whether a remote settler's successful settlement
// is followed on chain to the confirmation depth before it is confirmed.
func (e *Engine) followsDepth() bool {
	d, ok := e.cfg.Reader.(deepReader)
	return ok && d.Deep()
}

// deepen follows a remote settler's successful settlement (rc, with the
// client answered by it) on chain until its transaction is the
// confirmation depth deep: a reorganisation that takes it away before
// then is noticed, and the settlement sent again (see followRemote). The
// entry is Broadcast meanwhile, so a restart or another replica resumes it.
func (p *Purchase) deepen(ctx context.Context, rc *x402.Receipt) {
	e, f := p.engine, p.f
	answered := *rc
	tx := common.HexToHash(rc.Transaction)
	if merr := f.move(ctx, Broadcast, func(n *Entry) { n.Tx, n.Receipt = tx, &answered }); merr != nil {
		e.cfg.Logger.Error("settle: journaling a settlement to follow to its depth", "entry", f.name(), "err", merr)
		return
	}
	e.emitFlight(EventBroadcast, f, nil)
	e.trackRemote(f)
}

// pending keeps a settlement whose outcome the settler left unknown (err):
// the authorization stays spent. With a Reader the entry, its transaction
// recorded, is followed on chain (Broadcast: the client is answered with
// the pending receipt, so a transfer that fails for good is the payer's
// debt); without one it stays in Settling for an operator.
func (p *Purchase) pending(ctx context.Context, rc *x402.Receipt, err error) {
	e, f := p.engine, p.f
	var tx common.Hash
	if rc != nil && rc.Transaction != "" {
		tx = common.HexToHash(rc.Transaction)
	}
	if e.cfg.Reader == nil {
		if tx != (common.Hash{}) {
			_ = f.move(ctx, Settling, func(n *Entry) { n.Tx = tx })
		}
		e.cfg.Logger.Warn("settle: the settler gave no outcome; the entry stays in settling until an operator looks (payments.chain.rpc_url lets farebox follow it)",
			"entry", f.name(), "tx", tx.Hex(), "err", err)
		e.emitFlight(EventUnresolved, f, err)
		return
	}
	answered := &x402.Receipt{Payer: p.Payment.Authorization.From.Hex(), Network: p.Requirement.Network.CAIP2}
	if rc != nil {
		c := *rc
		answered = &c
	}
	answered.Success, answered.ErrorReason = false, x402.ReasonSettlementPending
	if merr := f.move(ctx, Broadcast, func(n *Entry) { n.Tx, n.Receipt = tx, answered }); merr != nil {
		e.cfg.Logger.Error("settle: journaling a pending settlement", "entry", f.name(), "err", merr)
		return
	}
	e.cfg.Logger.Warn("settle: the settler left the settlement pending; following it on chain",
		"entry", f.name(), "tx", tx.Hex(), "err", err)
	e.emitFlight(EventBroadcast, f, nil)
	e.trackRemote(f)
}

// spend ends a running purchase whose transfer was refused for the payer's
// own reasons (err): Failed, with the payer in debt. False, and nothing
// done, when the model is not running for it or the refusal is farebox's.
func (p *Purchase) spend(ctx context.Context, err error) bool {
	if !p.running || !payersRefusal(err) {
		return false
	}
	p.engine.fail(ctx, p.f, reasonOf(err), true)
	p.owed = true
	return true
}

// payersRefusal reports a refusal the payer caused: the chain (or a
// facilitator) refused the transfer with a reason of the payment's own,
// not a transport failure, one of farebox's settings, or a transaction
// that failed without saying why (a facilitator's relayer racing its own
// nonces reports that as well as a payer would cause it: an honest payer
// is not put in debt on a guess).
func payersRefusal(err error) bool {
	if errors.Is(err, x402.ErrSettlementPending) {
		return false
	}
	switch r := reasonOf(err); r {
	case "", x402.ReasonUnexpectedSettleError, x402.ReasonUnexpectedVerifyError, x402.ReasonSettlementPending,
		x402.ReasonInvalidNetwork, x402.ReasonInvalidPayload, x402.ReasonInvalidTxState:
		return false
	default:
		return !strings.HasSuffix(r, "_transaction_failed")
	}
}

// Release ends a purchase that served nothing: the entry is deleted and the
// hold released, so the client may pay again with the same authorization.
// Releasing a replay or an ended purchase does nothing.
func (p *Purchase) Release(ctx context.Context) error {
	if p.replay || p.ended {
		p.keepNothing()
		return nil
	}
	p.ended = true
	p.f = &flight{e: p.engine, entry: p.entry, key: p.name, pay: p.Payment, req: p.Requirement}
	err := p.engine.release(context.WithoutCancel(ctx), p.f)
	p.keepNothing()
	return err
}

// Owe records that this purchase's payer was served (a stream delivered)
// although its settlement failed before anything was sent: the payer is
// in debt for the amount, as when a broadcast transfer fails later, and
// refused until the debt lapses or is forgiven. The authorization was
// already released by the failed Settle, unless Settle spent it itself (a
// running purchase refused for the payer's reasons): then the debt is
// recorded and Owe does nothing more.
func (p *Purchase) Owe(ctx context.Context, reason string) error {
	if p.owed {
		return nil // Settle recorded it (a refusal while the model ran)
	}
	e, en := p.engine, p.entry
	now := e.cfg.Now()
	item := DebtItem{Entry: p.keyName(), Amount: en.Transfers(), Reason: reason, At: now, Model: en.Model, Supplier: en.Supplier}
	if e.cfg.DebtTTL > 0 {
		item.Until = now.Add(e.cfg.DebtTTL)
	}
	if err := e.cfg.Journal.AddDebt(context.WithoutCancel(ctx), en.Payer, item); err != nil {
		return fmt.Errorf("settle: recording a debt: %w", err)
	}
	e.cfg.Logger.Error("settle: a served answer could not be settled: the payer is in debt", "payer", en.Payer.Hex(),
		"entry", p.keyName(), "amount", en.Amount.String(), "reason", reason)
	e.emit(EventFailed, en.Clone(), &x402.Error{Reason: reason, Message: "the served answer could not be settled"})
	return nil
}
