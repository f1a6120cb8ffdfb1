package settle

import (
	"context"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// trackRemote follows, in the background, a transfer a remote settler (a
// facilitator) sent and left pending, until it is confirmed, failed or
// released.
func (e *Engine) trackRemote(f *flight) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return // the entry stays in the journal for the next Resume
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer e.beat(f)()
		e.followRemote(e.life, f)
	}()
}

// followRemote is follow for a transfer farebox did not send: it waits for
// the recorded transaction's receipt (the facilitator's hash, to the
// reader's depth) and reads the authorization's state on the token, but
// never sends anything itself. The transaction carried this
// authorization's transfer: confirmed. It did not (reverted, another
// transfer): confirmed naming the transaction that used the authorization
// when there is one (the signed transfer went to payTo), else, the
// authorization unused, nobody will send it again, so the entry ends as
// follow ends an unused one (failed with the payer's debt when the payer
// was answered, else released). No transaction mined yet, or the one
// mined taken away by a reorganisation: the authorization decides, once
// used (confirmed) or once expired unused (failed or released); until then
// the settlement is sent to the facilitator again every RemoteResend (a
// transaction it names is followed instead).
func (e *Engine) followRemote(ctx context.Context, f *flight) {
	r := e.cfg.Reader
	sent := time.Now()
	var lost common.Hash // a recorded transaction a reorganisation took away
	for ctx.Err() == nil {
		en := f.snapshot()
		waiting := en.Tx == (common.Hash{}) || en.Tx == lost // nothing to await
		failed := ""                                         // why the recorded transaction did not carry the transfer
		if !waiting {
			actx, cancel := context.WithTimeout(ctx, e.cfg.AwaitTimeout)
			err := e.awaitRemote(actx, en, f)
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
			case errors.Is(err, ErrTransferGone):
				lost, waiting, sent = en.Tx, true, time.Time{}
				e.cfg.Logger.Warn("settle: the facilitator's transaction left the chain before it was confirmed (reorg); asking the token",
					"entry", en.Name(), "tx", en.Tx.Hex())
			default:
				e.cfg.Logger.Warn("settle: the facilitator's transaction is not mined yet, asking the token", "entry", en.Name(),
					"tx", en.Tx.Hex(), "err", err)
			}
		}
		used, err := r.AuthorizationUsed(ctx, f.pay, f.req)
		if err != nil {
			e.cfg.Logger.Warn("settle: reading authorizationState", "entry", en.Name(), "err", err)
			if !e.pause(ctx) {
				return
			}
			continue
		}
		if used {
			// Used this deep: by the recorded transaction, or, when it did
			// not carry it, by the one the token's log names.
			if tx := e.transferOf(ctx, f, waiting || failed != ""); failed == "" || (tx != (common.Hash{}) && tx != en.Tx) {
				e.confirmIn(ctx, f, "authorization used on chain", tx)
				return
			}
		}
		if used || failed != "" || !e.cfg.Now().Before(en.Expires) {
			if !used && en.State != Broadcast {
				e.release(ctx, f)
				return
			}
			if failed == "" {
				failed = x402.ReasonValidBefore
			}
			e.fail(ctx, f, failed, en.State == Broadcast)
			return
		}
		if waiting && time.Since(sent) >= e.cfg.RemoteResend {
			sent = time.Now()
			e.resendRemote(ctx, f)
			continue
		}
		if waiting && !e.pause(ctx) {
			return // with a transaction, its await was the pause
		}
	}
}

// resendRemote sends f's settlement to the remote settler again: no
// transaction is known and the authorization is unused and valid, so the
// first request never reached it or it never sent one. A transaction it
// names is recorded and followed; a refusal changes nothing (the
// authorization's state still decides).
func (e *Engine) resendRemote(ctx context.Context, f *flight) {
	rc, err := e.cfg.Settler.Settle(ctx, f.pay, f.req)
	if rc == nil || rc.Transaction == "" {
		e.cfg.Logger.Warn("settle: sent a pending settlement to the facilitator again; no transaction yet", "entry", f.name(), "err", err)
		return
	}
	tx := common.HexToHash(rc.Transaction)
	if merr := f.move(ctx, Broadcast, func(n *Entry) {
		n.Tx = tx
		if n.Receipt != nil {
			n.Receipt.Transaction = tx.Hex() // a replay names what is followed
		}
	}); merr != nil {
		e.cfg.Logger.Error("settle: journaling a pending settlement's transaction", "entry", f.name(), "err", merr)
		return
	}
	e.cfg.Logger.Info("settle: a pending settlement sent to the facilitator again names its transaction", "entry", f.name(), "tx", tx.Hex())
}

// transferOf names the transaction that used f's authorization when the
// reader can find it and f recorded none (a facilitator that never
// answered), or any is true (the recorded one was taken away or did not
// carry it): the receipt then names what paid it.
func (e *Engine) transferOf(ctx context.Context, f *flight, any bool) common.Hash {
	tf, ok := e.cfg.Reader.(transferFinder)
	if !ok || (!any && f.tx() != (common.Hash{})) {
		return common.Hash{}
	}
	// The authorization is used, so its log exists: a node whose log
	// index lags its state finds it a moment later.
	for range 3 {
		tx, err := tf.TransferTx(ctx, f.pay, f.req)
		if err != nil {
			e.cfg.Logger.Warn("settle: finding the transaction of a used authorization", "entry", f.name(), "err", err)
		}
		if tx != (common.Hash{}) || !e.pause(ctx) {
			return tx
		}
	}
	return common.Hash{}
}

// awaitRemote waits for en's recorded transaction: as one its sender said
// was mined when en was answered with a success (followed to its depth),
// else as a pending one.
func (e *Engine) awaitRemote(ctx context.Context, en *Entry, f *flight) error {
	if d, ok := e.cfg.Reader.(deepReader); ok && en.Receipt != nil && en.Receipt.Success {
		return d.AwaitMined(ctx, en.Tx, f.pay, f.req)
	}
	return e.cfg.Reader.AwaitTransfer(ctx, en.Tx, f.pay, f.req)
}
