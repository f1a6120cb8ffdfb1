package evm

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
)

// ErrNotMined means a settlement transaction was broadcast but no receipt
// arrived in time: it may still be mined later, so it is not a refusal.
var ErrNotMined = errors.New("evm: settlement transaction not mined in time")

// Settler is the `chain` settler (x402.Settler): farebox's relayer key
// submits transferWithAuthorization itself. Transaction nonces are assigned
// under a lock from a local counter, so concurrent settlements never
// collide, and the counter is re-read from the chain after any send error.
type Settler struct {
	backend Backend
	key     *ecdsa.PrivateKey
	from    common.Address
	chainID *big.Int
	signer  types.Signer

	// ReceiptTimeout bounds the wait for a receipt after broadcast (default 2 min).
	ReceiptTimeout time.Duration
	// PollInterval is how often the receipt is polled (default 250 ms).
	PollInterval time.Duration
	// GasMarginPercent is added to the estimated gas (default 20).
	GasMarginPercent uint64

	assets deployedAssets

	mu      sync.Mutex
	nonce   uint64
	nonceOK bool

	// unmined is the oldest settlement broadcast but not seen mined in
	// time: while it is pending, later ones queue behind its nonce.
	unmined atomic.Pointer[unminedTx]
}

type unminedTx struct {
	hash  common.Hash
	since time.Time
}

var _ x402.Settler = (*Settler)(nil)

// NewSettler returns a chain settler that pays gas from key on backend's
// chain. The caller reads the key from the environment; it is never logged.
func NewSettler(ctx context.Context, backend Backend, key *ecdsa.PrivateKey) (*Settler, error) {
	if key == nil {
		return nil, errors.New("evm: the chain settler needs a relayer key")
	}
	id, err := backend.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("evm: reading chain id: %w", err)
	}
	return &Settler{
		backend: backend, key: key, from: crypto.PubkeyToAddress(key.PublicKey),
		chainID: id, signer: types.LatestSignerForChainID(id),
		ReceiptTimeout: 2 * time.Minute, PollInterval: 250 * time.Millisecond, GasMarginPercent: 20,
	}, nil
}

// ChainID is the chain the settler sends to.
func (s *Settler) ChainID() *big.Int { return new(big.Int).Set(s.chainID) }

// RelayerBalance is the relayer's native balance (wei), for readiness checks.
func (s *Settler) RelayerBalance(ctx context.Context) (*big.Int, error) {
	return s.backend.BalanceAt(ctx, s.from, nil)
}

// Ready fails when the relayer cannot pay the gas of one settlement at the
// current fee level (100k gas), so /readyz can report it.
func (s *Settler) Ready(ctx context.Context) error {
	bal, err := s.RelayerBalance(ctx)
	if err != nil {
		return fmt.Errorf("evm: reading relayer balance: %w", err)
	}
	price, err := s.backend.SuggestGasPrice(ctx)
	if err != nil {
		return fmt.Errorf("evm: reading gas price: %w", err)
	}
	need := new(big.Int).Mul(price, big.NewInt(100_000))
	if bal.Cmp(need) < 0 {
		return fmt.Errorf("evm: relayer %s holds %s wei, less than the ~%s wei one settlement costs", s.from, bal, need)
	}
	if u := s.unmined.Load(); u != nil {
		if _, err := s.backend.TransactionReceipt(ctx, u.hash); err != nil {
			return fmt.Errorf("evm: relayer transaction %s, sent %s ago, is not mined: later settlements wait behind it",
				u.hash.Hex(), time.Since(u.since).Round(time.Second))
		}
		s.unmined.CompareAndSwap(u, nil) // mined since: the queue moves again
	}
	return nil
}

// Settle submits transferWithAuthorization for a verified payment and waits
// for its receipt. Every failure yields a Receipt with Success false and an
// x402 reason, together with an error; it never waits past ctx or
// ReceiptTimeout.
func (s *Settler) Settle(ctx context.Context, p *x402.Payment, req *x402.Requirement) (*x402.Receipt, error) {
	rc := &x402.Receipt{Payer: p.Authorization.From.Hex(), Network: req.Network.CAIP2}
	fail := func(reason string, err error) (*x402.Receipt, error) {
		rc.Success, rc.ErrorReason, rc.Transaction = false, reason, ""
		return rc, err
	}
	if req.Network.ChainID == nil || req.Network.ChainID.Cmp(s.chainID) != 0 {
		return fail(x402.ReasonInvalidNetwork, fmt.Errorf("evm: settler is on chain %s, payment is for %s", s.chainID, req.Network.CAIP2))
	}
	data, err := transferCalldata(p)
	if err != nil {
		return fail(x402.ReasonInvalidPayload, fmt.Errorf("evm: %w", err))
	}
	if err := s.assets.check(ctx, s.backend, req.Network); err != nil {
		var xe *x402.Error
		if errors.As(err, &xe) {
			return fail(xe.Reason, err)
		}
		return fail(x402.ReasonUnexpectedSettleError, err)
	}
	asset := req.Network.Asset
	gas, err := s.backend.EstimateGas(ctx, ethereum.CallMsg{From: s.from, To: &asset, Data: data})
	if err != nil {
		if isRevert(err) {
			e := refusal(ctx, s.backend, p, req, revertReason(err))
			return fail(e.Reason, e)
		}
		return fail(x402.ReasonUnexpectedSettleError, fmt.Errorf("evm: estimating gas: %w", err))
	}
	gas += gas * s.GasMarginPercent / 100
	tx, err := s.send(ctx, asset, data, gas)
	if err != nil {
		if tx != nil && ctx.Err() != nil {
			// Signed and handed to the node when time ran out: it may be out.
			rc.ErrorReason, rc.Transaction = x402.ReasonSettlementPending, tx.Hash().Hex()
			return rc, fmt.Errorf("%w: %w", x402.ErrSettlementPending, err)
		}
		return fail(x402.ReasonUnexpectedSettleError, err)
	}
	receipt, err := s.wait(ctx, tx.Hash())
	if err != nil {
		s.unmined.CompareAndSwap(nil, &unminedTx{hash: tx.Hash(), since: time.Now()})
		// Broadcast but not mined in time: it may still be mined, so the
		// receipt keeps its hash.
		rc.ErrorReason, rc.Transaction = x402.ReasonSettlementPending, tx.Hash().Hex()
		return rc, fmt.Errorf("%w: %w: %s: %w", x402.ErrSettlementPending, ErrNotMined, tx.Hash().Hex(), err)
	}
	if receipt.Status != types.ReceiptStatusSuccessful {
		reason := x402.ReasonInvalidTxState
		if e := Diagnose(ctx, s.backend, p, req); e != nil {
			reason = e.Reason
		}
		return fail(reason, fmt.Errorf("evm: settlement transaction %s reverted", tx.Hash().Hex()))
	}
	rc.Success, rc.Transaction = true, tx.Hash().Hex()
	return rc, nil
}

// send prices, signs and broadcasts one transaction, holding the nonce lock
// only for signing and sending so settlements stay concurrent.
func (s *Settler) send(ctx context.Context, to common.Address, data []byte, gas uint64) (*types.Transaction, error) {
	fees, err := s.fees(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.nonceOK {
		n, err := s.backend.PendingNonceAt(ctx, s.from)
		if err != nil {
			return nil, fmt.Errorf("evm: reading relayer nonce: %w", err)
		}
		s.nonce, s.nonceOK = n, true
	}
	var inner types.TxData
	if fees.tipCap != nil {
		inner = &types.DynamicFeeTx{ChainID: s.chainID, Nonce: s.nonce, GasTipCap: fees.tipCap,
			GasFeeCap: fees.feeCap, Gas: gas, To: &to, Data: data}
	} else {
		inner = &types.LegacyTx{Nonce: s.nonce, GasPrice: fees.gasPrice, Gas: gas, To: &to, Data: data}
	}
	tx, err := types.SignNewTx(s.key, s.signer, inner)
	if err != nil {
		return nil, fmt.Errorf("evm: signing settlement: %w", err)
	}
	if err := s.backend.SendTransaction(ctx, tx); err != nil {
		s.nonceOK = false // resync: the chain may have seen, or refused, this nonce
		return tx, fmt.Errorf("evm: sending settlement: %w", err)
	}
	s.nonce++
	return tx, nil
}

type fees struct {
	tipCap, feeCap, gasPrice *big.Int
}

// fees reads EIP-1559 fees from the chain (fee cap = 2 x base fee + tip),
// or a legacy gas price on chains without a base fee.
func (s *Settler) fees(ctx context.Context) (fees, error) {
	head, err := s.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		return fees{}, fmt.Errorf("evm: reading latest header: %w", err)
	}
	if head.BaseFee == nil {
		price, err := s.backend.SuggestGasPrice(ctx)
		if err != nil {
			return fees{}, fmt.Errorf("evm: reading gas price: %w", err)
		}
		return fees{gasPrice: price}, nil
	}
	tip, err := s.backend.SuggestGasTipCap(ctx)
	if err != nil {
		return fees{}, fmt.Errorf("evm: reading gas tip: %w", err)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	return fees{tipCap: tip, feeCap: feeCap}, nil
}

// wait polls for the receipt until it exists, ctx ends or ReceiptTimeout passes.
func (s *Settler) wait(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, s.ReceiptTimeout)
	defer cancel()
	tick := time.NewTicker(s.PollInterval)
	defer tick.Stop()
	for {
		r, err := s.backend.TransactionReceipt(ctx, hash)
		if err == nil && r != nil {
			return r, nil
		}
		// Not found yet, or a transient RPC failure: poll again until the deadline.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}
