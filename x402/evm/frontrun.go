package evm

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
)

// transferTopic is ERC-20's Transfer(address indexed from, address indexed
// to, uint256 value).
var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// PaidBy finds a transaction, whoever sent it, that used p's authorization
// and paid the requirement with it: anyone holding a signed
// transferWithAuthorization may submit it first (a front-runner copying it
// from the mempool, the payer itself), and the money then reaches payTo
// all the same. It returns that transaction and its block's time, or the
// zero hash when none is found. The proof is the token's AuthorizationUsed
// log for (from, nonce) followed at once by its Transfer of exactly the
// authorized value from the payer to req.PayTo (EIP-3009 tokens emit the
// two in that order in one call); an AuthorizationUsed alone may be a
// cancellation or another authorization with the same nonce paying
// someone else.
func (s *Settler) PaidBy(ctx context.Context, p *x402.Payment, req *x402.Requirement) (common.Hash, time.Time, error) {
	hash, err := s.TransferTx(ctx, p, req)
	if err != nil || hash == (common.Hash{}) {
		return common.Hash{}, time.Time{}, err
	}
	r, err := s.backend.TransactionReceipt(ctx, hash)
	if err != nil {
		return common.Hash{}, time.Time{}, fmt.Errorf("evm: reading the receipt of %s: %w", hash.Hex(), err)
	}
	if r.Status != types.ReceiptStatusSuccessful || !paysRequirement(r, p, req) {
		return common.Hash{}, time.Time{}, nil
	}
	h, err := s.backend.HeaderByNumber(ctx, r.BlockNumber)
	if err != nil {
		return common.Hash{}, time.Time{}, fmt.Errorf("evm: reading block %s: %w", r.BlockNumber, err)
	}
	return hash, time.Unix(int64(h.Time), 0), nil
}

// paysRequirement reports whether r holds the token's AuthorizationUsed log
// for p's (from, nonce) immediately followed by the token's Transfer of
// p's value from the payer to req.PayTo.
func paysRequirement(r *types.Receipt, p *x402.Payment, req *x402.Requirement) bool {
	a := &p.Authorization
	asset := req.Network.Asset
	want := a.Value
	if want == nil || want.Cmp(req.Amount) != 0 {
		return false
	}
	for i, l := range r.Logs {
		if l.Address != asset || len(l.Topics) != 3 || l.Topics[0] != authorizationUsedTopic ||
			l.Topics[1] != common.BytesToHash(a.From.Bytes()) || l.Topics[2] != common.Hash(a.Nonce) {
			continue
		}
		if i+1 >= len(r.Logs) {
			return false
		}
		t := r.Logs[i+1]
		return t.Address == asset && len(t.Topics) == 3 && t.Topics[0] == transferTopic &&
			t.Topics[1] == common.BytesToHash(a.From.Bytes()) && t.Topics[2] == common.BytesToHash(req.PayTo.Bytes()) &&
			new(big.Int).SetBytes(t.Data).Cmp(want) == 0 && len(t.Data) == 32
	}
	return false
}
