package payer

import (
	"bytes"
	"context"
	"errors"
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

// txReader is the part of a chain client that reads a transaction (an
// *ethclient.Client has it): its calldata ties it to one permit.
type txReader interface {
	TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error)
}

// transferTopic is ERC-20's Transfer(address,address,uint256) event.
var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// ErrUnproven says the chain will never prove a settlement's charge: no
// chain to read, a receipt naming no charge or transaction, or a chain
// disagreeing with it (the transaction failed, moved another amount, or
// already proved another purchase). What was signed may have moved.
var ErrUnproven = errors.New("payer: the chain does not prove the receipt's charge")

// errNotYet says the chain does not show the settlement yet (its
// transaction not mined, or its permit not used): ask again later.
var errNotYet = errors.New("payer: the settlement is not on chain yet")

// Proven asks the chain what an upto settlement moved (atomic units of
// its token): the receipt's charge when the chain proves it (see
// uptoProvenCharge). ErrUnproven means it never will; any other error,
// that the chain does not show it yet or could not be read, so asking
// again later may prove it. A settlement asked again gives the same
// answer once proven.
func (s *Settlement) Proven(ctx context.Context) (*big.Int, error) {
	if s.prove == nil {
		return nil, ErrUnproven
	}
	return s.prove(ctx)
}

// uptoProvenCharge is what an upto authorization moved when the chain
// proves it agrees with the receipt: the Permit2 nonce is used, and the
// transaction the receipt names succeeded, carries the permit's nonce in
// its calldata, and moved exactly the receipt's charge of the token from
// the payer to payTo (a transaction proves one purchase only). Anything else proves nothing: the signed maximum stays
// counted.
func (t *Transport) uptoProvenCharge(ctx context.Context, p *purchase) (*big.Int, error) {
	t.mu.Lock()
	tx, said, proven := p.upto.tx, p.upto.said, p.upto.proven
	t.mu.Unlock()
	if proven != nil {
		return new(big.Int).Set(proven), nil
	}
	rr, ok := t.chain.(receiptReader)
	if !ok || tx == (common.Hash{}) || said == nil {
		return nil, ErrUnproven
	}
	u := p.upto.payload
	used, known := permit2NonceUsed(ctx, t.chain, p.upto.permit2, u.From, u.Permit.Nonce)
	if !known || !used {
		return nil, errNotYet
	}
	rec, err := rr.TransactionReceipt(ctx, tx)
	if err != nil {
		return nil, errors.Join(errNotYet, err)
	}
	if rec.Status != types.ReceiptStatusSuccessful {
		return nil, ErrUnproven
	}
	// The transaction must carry this permit (its nonce, a random word,
	// in the calldata however the settle call is wrapped): another
	// settlement of the same wallet to the same payTo proves nothing, even
	// to a process that never saw it proved.
	tr, ok := t.chain.(txReader)
	if !ok {
		return nil, ErrUnproven
	}
	sent, _, err := tr.TransactionByHash(ctx, tx)
	if err != nil {
		return nil, errors.Join(errNotYet, err)
	}
	if !bytes.Contains(sent.Data(), common.BigToHash(u.Permit.Nonce).Bytes()) {
		return nil, ErrUnproven
	}
	moved := new(big.Int)
	for _, l := range rec.Logs {
		if l.Address == p.upto.token && len(l.Topics) == 3 && l.Topics[0] == transferTopic &&
			common.BytesToAddress(l.Topics[1].Bytes()) == u.From {
			if common.BytesToAddress(l.Topics[2].Bytes()) != u.Witness.To {
				return nil, ErrUnproven // the payer's money went elsewhere in it: not this settlement
			}
			moved.Add(moved, new(big.Int).SetBytes(l.Data))
		}
	}
	if moved.Cmp(said) != 0 || moved.Cmp(u.Permit.Amount) > 0 {
		return nil, ErrUnproven
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.upto.proven != nil {
		return new(big.Int).Set(p.upto.proven), nil
	}
	if t.provenTx == nil {
		t.provenTx = map[common.Hash]bool{}
	}
	if t.provenTx[tx] {
		return nil, ErrUnproven
	}
	t.provenTx[tx] = true
	p.upto.proven = moved
	return new(big.Int).Set(moved), nil
}
