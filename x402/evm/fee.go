package evm

// This file is what the relayer's transactions cost it: a mined
// transaction's fee, shared among the transfers of a batch (AwaitFee), and
// the fee of each other call reported to a hook (OnCallGas).

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/farebox/farebox/x402/settle"
)

// WithGasLabel returns ctx carrying label (a model's name): the fee of a
// relayer Call made with it is reported under that label (settle.WithGasLabel).
func WithGasLabel(ctx context.Context, label string) context.Context {
	return settle.WithGasLabel(ctx, label)
}

func gasLabel(ctx context.Context) string { return settle.GasLabel(ctx) }

// CallGas is what one relayer call cost once mined: the engine's plain
// type, so that its readers need not know this chain.
type CallGas = settle.CallGas

// OnCallGas sets fn to be told the fee of every relayer Call transaction
// this process sent, once mined (reverted or not). It runs on the
// follower's goroutine and must not block.
func (s *Settler) OnCallGas(fn func(CallGas)) {
	s.onCallGas.Store(&fn)
}

// reportCall tells the OnCallGas hook what rec, a mined Call, cost.
func (s *Settler) reportCall(ctx context.Context, rec *sentTx, r *types.Receipt) {
	fn := s.onCallGas.Load()
	if fn == nil {
		return
	}
	if fee := s.feeOf(ctx, rec, r); fee != nil {
		(*fn)(CallGas{Tx: r.TxHash, Wei: fee, Label: rec.label, Reverted: r.Status != types.ReceiptStatusSuccessful})
	}
}

// feeOf is what the relayer paid for rec's mined version r: gas used times
// the effective gas price (worked out from the transaction and its block's
// base fee when the node's receipt omits it); nil when it cannot be told.
func (s *Settler) feeOf(ctx context.Context, rec *sentTx, r *types.Receipt) *big.Int {
	price := r.EffectiveGasPrice
	if price == nil {
		price = s.effectivePrice(ctx, rec, r)
	}
	if price == nil {
		return nil
	}
	return new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), price)
}

// effectivePrice is what each unit of gas of the mined version r of rec
// cost: its gas price (legacy), or the block's base fee plus its tip,
// capped by its fee cap.
func (s *Settler) effectivePrice(ctx context.Context, rec *sentTx, r *types.Receipt) *big.Int {
	s.flight.mu.Lock()
	var tx *types.Transaction
	for _, v := range rec.txs {
		if v.Hash() == r.TxHash {
			tx = v
		}
	}
	s.flight.mu.Unlock()
	if tx == nil {
		return nil
	}
	if tx.Type() == types.LegacyTxType {
		return tx.GasPrice()
	}
	h, err := s.backend.HeaderByNumber(ctx, r.BlockNumber)
	if err != nil || h.BaseFee == nil {
		return nil
	}
	return bigMin(new(big.Int).Add(h.BaseFee, tx.GasTipCap()), tx.GasFeeCap())
}

func bigMin(a, b *big.Int) *big.Int {
	if a.Cmp(b) < 0 {
		return a
	}
	return b
}

// shareOf is the share of fee borne by the transfer at pos among n: an
// even split, one wei more for each of the first fee mod n, so that the
// shares add up to the fee. A lone transfer's share is fee itself.
func shareOf(fee *big.Int, n, pos int) *big.Int {
	if n <= 1 {
		return fee
	}
	q, m := new(big.Int).QuoRem(fee, big.NewInt(int64(n)), new(big.Int))
	if int64(pos) < m.Int64() {
		q.Add(q, big.NewInt(1))
	}
	return q
}
