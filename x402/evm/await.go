package evm

import (
	"context"
	"fmt"
	"math/big"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/farebox/farebox/x402"
)

// Await waits until transaction tx (or the fee-bumped replacement of it
// this settler sent) is mined and reports whether p's transfer in it
// succeeded: nil when the receipt holds the token's AuthorizationUsed log
// for (from, nonce), since one batch transaction can succeed while one of
// its transfers fails; an *x402.Error with the reason when it did not
// happen; an error wrapping ErrNotMined (or ctx's error) when the outcome
// is unknown. It follows new heads (subscription, or polling timed to the
// block interval) and gives up after ReceiptTimeout.
func (s *Settler) Await(ctx context.Context, tx common.Hash, p *x402.Payment) error {
	_, _, err := s.await(ctx, tx, p)
	return err
}

// AwaitFee is Await that also tells p's share (wei) of the fee the relayer
// paid for the mined transaction: its fee split evenly among the transfers
// it carried, the odd wei to the first ones, so the shares add up to the
// fee. The share is reported whether the transfer succeeded or not (a
// reverted transaction costs gas too); it is nil when the outcome is
// unknown or the transaction is not one this process sent as a batch.
func (s *Settler) AwaitFee(ctx context.Context, tx common.Hash, p *x402.Payment) (*big.Int, error) {
	r, rec, err := s.await(ctx, tx, p)
	if r == nil || rec == nil || !rec.own || rec.call {
		return nil, err
	}
	c, ok := rec.reqs[authKey{p.Authorization.From, p.Authorization.Nonce}]
	if !ok {
		return nil, err
	}
	fee := s.feeOf(ctx, rec, r)
	if fee == nil {
		return nil, err
	}
	return shareOf(fee, len(rec.reqs), c.pos), err
}

func (s *Settler) await(ctx context.Context, hash common.Hash, p *x402.Payment) (*types.Receipt, *sentTx, error) {
	rec := s.watch(hash)
	defer s.release(hash, rec)
	if err := s.awaitDone(ctx, rec); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrNotMined, hash.Hex(), err)
	}
	if rec.lost {
		return nil, nil, fmt.Errorf("%w: the relayer's nonce %d was mined by a transaction this process did not send", ErrNotMined, rec.nonce)
	}
	r := rec.receipt
	if rec.own {
		s.learnFrom(rec.nonce, r)
	}
	a := &p.Authorization
	req := rec.reqs[authKey{a.From, a.Nonce}].req
	var asset common.Address
	if req != nil {
		asset = req.Network.Asset
	}
	if r.Status == types.ReceiptStatusSuccessful && authorizationUsed(r, asset, a.From, a.Nonce) {
		return r, rec, nil
	}
	reason := x402.ReasonInvalidTxState
	if req != nil {
		if e := Diagnose(ctx, s.backend, p, req); e != nil {
			reason = e.Reason
		}
	}
	what := "reverted"
	if r.Status == types.ReceiptStatusSuccessful {
		what = "did not carry out this authorization's transfer"
	}
	return r, rec, &x402.Error{Reason: reason, Message: fmt.Sprintf("settlement transaction %s %s", r.TxHash.Hex(), what)}
}

// AuthorizationUsed reads the token's authorizationState(from, nonce) at
// the latest block (Confirmations below it when set): true once the
// authorization was used or canceled, that deep.
func (s *Settler) AuthorizationUsed(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error) {
	at, err := s.confirmedBlock(ctx)
	if err != nil {
		return false, err
	}
	return authorizationStateAt(ctx, s.backend, p, req, at)
}

// BalanceOf reads who's token balance (atomic units) at the latest block.
func (s *Settler) BalanceOf(ctx context.Context, req *x402.Requirement, who common.Address) (*big.Int, error) {
	asset := req.Network.Asset
	out, err := s.backend.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: tokenCall("balanceOf", who)}, nil)
	if err != nil {
		return nil, fmt.Errorf("evm: reading balanceOf on %s: %w", asset, err)
	}
	bal, err := tokenResult[*big.Int]("balanceOf", out)
	if err != nil {
		return nil, fmt.Errorf("evm: decoding balanceOf on %s: %w", asset, err)
	}
	return bal, nil
}

// transferLookback bounds how far back TransferTx searches (a day of 2 s
// blocks): the node's log index answers a topic filter from its blooms.
const transferLookback = 43_200

// TransferTx finds the transaction that carried out p's transfer: the one
// whose receipt holds the token's AuthorizationUsed log for (from, nonce)
// within the last blocks. It lets a restarted process name the mined
// transaction when the one it recorded was replaced by a fee bump. The
// zero hash means none was found (or the backend cannot filter logs).
func (s *Settler) TransferTx(ctx context.Context, p *x402.Payment, req *x402.Requirement) (common.Hash, error) {
	if _, ok := s.backend.(ethereum.LogFilterer); !ok {
		return common.Hash{}, nil
	}
	head, err := s.latest.get(ctx, s.backend, 0)
	if err != nil {
		return common.Hash{}, err
	}
	// Only a transfer that deep counts: one above may still be taken away
	// by a reorganisation.
	return transferTxBelow(ctx, s.backend, head, s.Confirmations, p, req)
}

// transferTxBelow is transferTx up to depth blocks below head: nothing
// while the chain is shorter than depth.
func transferTxBelow(ctx context.Context, backend Backend, head *types.Header, depth uint64, p *x402.Payment, req *x402.Requirement) (common.Hash, error) {
	if depth > 0 && head.Number.Uint64() < depth {
		return common.Hash{}, nil
	}
	return transferTx(ctx, backend, head, belowHead(head, depth), p, req)
}

// transferTx is TransferTx on backend (a LogFilterer) below head, up to
// block upTo (nil: the latest).
func transferTx(ctx context.Context, backend Backend, head *types.Header, upTo *big.Int, p *x402.Payment, req *x402.Requirement) (common.Hash, error) {
	lf, ok := backend.(ethereum.LogFilterer)
	if !ok {
		return common.Hash{}, nil
	}
	from := uint64(0)
	if n := head.Number.Uint64(); n > transferLookback {
		from = n - transferLookback
	}
	a := &p.Authorization
	logs, err := lf.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from), ToBlock: upTo, Addresses: []common.Address{req.Network.Asset},
		Topics: [][]common.Hash{{authorizationUsedTopic}, {common.BytesToHash(a.From.Bytes())}, {common.Hash(a.Nonce)}}})
	if err != nil {
		return common.Hash{}, fmt.Errorf("evm: searching the AuthorizationUsed log: %w", err)
	}
	for _, l := range logs {
		if !l.Removed {
			return l.TxHash, nil
		}
	}
	return common.Hash{}, nil
}
