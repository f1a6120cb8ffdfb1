package evm

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/farebox/farebox/x402"
)

// transfer is one Broadcast waiting for a transaction to carry it.
type transfer struct {
	ctx      context.Context
	p        *x402.Payment
	req      *x402.Requirement
	data     []byte // transferWithAuthorization calldata
	onSigned func(common.Hash) error
	// notBefore holds back a transfer whose validAfter is the current second.
	notBefore time.Time
	solo      bool   // send alone: it failed gas estimation inside a batch
	revert    string // why its simulation failed
	taken     bool   // guarded by Settler.qmu: the dispatcher owns it
	done      chan outcome
}

// outcome is what the dispatcher tells a Broadcast call.
type outcome struct {
	hash    common.Hash
	err     error
	pending bool // handed to the node, acceptance unknown
}

// expiryMargin keeps transfers that would expire before they are likely
// mined out of transactions: they would fail on chain and cost gas.
const expiryMargin = 6

// enqueue queues t and makes sure the dispatcher runs.
func (s *Settler) enqueue(t *transfer) {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	s.queue = append(s.queue, t)
	if s.onQueue != nil {
		s.onQueue(len(s.queue))
	}
	if !s.dispatching {
		s.dispatching = true
		go s.dispatch()
		return
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// withdraw takes t out of the queue when the dispatcher has not taken it.
func (s *Settler) withdraw(t *transfer) bool {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	if t.taken {
		return false
	}
	for i, q := range s.queue {
		if q == t {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			break
		}
	}
	return true
}

// dispatch sends the queue as batches, one transaction after another
// without waiting for any to be mined (nonces are pipelined), until the
// queue is empty. Only this goroutine assigns relayer nonces.
func (s *Settler) dispatch() {
	for {
		batch, wait := s.take()
		if batch == nil && wait == 0 {
			return
		}
		if batch == nil {
			select {
			case <-time.After(wait):
			case <-s.wake:
			}
			continue
		}
		s.sendBatch(batch)
	}
}

// take removes up to the batch limit of ready transfers from the queue.
// With none ready it returns how long until one is (0: queue empty, and
// the dispatcher stops).
func (s *Settler) take() ([]*transfer, time.Duration) {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	if len(s.queue) == 0 {
		s.dispatching = false
		return nil, 0
	}
	limit := s.batchLimit()
	now := time.Now()
	var batch, rest []*transfer
	wait := time.Hour
	for _, t := range s.queue {
		switch {
		case t.ctx.Err() != nil:
			t.taken = true
			t.done <- outcome{err: t.ctx.Err()}
		case now.Before(t.notBefore):
			wait = min(wait, t.notBefore.Sub(now))
			rest = append(rest, t)
		case len(batch) < limit && (!t.solo || len(batch) == 0) && (len(batch) == 0 || !batch[0].solo):
			t.taken = true
			batch = append(batch, t)
		default:
			rest = append(rest, t)
		}
	}
	s.queue = rest
	if batch == nil && len(rest) == 0 {
		s.dispatching = false
		return nil, 0
	}
	return batch, wait
}

// batchLimit bounds a batch by MaxBatch and by MaxBatchGas over the gas a
// transfer took in the last estimate (plus the margin).
func (s *Settler) batchLimit() int {
	if s.multicall.Load() != 1 {
		return 1 // no Multicall3 on this chain: one transfer per transaction
	}
	limit := s.MaxBatch
	if per := s.gasPerTransfer.Load(); per > 0 {
		limit = min(limit, int(s.MaxBatchGas*100/(per*(100+s.GasMarginPercent))))
	}
	return max(limit, 1)
}

// requeue puts transfers back at the front of the queue.
func (s *Settler) requeue(ts []*transfer) {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	for _, t := range ts {
		t.taken = false
	}
	s.queue = append(append([]*transfer(nil), ts...), s.queue...)
}

// sendBatch simulates the batch against the pending block at the earliest
// timestamp it can land at, refuses the transfers that would fail (they are
// never sent, so they cost no gas), and sends the others in one transaction.
func (s *Settler) sendBatch(batch []*transfer) {
	ctx, cancel := context.WithTimeout(context.Background(), s.SendTimeout)
	defer cancel()
	if s.multicall.Load() == 0 {
		s.multicallReady(ctx) // NewSettler could not tell: batches start once it can
	}
	failAll := func(ts []*transfer, err error) {
		for _, t := range ts {
			t.done <- outcome{err: err}
		}
	}
	head, err := s.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		failAll(batch, fmt.Errorf("evm: reading latest header: %w", err))
		return
	}
	at := earliestLanding(head.Time)
	var ready, later []*transfer
	for _, t := range batch {
		a := &t.p.Authorization
		switch {
		case a.ValidAfter.Cmp(new(big.Int).SetUint64(at)) >= 0 && a.ValidAfter.Cmp(new(big.Int).SetUint64(at+expiryMargin)) < 0:
			// Valid from this very second: a block stamped with it would refuse it.
			t.notBefore = time.Unix(a.ValidAfter.Int64()+1, 0)
			later = append(later, t)
		case a.ValidBefore.Cmp(new(big.Int).SetUint64(at+expiryMargin)) < 0:
			t.done <- outcome{err: &x402.Error{Reason: x402.ReasonValidBefore,
				Message: "the authorization expires before a block can carry it"}}
		default:
			ready = append(ready, t)
		}
	}
	if len(later) > 0 {
		s.requeue(later)
	}
	if len(ready) == 0 {
		return
	}
	ok, refused, err := s.simulateBatch(ctx, ready, at)
	if err != nil {
		failAll(ready, err)
		return
	}
	if len(ok) > 0 {
		s.sendSimulated(ctx, ok, at, head)
	}
	for _, t := range refused {
		t.done <- outcome{err: refusal(ctx, s.backend, t.p, t.req, t.revert)}
	}
}

// simulateBatch runs the transfers in order (one eth_call of Multicall3
// tryAggregate(false, ...) for several) and splits them into those that
// would succeed and those that would not, with the revert strings.
func (s *Settler) simulateBatch(ctx context.Context, ts []*transfer, at uint64) (ok, refused []*transfer, err error) {
	if len(ts) == 1 {
		for _, t := range ts {
			asset := t.req.Network.Asset
			_, err := callPending(ctx, s.backend, ethereum.CallMsg{From: s.from, To: &asset, Data: t.data}, at)
			switch {
			case err == nil:
				ok = append(ok, t)
			case isRevert(err):
				t.revert = revertReason(err)
				refused = append(refused, t)
			default:
				return nil, nil, fmt.Errorf("evm: simulating transferWithAuthorization: %w", err)
			}
		}
		return ok, refused, nil
	}
	out, err := callPending(ctx, s.backend, ethereum.CallMsg{From: s.from, To: &Multicall3,
		Data: tryAggregateCalldata(false, calls(ts))}, at)
	if err != nil {
		return nil, nil, fmt.Errorf("evm: simulating a batch of %d transfers: %w", len(ts), err)
	}
	res, err := unpackTryAggregate(out)
	if err != nil || len(res) != len(ts) {
		return nil, nil, fmt.Errorf("evm: simulating a batch of %d transfers: %d results, %v", len(ts), len(res), err)
	}
	for i, t := range ts {
		if res[i].Success {
			ok = append(ok, t)
			continue
		}
		t.revert = "reverted"
		if reason, err := abi.UnpackRevert(res[i].ReturnData); err == nil {
			t.revert = reason
		}
		refused = append(refused, t)
	}
	return ok, refused, nil
}

func calls(ts []*transfer) []call3 {
	out := make([]call3, len(ts))
	for i, t := range ts {
		out[i] = call3{Target: t.req.Network.Asset, CallData: t.data}
	}
	return out
}

// sendSimulated prices the batch with eth_estimateGas of
// tryAggregate(true, ...) (so the estimate covers every inner call, which
// tryAggregate(false) would let starve), splits it when it exceeds
// MaxBatchGas, signs it, lets every transfer's onSigned journal the hash,
// and sends it as tryAggregate(false, ...) so a transfer that turns bad
// meanwhile does not sink the others.
func (s *Settler) sendSimulated(ctx context.Context, ts []*transfer, at uint64, head *types.Header) {
	to, data := txFor(ts, true)
	gas, err := estimatePending(ctx, s.backend, ethereum.CallMsg{From: s.from, To: &to, Data: data}, at)
	if err != nil {
		switch {
		case isRevert(err) && len(ts) > 1:
			for _, t := range ts {
				t.solo = true
			}
			s.requeue(ts)
		case isRevert(err):
			ts[0].done <- outcome{err: refusal(ctx, s.backend, ts[0].p, ts[0].req, revertReason(err))}
		default:
			failEach(ts, fmt.Errorf("evm: estimating gas: %w", err))
		}
		return
	}
	if len(ts) > 1 {
		s.gasPerTransfer.Store(gas / uint64(len(ts)))
	}
	gas += gas * s.GasMarginPercent / 100
	if gas > s.MaxBatchGas && len(ts) > 1 {
		s.requeue(ts[len(ts)/2:])
		s.sendSimulated(ctx, ts[:len(ts)/2], at, head)
		return
	}
	fees, err := s.feesAt(ctx, head)
	if err != nil {
		failEach(ts, err)
		return
	}
	for attempt := 0; ; attempt++ {
		if !s.nonceOK {
			n, err := s.backend.PendingNonceAt(ctx, s.from)
			if err != nil {
				failEach(ts, fmt.Errorf("evm: reading relayer nonce: %w", err))
				return
			}
			s.nonce, s.nonceOK = n, true
		}
		var tx *types.Transaction
		if tx, ts, err = s.signAndJournal(ts, gas, fees); err != nil || len(ts) == 0 {
			failEach(ts, err)
			return
		}
		err = s.backend.SendTransaction(ctx, tx)
		if err != nil && isRejection(err) {
			s.nonceOK = false // resync: the node may have seen, or refused, this nonce
			if attempt == 0 && strings.Contains(strings.ToLower(err.Error()), "nonce") {
				continue
			}
			failEach(ts, fmt.Errorf("evm: the node refused the settlement transaction: %w", err))
			return
		}
		rec := &sentTx{own: true, nonce: s.nonce, txs: []*types.Transaction{tx}, signedAt: head.Number.Uint64(),
			reqs: make(map[authKey]*x402.Requirement, len(ts)), done: make(chan struct{})}
		for _, t := range ts {
			rec.reqs[authKey{t.p.Authorization.From, t.p.Authorization.Nonce}] = t.req
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
// else Multicall3 tryAggregate.
func txFor(ts []*transfer, requireSuccess bool) (common.Address, []byte) {
	if len(ts) == 1 {
		return ts[0].req.Network.Asset, ts[0].data
	}
	return Multicall3, tryAggregateCalldata(requireSuccess, calls(ts))
}

// signAndJournal signs the transaction for ts and calls every onSigned
// hook with its hash (concurrently: they are journal writes). Transfers
// whose caller left or whose hook failed are dropped and told so, and the
// rest signed again, until every hook accepted the hash.
func (s *Settler) signAndJournal(ts []*transfer, gas uint64, f fees) (*types.Transaction, []*transfer, error) {
	for len(ts) > 0 {
		to, data := txFor(ts, false)
		tx, err := s.sign(s.nonce, to, data, gas, f)
		if err != nil {
			return nil, ts, err
		}
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
					if err := t.onSigned(tx.Hash()); err != nil {
						errs[i] = fmt.Errorf("evm: recording settlement %s before sending: %w", tx.Hash().Hex(), err)
					}
				}()
			}
		}
		wg.Wait()
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

// multicallReady tells whether Multicall3 has code on this chain (read once).
func (s *Settler) multicallReady(ctx context.Context) bool {
	switch s.multicall.Load() {
	case 1:
		return true
	case 2:
		return false
	}
	code, err := s.backend.CodeAt(ctx, Multicall3, nil)
	if err != nil {
		return false
	}
	if len(code) == 0 {
		s.multicall.Store(2)
		return false
	}
	s.multicall.Store(1)
	return true
}
