package evm

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
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
	if s.dispatchers < s.Dispatchers && len(s.queue) > s.dispatchers-1 {
		s.dispatchers++
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
// queue is empty. Several run at once (Dispatchers), so one batch is
// simulated while another is sent; nonces are assigned under sendMu.
func (s *Settler) dispatch() {
	for {
		// One batch is taken and sent at a time, so the next one is
		// whatever arrived while this one was on its way.
		s.turn.Lock()
		s.awaitBlockSpace()
		if s.lastBatch > 1 && s.BatchWindow > 0 {
			// Under load (the last batch had company): let more arrive, so
			// fewer, fuller transactions carry them.
			time.Sleep(s.BatchWindow)
		}
		batch, wait := s.take()
		s.lastBatch = len(batch)
		if batch == nil {
			s.turn.Unlock()
			if wait == 0 {
				return
			}
			select {
			case <-time.After(wait):
			case <-s.wake:
			}
			continue
		}
		s.sendBatch(batch)
		s.turn.Unlock()
	}
}

// backlogBlocks is how many blocks' worth of gas limits the relayer keeps
// sent and unmined (limits reserve a quarter above what batches use, more
// before one is mined, so about two blocks of gas): enough that every
// block is filled to its gas limit, and no more, so that what the chain
// cannot take yet waits in the queue, where it joins fuller batches (a
// payer's transfers together), rather than in the node's pool, where a
// transaction waiting for room looks stuck and has its fees bumped.
const backlogBlocks = 3

// awaitBlockSpace waits (polling at PollInterval) while the relayer's sent,
// unmined transactions already hold backlogBlocks blocks' worth of gas.
func (s *Settler) awaitBlockSpace() {
	for start := time.Now(); time.Since(start) < s.SendTimeout; {
		s.latest.mu.Lock()
		h := s.latest.h
		s.latest.mu.Unlock()
		if h == nil || h.GasLimit == 0 || s.unminedGas() <= backlogBlocks*h.GasLimit {
			return
		}
		time.Sleep(s.PollInterval)
	}
}

// unminedGas is the gas limit of the relayer's transactions sent and not
// seen mined.
func (s *Settler) unminedGas() uint64 {
	s.flight.mu.Lock()
	defer s.flight.mu.Unlock()
	var gas uint64
	for rec := range s.flight.open {
		if rec.own && len(rec.txs) > 0 {
			gas += rec.txs[len(rec.txs)-1].Gas()
		}
	}
	return gas
}

// take removes up to the batch limit of ready transfers from the queue.
// With none ready it returns how long until one is (0: queue empty, and
// the dispatcher stops).
func (s *Settler) take() ([]*transfer, time.Duration) {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	if len(s.queue) == 0 {
		s.dispatchers--
		return nil, 0
	}
	limit := s.batchLimit()
	now := time.Now()
	var batch, rest []*transfer
	wait := time.Hour
	for _, t := range byPayer(s.queue, limit) {
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
	if len(rest) > 1 && limit > 1 {
		// Back in arrival order: byPayer only chose who rides now.
		pos := make(map[*transfer]int, len(s.queue))
		for i, t := range s.queue {
			pos[t] = i
		}
		slices.SortFunc(rest, func(a, b *transfer) int { return pos[a] - pos[b] })
	}
	s.queue = rest
	if batch == nil && len(rest) == 0 {
		s.dispatchers--
		return nil, 0
	}
	return batch, wait
}

// byPayer orders the queue for taking a batch when more than one batch
// waits: payers in the order of their oldest waiting transfer, each
// payer's transfers together. A payer met again within a transaction costs
// its balance's and account's first access once (about 7k gas less for
// each transfer after the first), and no transfer waits behind one that
// arrived after it, other than those of a payer who was already waiting.
func byPayer(q []*transfer, limit int) []*transfer {
	if limit <= 1 || len(q) <= limit {
		return q
	}
	order := make([]common.Address, 0, len(q))
	groups := make(map[common.Address][]*transfer, len(q))
	for _, t := range q {
		from := t.p.Authorization.From
		if _, ok := groups[from]; !ok {
			order = append(order, from)
		}
		groups[from] = append(groups[from], t)
	}
	if len(order) == len(q) {
		return q
	}
	out := make([]*transfer, 0, len(q))
	for _, from := range order {
		out = append(out, groups[from]...)
	}
	return out
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

// sendBatch simulates the batch against the latest state at the earliest
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
	head, err := s.latest.get(ctx, s.backend, s.HeadMaxAge)
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
	if len(ready) > 1 && s.txGas(ready) == 0 {
		s.requeue(ready[1:]) // a token not measured yet: its first transfer goes alone
		ready = ready[:1]
	}
	for len(ready) > 1 && s.txGas(ready) > s.batchGasCap() {
		// Contract wallets' transfers reserve more gas: the tail waits.
		s.requeue(ready[len(ready)-1:])
		ready = ready[:len(ready)-1]
	}
	if len(ready) == 0 {
		return
	}
	if s.txGas(ready) != 0 && !ready[0].solo {
		s.sendOverlapped(ctx, ready, at, head)
		return
	}
	ok, refused, alone, err := s.simulateBatch(ctx, ready, at)
	if err != nil {
		failAll(ready, err)
		return
	}
	if len(alone) > 0 {
		s.requeue(alone)
	}
	if len(ok) > 0 {
		s.sendSimulated(ctx, ok, at, head)
	}
	s.refuse(refused)
}

// refuse tells the transfers the simulation refused why, diagnosing in the
// background: it takes a few calls, and the dispatcher moves on meanwhile.
func (s *Settler) refuse(ts []*transfer) {
	for _, t := range ts {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), s.SendTimeout)
			defer cancel()
			t.done <- outcome{err: refusal(ctx, s.backend, t.p, t.req, t.revert)}
		}()
	}
}

// simulateBatch runs the transfers in order with the gas limit they will
// be sent with (one eth_call: the transfer itself when alone, else
// Multicall3 tryAggregate(false, ...)) and splits them into those that
// would succeed and those that would revert, with the revert strings. A
// transfer that fails without a reason (out of gas within the batch's
// limit) is returned in alone, to be sent alone, priced by eth_estimateGas.
func (s *Settler) simulateBatch(ctx context.Context, ts []*transfer, at uint64) (ok, refused, alone []*transfer, err error) {
	if len(ts) == 1 && s.txGas(ts) == 0 {
		ts[0].solo = true // eth_estimateGas simulates it, measures it, and refuses it if it reverts
		return ts, nil, nil, nil
	}
	to, data := txFor(ts)
	out, err := callAt(ctx, s.backend, ethereum.CallMsg{From: s.from, To: &to, Data: data, Gas: s.txGas(ts)}, at)
	if len(ts) == 1 {
		switch {
		case err == nil:
			return ts, nil, nil, nil
		case isRevert(err):
			ts[0].revert = revertReason(err)
			return nil, ts, nil, nil
		case strings.Contains(strings.ToLower(err.Error()), "gas"):
			ts[0].solo = true
			return nil, nil, ts, nil
		}
		return nil, nil, nil, fmt.Errorf("evm: simulating transferWithAuthorization: %w", err)
	}
	if err != nil && strings.Contains(strings.ToLower(err.Error()), "out of gas") {
		// The reservations were short for this token: measure again, one alone.
		s.gasMu.Lock()
		for _, t := range ts {
			s.gasByAsset.Delete(t.req.Network.Asset)
			t.solo = true
		}
		s.gasMu.Unlock()
		return nil, nil, ts, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("evm: simulating a batch of %d transfers: %w", len(ts), err)
	}
	res, err := unpackTryAggregate(out)
	if err != nil || len(res) != len(ts) {
		return nil, nil, nil, fmt.Errorf("evm: simulating a batch of %d transfers: %d results, %v", len(ts), len(res), err)
	}
	for i, t := range ts {
		switch reason, rerr := abi.UnpackRevert(res[i].ReturnData); {
		case res[i].Success:
			ok = append(ok, t)
		case rerr == nil:
			t.revert = reason
			refused = append(refused, t)
		default:
			t.solo = true
			alone = append(alone, t)
		}
	}
	if len(alone) > 0 {
		// Ran short within the batch's gas (a mined batch of cheaper
		// transfers taught too little): reserve more from now on.
		s.raiseTransferGas(alone)
	}
	return ok, refused, alone, nil
}

func calls(ts []*transfer) []call3 {
	out := make([]call3, len(ts))
	for i, t := range ts {
		out[i] = call3{Target: t.req.Network.Asset, CallData: t.data}
	}
	return out
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
