package evm

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Transactor sends one transaction at a time from an administrative key and
// waits for it to be mined: deploying the dev token, minting, funding. It is
// for setup, not for the settlement hot path (see Settler).
type Transactor struct {
	backend Backend
	key     *ecdsa.PrivateKey
	chainID *big.Int
	// PollInterval is how often receipts are polled (default 20 ms).
	PollInterval time.Duration
	mu           sync.Mutex
}

// NewTransactor returns a Transactor sending from key on backend's chain.
func NewTransactor(ctx context.Context, backend Backend, key *ecdsa.PrivateKey) (*Transactor, error) {
	id, err := backend.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("evm: reading chain id: %w", err)
	}
	return &Transactor{backend: backend, key: key, chainID: id, PollInterval: 20 * time.Millisecond}, nil
}

// From is the address transactions are sent from.
func (t *Transactor) From() common.Address { return crypto.PubkeyToAddress(t.key.PublicKey) }

// Deploy creates a contract from creation bytecode followed by its packed
// constructor arguments, and returns its address once mined.
func (t *Transactor) Deploy(ctx context.Context, code []byte) (common.Address, error) {
	r, err := t.Send(ctx, nil, code, nil)
	if err != nil {
		return common.Address{}, err
	}
	return r.ContractAddress, nil
}

// Send sends data (and value wei, may be nil) to `to` (nil creates a
// contract) and waits for a successful receipt.
func (t *Transactor) Send(ctx context.Context, to *common.Address, data []byte, value *big.Int) (*types.Receipt, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	from := t.From()
	nonce, err := t.backend.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("evm: reading nonce: %w", err)
	}
	gas, err := t.backend.EstimateGas(ctx, ethereum.CallMsg{From: from, To: to, Data: data, Value: value})
	if err != nil {
		return nil, fmt.Errorf("evm: estimating gas: %s", revertReason(err))
	}
	tx, err := t.sign(ctx, &types.DynamicFeeTx{ChainID: t.chainID, Nonce: nonce,
		Gas: gas + gas/5, To: to, Data: data, Value: value})
	if err != nil {
		return nil, err
	}
	if err := t.backend.SendTransaction(ctx, tx); err != nil {
		return nil, fmt.Errorf("evm: sending: %w", err)
	}
	tick := time.NewTicker(t.PollInterval)
	defer tick.Stop()
	for {
		r, err := t.backend.TransactionReceipt(ctx, tx.Hash())
		if err == nil && r != nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return r, errors.New("evm: transaction " + tx.Hash().Hex() + " reverted")
			}
			// A node may show the receipt before its head moves to the
			// block (go-ethereum's simulated chain does): the next Send's
			// gas estimate must see this one's state, or it estimates a call
			// to a contract not yet deployed and runs out of gas.
			if h, err := t.backend.HeaderByNumber(ctx, nil); err == nil && h.Number.Cmp(r.BlockNumber) >= 0 {
				return r, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("evm: waiting for %s: %w", tx.Hash().Hex(), ctx.Err())
		case <-tick.C:
		}
	}
}

// sign prices a transaction with EIP-1559 fees (legacy pricing on chains
// without a base fee) and signs it.
func (t *Transactor) sign(ctx context.Context, d *types.DynamicFeeTx) (*types.Transaction, error) {
	head, err := t.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("evm: reading header: %w", err)
	}
	signer := types.LatestSignerForChainID(t.chainID)
	if head.BaseFee == nil {
		price, err := t.backend.SuggestGasPrice(ctx)
		if err != nil {
			return nil, fmt.Errorf("evm: reading gas price: %w", err)
		}
		return types.SignNewTx(t.key, signer, &types.LegacyTx{Nonce: d.Nonce, GasPrice: price,
			Gas: d.Gas, To: d.To, Data: d.Data, Value: d.Value})
	}
	tip, err := t.backend.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, fmt.Errorf("evm: reading tip: %w", err)
	}
	d.GasTipCap = tip
	d.GasFeeCap = new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	return types.SignNewTx(t.key, signer, d)
}
