package evm

import (
	"context"
	"fmt"
	"strings"
	"sync"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// sendSimulated signs the simulated batch with txGas as its limit (or,
// for a transfer marked solo, eth_estimateGas's answer), lets every
// transfer's onSigned journal the hash, and sends it as tryAggregate(false,
// ...) so a transfer that turns bad meanwhile does not sink the others.
func (s *Settler) sendSimulated(ctx context.Context, ts []*transfer, at uint64, head *types.Header) {
	gas := s.txGas(ts)
	if len(ts) == 1 && ts[0].solo {
		to, data := txFor(ts)
		est, err := estimateAt(ctx, s.backend, ethereum.CallMsg{From: s.from, To: &to, Data: data}, at)
		switch {
		case err == nil:
			if len(ts[0].p.Signature) == 65 {
				s.learnTransferGas(ts[0].req.Network.Asset, est)
			}
			gas = est + est*s.GasMarginPercent/100
		case isRevert(err):
			ts[0].done <- outcome{err: refusal(ctx, s.backend, ts[0].p, ts[0].req, revertReason(err))}
			return
		default:
			failEach(ts, fmt.Errorf("evm: estimating gas: %w", err))
			return
		}
	}
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	fees, err := s.feesAt(ctx, head)
	if err != nil {
		failEach(ts, err)
		return
	}
	if err := s.syncNonce(ctx); err != nil {
		failEach(ts, err)
		return
	}
	tx, ts, err := s.signAndJournal(ts, gas, fees)
	if err != nil || len(ts) == 0 {
		failEach(ts, err)
		return
	}
	s.transmit(ctx, tx, ts, gas, fees, head)
}

// syncNonce reads the relayer's next nonce from the node when it is not
// known; caller holds sendMu.
func (s *Settler) syncNonce(ctx context.Context) error {
	if s.nonceOK {
		return nil
	}
	n, err := s.backend.PendingNonceAt(ctx, s.from)
	if err != nil {
		return fmt.Errorf("evm: reading relayer nonce: %w", err)
	}
	s.nonce, s.nonceOK = n, true
	return nil
}

// sendOverlapped signs ts as one transaction first and simulates it while
// the onSigned hooks journal its hash, so the write-ahead fsync and the
// eth_call overlap. Nothing is sent before both are done: transfers the
// simulation refuses (or sends back to go alone) are told they left the
// transaction (onSigned with the zero hash), and the others are signed
// again without them.
func (s *Settler) sendOverlapped(ctx context.Context, ts []*transfer, at uint64, head *types.Header) {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	fees, err := s.feesAt(ctx, head)
	if err == nil {
		err = s.syncNonce(ctx)
	}
	if err != nil {
		failEach(ts, err)
		return
	}
	gas := s.txGas(ts)
	to, data := txFor(ts)
	tx, err := s.sign(s.nonce, to, data, gas, fees)
	if err != nil {
		failEach(ts, err)
		return
	}
	var ok, refused, alone []*transfer
	var simErr error
	simulated := make(chan struct{})
	go func() {
		defer close(simulated)
		ok, refused, alone, simErr = s.simulateBatch(ctx, ts, at)
	}()
	hookErrs := s.journal(ts, tx.Hash())
	<-simulated
	journaled := make(map[*transfer]bool, len(ts))
	for i, t := range ts {
		if hookErrs[i] != nil {
			t.done <- outcome{err: hookErrs[i]}
		} else {
			journaled[t] = true
		}
	}
	if simErr != nil {
		s.unsign(ts, journaled)
		for _, t := range ts {
			if journaled[t] {
				t.done <- outcome{err: simErr}
			}
		}
		return
	}
	keep := ts[:0:0]
	for _, t := range ok {
		if journaled[t] {
			keep = append(keep, t)
		}
	}
	var leaving []*transfer
	for _, t := range append(append([]*transfer(nil), refused...), alone...) {
		if journaled[t] {
			leaving = append(leaving, t)
		}
	}
	s.unsign(leaving, journaled)
	var back, no []*transfer
	for _, t := range alone {
		if journaled[t] {
			back = append(back, t)
		}
	}
	for _, t := range refused {
		if journaled[t] {
			no = append(no, t)
		}
	}
	if len(back) > 0 {
		s.requeue(back)
	}
	s.refuse(no)
	if len(keep) == 0 {
		return
	}
	if len(keep) < len(ts) {
		// Some left: the others ride in a transaction without them.
		gas = s.txGas(keep)
		if tx, keep, err = s.signAndJournal(keep, gas, fees); err != nil || len(keep) == 0 {
			failEach(keep, err)
			return
		}
	}
	s.qmu.Lock()
	hook := s.onSimulated
	s.qmu.Unlock()
	if hook != nil {
		if err := hook(len(keep)); err != nil {
			failEach(keep, err)
			return
		}
	}
	s.transmit(ctx, tx, keep, gas, fees, head)
}

// journal calls every onSigned hook with hash at once (they are journal
// writes, which share commits) and returns their errors; a transfer whose
// caller left gets its context's error.
func (s *Settler) journal(ts []*transfer, hash common.Hash) []error {
	errs := make([]error, len(ts))
	var wg sync.WaitGroup
	for i, t := range ts {
		if err := t.ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		if t.onSigned != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := t.onSigned(hash); err != nil {
					errs[i] = fmt.Errorf("evm: recording settlement %s before sending: %w", hash.Hex(), err)
				}
			}()
		}
	}
	wg.Wait()
	return errs
}

// unsign tells the journaled transfers among ts that no transaction
// carries them any more (onSigned with the zero hash): nothing was sent.
func (s *Settler) unsign(ts []*transfer, journaled map[*transfer]bool) {
	var wg sync.WaitGroup
	for _, t := range ts {
		if t.onSigned != nil && journaled[t] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = t.onSigned(common.Hash{}) // a failure leaves a hash never sent, which the engine's follower resolves
			}()
		}
	}
	wg.Wait()
}

// transmit sends a signed, journaled transaction and starts following it;
// a node that refuses its nonce gets it once more, signed again with the
// nonce it expects. Caller holds sendMu.
func (s *Settler) transmit(ctx context.Context, tx *types.Transaction, ts []*transfer, gas uint64, f fees, head *types.Header) {
	for attempt := 0; ; attempt++ {
		err := s.backend.SendTransaction(ctx, tx)
		if err != nil && isRejection(err) {
			s.nonceOK = false // resync: the node may have seen, or refused, this nonce
			if attempt == 0 && strings.Contains(strings.ToLower(err.Error()), "nonce") {
				if err := s.syncNonce(ctx); err != nil {
					failEach(ts, err)
					return
				}
				var serr error
				if tx, ts, serr = s.signAndJournal(ts, gas, f); serr != nil || len(ts) == 0 {
					failEach(ts, serr)
					return
				}
				continue
			}
			failEach(ts, fmt.Errorf("evm: the node refused the settlement transaction: %w", err))
			return
		}
		rec := &sentTx{own: true, nonce: s.nonce, txs: []*types.Transaction{tx}, signedAt: head.Number.Uint64(),
			reqs: make(map[authKey]carried, len(ts)), done: make(chan struct{})}
		for i, t := range ts {
			rec.reqs[authKey{t.p.Authorization.From, t.p.Authorization.Nonce}] = carried{req: t.req, pos: i}
		}
		if len(ts) >= minLearnBatch && plainBatch(ts) {
			s.noteBatch(s.nonce, ts[0].req.Network.Asset, len(ts))
		}
		// Sent, or lost in transport with the outcome unknown: either way the
		// nonce is taken, and following the record re-sends it if needed.
		s.nonce++
		s.track(rec)
		s.batches.Add(1)
		s.transfers.Add(int64(len(ts)))
		for _, t := range ts {
			t.done <- outcome{hash: tx.Hash(), pending: err != nil, err: err}
		}
		return
	}
}

func failEach(ts []*transfer, err error) {
	for _, t := range ts {
		t.done <- outcome{err: err}
	}
}

// txFor is the transaction carrying ts: the transfer itself when alone,
// else Multicall3 tryAggregate(false, ...), where a failing call does not
// revert the others.
func txFor(ts []*transfer) (common.Address, []byte) {
	if len(ts) == 1 {
		return ts[0].req.Network.Asset, ts[0].data
	}
	return Multicall3, tryAggregateCalldata(false, calls(ts))
}

// signAndJournal signs the transaction for ts and calls every onSigned
// hook with its hash (concurrently: they are journal writes). Transfers
// whose caller left or whose hook failed are dropped and told so, and the
// rest signed again, until every hook accepted the hash.
func (s *Settler) signAndJournal(ts []*transfer, gas uint64, f fees) (*types.Transaction, []*transfer, error) {
	for len(ts) > 0 {
		to, data := txFor(ts)
		tx, err := s.sign(s.nonce, to, data, gas, f)
		if err != nil {
			return nil, ts, err
		}
		errs := s.journal(ts, tx.Hash())
		kept := ts[:0:0]
		for i, t := range ts {
			if errs[i] != nil {
				t.done <- outcome{err: errs[i]}
				continue
			}
			kept = append(kept, t)
		}
		if len(kept) == len(ts) {
			return tx, ts, nil
		}
		ts = kept
	}
	return nil, nil, nil
}

// plainBatch tells whether ts all move one token and are all signed by
// plain keys (65-byte signatures): their batch's gas tells what one such
// transfer costs.
func plainBatch(ts []*transfer) bool {
	for _, t := range ts {
		if len(t.p.Signature) != 65 || t.req.Network.Asset != ts[0].req.Network.Asset {
			return false
		}
	}
	return true
}
