package settle

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// track follows f's transfer in the background until it is confirmed,
// failed or released; resubmit allows sending the authorization again when
// it is unused and its transaction is nowhere.
func (e *Engine) track(f *flight, resubmit bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return // the entry stays in the journal for the next Resume
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer e.beat(f)()
		e.follow(e.life, f, resubmit)
	}()
}

// follow is the confirmation loop: wait for the recorded transaction;
// when it did not carry the transfer (reverted, dropped, not mined in
// time), ask the token whether the authorization was used. Used: confirmed
// (or failed, when this transaction's transfer failed: the authorization
// went elsewhere or was canceled). Unused and expired, or resubmitted
// MaxResubmits times: failed when the payer was answered, else released.
// Unused and valid: sent again, or released when resubmit is false.
func (e *Engine) follow(ctx context.Context, f *flight, resubmit bool) {
	if f.resumed && e.usedOnResume(ctx, f) {
		return
	}
	attempts := 0
	stranded := f.resumed && e.stranded(ctx, f) // not awaited: sent again at once
	for ctx.Err() == nil {
		en := f.snapshot()
		failed := "" // why the recorded transaction did not carry the transfer
		if en.Tx != (common.Hash{}) && !stranded {
			actx, cancel := context.WithTimeout(ctx, e.cfg.AwaitTimeout)
			err := e.await(actx, f, en.Tx)
			cancel()
			var xe *x402.Error
			switch {
			case err == nil:
				e.confirm(ctx, f, "")
				return
			case errors.As(err, &xe):
				failed = xe.Reason
			case ctx.Err() != nil:
				return
			default:
				e.cfg.Logger.Warn("settle: transaction not mined in time, asking the token", "entry", en.Name(),
					"tx", en.Tx.Hex(), "err", err)
			}
		}
		used, err := e.chain.AuthorizationUsed(ctx, f.pay, f.req)
		if err != nil {
			e.cfg.Logger.Warn("settle: reading authorizationState", "entry", en.Name(), "err", err)
			if !e.pause(ctx) {
				return
			}
			continue
		}
		expired := !e.cfg.Now().Before(en.Expires)
		switch {
		case used && failed == "":
			e.confirm(ctx, f, "authorization used on chain")
			return
		case used:
			if _, ok := e.paidElsewhere(ctx, f, failed); ok {
				return
			}
			e.fail(ctx, f, failed, en.State == Broadcast)
			return
		case expired || !resubmit || attempts >= e.cfg.MaxResubmits:
			if en.State != Broadcast {
				e.release(ctx, f)
				return
			}
			if failed == "" {
				failed = x402.ReasonValidBefore
				if !expired {
					failed = x402.ReasonUnexpectedSettleError
				}
			}
			e.fail(ctx, f, failed, true)
			return
		}
		stranded = false
		more, sent := e.resubmit(ctx, f)
		if !more {
			return
		}
		if sent {
			attempts++
		}
	}
}

// await is the chain's Await of f's transaction tx, counting in f's gas
// the fee share a FeeAwaiter reports.
func (e *Engine) await(ctx context.Context, f *flight, tx common.Hash) error {
	fa, ok := e.chain.(FeeAwaiter)
	if !ok {
		return e.chain.Await(ctx, tx, f.pay)
	}
	fee, err := fa.AwaitFee(ctx, tx, f.pay)
	if fee != nil && fee.Sign() > 0 {
		f.addGas(tx, fee)
	}
	return err
}

// resubmit sends an unused, valid authorization again; more is false when
// that settled the entry's fate (refused for good) or the engine is
// stopping, sent whether a transaction carried it. A refusal because the
// authorization is used is not an attempt: with a confirmation depth the
// token reads unused that deep while a transaction above has used it, and
// only more blocks tell.
func (e *Engine) resubmit(ctx context.Context, f *flight) (more, sent bool) {
	var signed atomic.Bool
	_, err := e.chain.Broadcast(ctx, f.pay, f.req, func(tx common.Hash) error {
		if tx == (common.Hash{}) {
			signed.Store(false) // it left the transaction before it was sent
			return nil
		}
		if err := f.signed(ctx, tx); err != nil {
			return err
		}
		signed.Store(true)
		return nil
	})
	en := f.snapshot()
	e.emit(EventResubmitted, en, err)
	if err == nil || signed.Load() {
		return true, true
	}
	var xe *x402.Error
	if errors.As(err, &xe) && xe.Reason != x402.ReasonNonceAlreadyUsed {
		if en.State == Broadcast {
			e.fail(ctx, f, xe.Reason, true)
		} else {
			e.release(ctx, f)
		}
		return false, true
	}
	// Used in the meantime (the old transaction landed, maybe not deep
	// yet) or a transport failure: look again after a pause.
	return e.pause(ctx), xe == nil
}

func (e *Engine) pause(ctx context.Context) bool {
	t := time.NewTimer(e.cfg.RetryInterval)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// transferFinder names the transaction that carried out an
// authorization's transfer (*evm.Settler: its AuthorizationUsed log).
type transferFinder interface {
	TransferTx(ctx context.Context, p *x402.Payment, req *x402.Requirement) (common.Hash, error)
}

// usedOnResume confirms a resumed entry whose authorization is already used
// on chain, naming the transaction that used it when the settler can find
// it: the one recorded before the restart may have been replaced by a fee
// bump, and waiting for it would last the whole AwaitTimeout.
func (e *Engine) usedOnResume(ctx context.Context, f *flight) bool {
	used, err := e.chain.AuthorizationUsed(ctx, f.pay, f.req)
	if err != nil || !used {
		return false
	}
	var tx common.Hash
	if tf, ok := e.chain.(transferFinder); ok {
		if tx, err = tf.TransferTx(ctx, f.pay, f.req); err != nil {
			e.cfg.Logger.Warn("settle: finding the transaction of a used authorization", "entry", f.name(), "err", err)
		}
	}
	e.confirmIn(ctx, f, "authorization used on chain", tx)
	return true
}

// confirm records a successful transfer and releases its hold.
func (e *Engine) confirm(ctx context.Context, f *flight, note string) {
	e.confirmIn(ctx, f, note, common.Hash{})
}

// confirmIn is confirm naming tx (when not zero) as the transaction that
// carried the transfer.
func (e *Engine) confirmIn(ctx context.Context, f *flight, note string, tx common.Hash) {
	err := f.moveSoon(ctx, Confirmed, func(n *Entry) {
		if tx != (common.Hash{}) {
			n.Tx = tx
			if n.Receipt != nil {
				n.Receipt.Transaction = tx.Hex()
			}
		}
		if n.Receipt == nil {
			n.Receipt = &x402.Receipt{Success: true, Payer: n.Payer.Hex(), Transaction: n.Tx.Hex(), Network: n.Network}
		}
		if !n.Receipt.Success {
			// The receipt a pending settlement was answered with: a replay
			// now reads the outcome.
			n.Receipt.Success, n.Receipt.ErrorReason = true, ""
			if n.Receipt.Transaction == "" && n.Tx != (common.Hash{}) {
				n.Receipt.Transaction = n.Tx.Hex()
			}
		}
		n.Reason = note
	})
	if err != nil {
		e.cfg.Logger.Error("settle: journaling a confirmed transfer", "entry", f.name(), "err", err)
		return
	}
	en := f.snapshot()
	e.unhold(ctx, en, f.name())
	e.emitEnd(EventConfirmed, f, en, nil)
}

// fail records a transfer that can no longer happen; when the payer was
// answered with a receipt, or the model ran for it, it is now in debt
// (see the package doc).
func (e *Engine) fail(ctx context.Context, f *flight, reason string, debt bool) {
	if err := f.move(ctx, Failed, func(n *Entry) { n.Reason = reason }); err != nil {
		e.cfg.Logger.Error("settle: journaling a failed transfer", "entry", f.name(), "err", err)
		return
	}
	en := f.snapshot()
	if debt {
		now := e.cfg.Now()
		item := DebtItem{Entry: en.Name(), Amount: en.Transfers(), Reason: reason, At: now, Model: en.Model, Supplier: en.Supplier}
		if e.cfg.DebtTTL > 0 {
			item.Until = now.Add(e.cfg.DebtTTL)
		}
		if err := e.cfg.Journal.AddDebt(ctx, en.Payer, item); err != nil {
			e.cfg.Logger.Error("settle: recording a debt", "payer", en.Payer.Hex(), "err", err)
		}
	}
	e.unhold(ctx, en, f.name())
	e.cfg.Logger.Error("settle: a transfer failed for good", "payer", en.Payer.Hex(),
		"entry", en.Name(), "tx", en.Tx.Hex(), "amount", en.Amount.String(), "reason", reason, "in_debt", debt)
	e.emitEnd(EventFailed, f, en, &x402.Error{Reason: reason, Message: "the transfer failed on chain"})
}

// release deletes an entry that moved no money and releases its hold.
func (e *Engine) release(ctx context.Context, f *flight) error {
	en := f.snapshot()
	if err := f.drop(ctx); err != nil {
		if !errors.Is(err, ErrStateChanged) {
			e.cfg.Logger.Error("settle: releasing an entry", "entry", en.Name(), "err", err)
		}
		return err
	}
	e.unhold(ctx, en, f.name())
	e.emitEnd(EventReleased, f, en, nil)
	return nil
}

func (e *Engine) unhold(ctx context.Context, en *Entry, name string) {
	if e.bals != nil {
		e.bals.released(accountOf(en))
	}
	if err := e.cfg.Holds.Release(ctx, accountOf(en), name); err != nil {
		e.cfg.Logger.Warn("settle: releasing a hold (it lapses on its own)", "entry", name, "err", err)
	}
}

// Resume takes over, once on start, what a previous run left in flight:
// Reserved entries are released (nothing was sent; the client's retry pays
// again with the same authorization), Settling and Broadcast ones are held
// again and followed on chain in the background (confirmed, sent again,
// failed or released). It takes this instance's entries (all of them when
// Config.Instance is "") and those idle for StaleAfter, and returns how
// many it took over; Close stops the followers. Call it before serving.
func (e *Engine) Resume(ctx context.Context) (int, error) {
	if err := e.checkLoss(ctx); err != nil {
		return 0, err
	}
	return e.takeOver(ctx, e.owns, false)
}

// Adopt takes over the entries of other instances idle for StaleAfter (a
// replica that died and does not come back) whose beat lapsed, on a
// journal with Liveness; replicas sharing a journal call it periodically. Unlike Resume it never touches this instance's own
// entries, which may be in flight right now.
func (e *Engine) Adopt(ctx context.Context) (int, error) {
	claimer, _ := e.cfg.Journal.(Claimer)
	owners := &aliveOwners{e: e, l: e.liveness(), known: map[string]bool{}}
	return e.takeOver(ctx, func(en *Entry) bool {
		if e.cfg.Instance == "" || en.Owner == e.cfg.Instance || e.cfg.Now().Sub(en.Updated) <= e.cfg.StaleAfter ||
			owners.alive(ctx, en.Owner) {
			return false
		}
		if claimer == nil {
			return true
		}
		// The claim outlives a follower's wait for its transaction, so
		// neither another survivor nor this one's next Adopt takes the
		// entry again while it is followed; if this replica dies too, the
		// claim lapses and another takes over.
		mine, err := claimer.Claim(ctx, en.Name(), e.cfg.Instance, 2*e.cfg.StaleAfter+e.cfg.AwaitTimeout)
		if err != nil {
			e.cfg.Logger.Warn("settle: claiming an orphaned entry", "entry", en.Name(), "err", err)
		}
		return mine
	}, true)
}

// takeOver resumes the unfinished entries mine accepts; adopted, it
// reports each with EventAdopted first.
func (e *Engine) takeOver(ctx context.Context, mine func(*Entry) bool, adopted bool) (int, error) {
	list, err := e.cfg.Journal.Unfinished(ctx)
	if err != nil {
		return 0, fmt.Errorf("settle: listing unfinished entries: %w", err)
	}
	n := 0
	for _, en := range list {
		if !mine(en) {
			continue
		}
		if adopted {
			e.emit(EventAdopted, en, nil)
		}
		f := &flight{e: e, entry: en, resumed: true}
		if en.State == Reserved {
			if e.release(ctx, f) == nil {
				n++
			}
			continue
		}
		if e.chain == nil && e.cfg.Reader == nil {
			e.cfg.Logger.Warn("settle: an entry was left in flight and the settler cannot look at the chain",
				"entry", en.Name(), "state", en.State, "tx", en.Tx.Hex())
			e.emit(EventUnresolved, en, nil)
			continue
		}
		if f.pay, f.req, err = e.rebuild(en); err != nil {
			e.cfg.Logger.Error("settle: cannot resume an entry", "entry", en.Name(), "err", err)
			e.emit(EventUnresolved, en, err)
			continue
		}
		n++
		e.rehold(ctx, en)
		if e.chain == nil {
			e.trackRemote(f)
			continue
		}
		e.track(f, true)
	}
	return n, nil
}

// rehold counts a resumed transfer against its payer again (an in-memory
// hold died with the process; a Redis one is still there and this is a
// no-op), whatever the balance: the money is already on its way.
func (e *Engine) rehold(ctx context.Context, en *Entry) {
	if e.cfg.Balances == nil {
		return
	}
	acct := accountOf(en)
	held, err := e.cfg.Holds.Held(ctx, acct)
	if err == nil {
		expires := e.cfg.Now().Add(e.cfg.HoldTTL)
		if en.Expires.Before(expires) {
			expires = en.Expires
		}
		err = e.cfg.Holds.Hold(ctx, acct, en.Name(), en.Amount, new(big.Int).Add(held, en.Amount), expires)
	}
	if err != nil {
		e.cfg.Logger.Warn("settle: holding a resumed transfer", "entry", en.Name(), "err", err)
	}
}

// owns reports whether Resume should take en over: the journal is this
// engine's alone, en is this instance's, or nobody touched it for long.
func (e *Engine) owns(en *Entry) bool {
	return e.cfg.Instance == "" || en.Owner == e.cfg.Instance || e.cfg.Now().Sub(en.Updated) > e.cfg.StaleAfter
}

// rebuild decodes an entry's payment and requirement again.
func (e *Engine) rebuild(en *Entry) (*x402.Payment, *x402.Requirement, error) {
	if e.cfg.Networks == nil {
		return nil, nil, errors.New("settle: Resume needs Config.Networks")
	}
	n := e.cfg.Networks.ByCAIP2(en.Network)
	if n == nil || n.Asset != en.Asset || n.ChainID.String() != en.ChainID {
		return nil, nil, fmt.Errorf("settle: network %s (asset %s) is not configured", en.Network, en.Asset.Hex())
	}
	pay, err := x402.DecodePayment(base64.StdEncoding.EncodeToString(en.Payment), en.Version)
	if err != nil {
		return nil, nil, err
	}
	if pay.Scheme != x402.SchemeExact && pay.Version == 2 {
		if e.cfg.Complete == nil {
			return nil, nil, fmt.Errorf("settle: no decoder for a journaled %s payment", pay.Scheme)
		}
		if err := e.cfg.Complete(pay); err != nil {
			return nil, nil, err
		}
	}
	if pay.Key(n) != en.Key() {
		return nil, nil, errors.New("settle: the journaled payment does not match its key")
	}
	req := &x402.Requirement{Scheme: pay.Scheme, Network: n, Amount: en.Amount, PayTo: en.PayTo}
	if en.Charge != nil {
		req.Amount = en.Charge
	}
	return pay, req, nil
}

// paidByFinder names a transaction, whoever sent it, that used an
// authorization and paid its requirement in full (*evm.Settler), with the
// time of its block.
type paidByFinder interface {
	PaidBy(ctx context.Context, p *x402.Payment, req *x402.Requirement) (common.Hash, time.Time, error)
}

// paidElsewhere confirms f when the chain refused its transfer because the
// authorization was already used, by a transaction farebox did not send
// that paid the requirement in full (a front-run: anyone may submit a
// signed transferWithAuthorization): the money reached payTo, so the
// purchase is paid and the payer owes nothing. It returns the client's
// receipt, naming that transaction. A transaction mined before the
// purchase began paid for something else (an authorization replayed to a
// process that lost its journal), and does not count.
func (e *Engine) paidElsewhere(ctx context.Context, f *flight, reason string) (*x402.Receipt, bool) {
	pf, ok := e.chain.(paidByFinder)
	if !ok || reason != x402.ReasonNonceAlreadyUsed {
		return nil, false
	}
	tx, at, err := pf.PaidBy(ctx, f.pay, f.req)
	if err != nil {
		e.cfg.Logger.Warn("settle: looking for the transaction that used an authorization", "entry", f.name(), "err", err)
		return nil, false
	}
	// Block times are whole seconds: a block of the purchase's own second
	// may carry a time just before it.
	if tx == (common.Hash{}) {
		return nil, false
	}
	if at.Add(time.Second).Before(f.snapshot().Created) {
		e.cfg.Logger.Warn("settle: the authorization was used before the purchase began", "entry", f.name(), "tx", tx.Hex(), "block_time", at)
		return nil, false
	}
	e.confirmIn(ctx, f, "paid by a transaction another sender submitted", tx)
	en := f.snapshot()
	if en.State != Confirmed || en.Receipt == nil {
		return nil, false
	}
	rc := *en.Receipt
	rc.Success, rc.ErrorReason = true, ""
	return &rc, true
}

// reasonOf is the x402 reason an error carries, "" when none.
func reasonOf(err error) string {
	var xe *x402.Error
	if errors.As(err, &xe) {
		return xe.Reason
	}
	return ""
}
