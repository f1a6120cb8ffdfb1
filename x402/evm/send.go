package evm

import (
	"context"
	"fmt"
	"strings"
	"sync"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/farebox/farebox/x402"
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
