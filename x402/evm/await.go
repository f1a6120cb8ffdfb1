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
	_, err := s.await(ctx, tx, p)
	return err
}

func (s *Settler) await(ctx context.Context, hash common.Hash, p *x402.Payment) (*types.Receipt, error) {
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
	r := rec.receipt
	a := &p.Authorization
	req := rec.reqs[authKey{a.From, a.Nonce}]
	var asset common.Address
	if req != nil {
		asset = req.Network.Asset
	}
	if r.Status == types.ReceiptStatusSuccessful && authorizationUsed(r, asset, a.From, a.Nonce) {
		return r, nil
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
	return r, &x402.Error{Reason: reason, Message: fmt.Sprintf("settlement transaction %s %s", r.TxHash.Hex(), what)}
}

// AuthorizationUsed reads the token's authorizationState(from, nonce) at
// the latest block: true once the authorization was used or canceled.
func (s *Settler) AuthorizationUsed(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error) {
	used, err := callBool(ctx, s.backend, req.Network.Asset, tokenABI.PackAuthorizationState(p.Authorization.From, p.Authorization.Nonce))
	if err != nil {
		return false, fmt.Errorf("evm: reading authorizationState on %s: %w", req.Network.Asset, err)
	}
	return used, nil
}

// BalanceOf reads who's token balance (atomic units) at the latest block.
func (s *Settler) BalanceOf(ctx context.Context, req *x402.Requirement, who common.Address) (*big.Int, error) {
	asset := req.Network.Asset
	out, err := s.backend.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: tokenABI.PackBalanceOf(who)}, nil)
	if err != nil {
		return nil, fmt.Errorf("evm: reading balanceOf on %s: %w", asset, err)
	}
	bal, err := tokenABI.UnpackBalanceOf(out)
	if err != nil {
		return nil, fmt.Errorf("evm: decoding balanceOf on %s: %w", asset, err)
	}
	return bal, nil
}
