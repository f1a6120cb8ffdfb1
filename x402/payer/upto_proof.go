package payer

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// receiptReader is the part of a chain client that reads a transaction's
// receipt (an *ethclient.Client has it).
type receiptReader interface {
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
}

// transferTopic is ERC-20's Transfer(address,address,uint256) event.
var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// uptoProvenCharge is what an upto authorization moved when the chain
// proves it agrees with the receipt: the Permit2 nonce is used, and the
// transaction the receipt names succeeded and moved exactly the receipt's
// charge of the token from the payer (a transaction proves one purchase
// only). Anything else proves nothing: the signed maximum stays counted.
func (t *Transport) uptoProvenCharge(ctx context.Context, p *purchase) (*big.Int, bool) {
	t.mu.Lock()
	tx, said := p.upto.tx, p.upto.said
	t.mu.Unlock()
	rr, ok := t.chain.(receiptReader)
	if !ok || tx == (common.Hash{}) || said == nil {
		return nil, false
	}
	u := p.upto.payload
	if used, known := permit2NonceUsed(ctx, t.chain, p.upto.permit2, u.From, u.Permit.Nonce); !known || !used {
		return nil, false
	}
	rec, err := rr.TransactionReceipt(ctx, tx)
	if err != nil || rec.Status != types.ReceiptStatusSuccessful {
		return nil, false
	}
	moved := new(big.Int)
	for _, l := range rec.Logs {
		if l.Address == p.upto.token && len(l.Topics) == 3 && l.Topics[0] == transferTopic &&
			common.BytesToAddress(l.Topics[1].Bytes()) == u.From {
			moved.Add(moved, new(big.Int).SetBytes(l.Data))
		}
	}
	if moved.Cmp(said) != 0 || moved.Cmp(u.Permit.Amount) > 0 {
		return nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.provenTx == nil {
		t.provenTx = map[common.Hash]bool{}
	}
	if t.provenTx[tx] {
		return nil, false
	}
	t.provenTx[tx] = true
	return t.inUSDC(p.req.Network, moved), true
}
