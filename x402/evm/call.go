package evm

import (
	"context"
	"fmt"
	"strings"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/farebox/farebox/x402/settle"
)

// ErrCallReverted means a relayer call reverted: in simulation (it was not
// sent) or on chain. It is the engine's sentinel, which the schemes test for.
var ErrCallReverted = settle.ErrCallReverted

// Call sends one contract call (to, data) from the relayer on the nonce
// sequence the settlement dispatchers use, so other relayer work (channel
// deposits, claims, refunds) never collides with settlements. It simulates
// the call first (eth_estimateGas at the next block's time; a revert is
// ErrCallReverted and nothing is sent), calls onSigned (may be nil) with
// the hash before sending so the caller can journal it, sends it, and
// follows it like a settlement (re-sent if dropped, fee-bumped if stuck).
// It returns without waiting for a block: see AwaitCall.
func (s *Settler) Call(ctx context.Context, to common.Address, data []byte, onSigned func(common.Hash) error) (common.Hash, error) {
	head, err := s.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		return common.Hash{}, fmt.Errorf("evm: reading latest header: %w", err)
	}
	gas, err := estimateAt(ctx, s.backend, ethereum.CallMsg{From: s.from, To: &to, Data: data}, nextBlockTime(head.Time))
	if err != nil {
		if isRevert(err) {
			return common.Hash{}, fmt.Errorf("%w: %s", ErrCallReverted, revertReason(err))
		}
		return common.Hash{}, fmt.Errorf("evm: estimating gas: %w", err)
	}
	gas += gas * s.GasMarginPercent / 100
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	f, err := s.feesAt(ctx, head)
	if err != nil {
		return common.Hash{}, err
	}
	for attempt := 0; ; attempt++ {
		if !s.nonceOK {
			n, err := s.backend.PendingNonceAt(ctx, s.from)
			if err != nil {
				return common.Hash{}, fmt.Errorf("evm: reading relayer nonce: %w", err)
			}
			s.nonce, s.nonceOK = n, true
		}
		tx, err := s.sign(s.nonce, to, data, gas, f)
		if err != nil {
			return common.Hash{}, err
		}
		if onSigned != nil {
			if err := onSigned(tx.Hash()); err != nil {
				return common.Hash{}, fmt.Errorf("evm: recording %s before sending: %w", tx.Hash().Hex(), err)
			}
		}
		err = s.backend.SendTransaction(ctx, tx)
		if err != nil && isRejection(err) {
			s.nonceOK = false
			if attempt == 0 && strings.Contains(strings.ToLower(err.Error()), "nonce") {
				continue
			}
			return common.Hash{}, fmt.Errorf("evm: the node refused the transaction: %w", err)
		}
		// Sent, or lost in transport: the nonce is taken either way and the
		// follower re-sends it while it is not mined.
		s.nonce++
		s.track(&sentTx{own: true, nonce: tx.Nonce(), txs: []*types.Transaction{tx}, signedAt: head.Number.Uint64(),
			call: true, label: gasLabel(ctx), done: make(chan struct{})})
		s.batches.Add(1)
		return tx.Hash(), nil
	}
}

// AwaitCall waits until the transaction hash (or a fee-bumped replacement
// of it) is mined and returns its receipt: an error wrapping
// ErrCallReverted when it reverted, wrapping ErrNotMined (or ctx's error)
// when no receipt came within ReceiptTimeout.
func (s *Settler) AwaitCall(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, s.ReceiptTimeout)
	defer cancel()
	rec := s.watch(hash)
	defer s.release(hash, rec)
	select {
	case <-rec.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %s: %w", ErrNotMined, hash.Hex(), ctx.Err())
	}
	if rec.lost {
		return nil, fmt.Errorf("%w: the relayer's nonce %d was mined by a transaction this process did not send", ErrNotMined, rec.nonce)
	}
	if rec.receipt.Status != types.ReceiptStatusSuccessful {
		return rec.receipt, fmt.Errorf("%w: transaction %s", ErrCallReverted, rec.receipt.TxHash.Hex())
	}
	return rec.receipt, nil
}
