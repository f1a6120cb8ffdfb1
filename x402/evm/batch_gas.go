package evm

// This file is the gas a batch reserves: its limits per block share, the
// gas per transfer learnt from mined receipts, and the limit of one
// transaction.

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// batchLimit bounds a batch by MaxBatch and by batchGasCap over the
// largest gas reserved per transfer; one transfer until a token's transfer
// gas is known.
func (s *Settler) batchLimit() int {
	per := s.maxTransferGas.Load()
	if s.multicall.Load() != 1 || per == 0 {
		return 1 // no Multicall3 on this chain, or nothing measured yet
	}
	return max(1, min(s.MaxBatch, int((s.batchGasCap()-batchOverheadGas)/per)))
}

// blockShare is the fewest transactions a batch's gas limit lets fill a
// block: a node includes a transaction only while its whole gas limit fits
// in what is left of the block, so each block may end up to one limit
// short of full. Limits of a twentieth of the block keep that under 5%,
// while each transaction's fixed cost (its base and first accesses, ~40k
// gas) stays under 1% of a full block.
const blockShare = 20

// batchGasCap is the gas limit of the largest batch: MaxBatchGas, or a
// blockShare-th of the latest block's gas limit when that is smaller.
func (s *Settler) batchGasCap() uint64 {
	limit := s.MaxBatchGas
	s.latest.mu.Lock()
	if h := s.latest.h; h != nil && h.GasLimit/blockShare > 2*batchOverheadGas {
		limit = min(limit, h.GasLimit/blockShare)
	}
	s.latest.mu.Unlock()
	return limit
}

// batchOverheadGas covers a transaction's base cost and Multicall3's loop.
const batchOverheadGas = 40_000

// transferGas is the gas reserved for one transfer of asset inside a batch
// (0 while unmeasured; see learnTransferGas and learnBatchGas), three times
// that for a contract wallet's signature, which runs its EIP-1271 code.
func (s *Settler) transferGas(t *transfer) uint64 {
	v, ok := s.gasByAsset.Load(t.req.Network.Asset)
	if !ok {
		return 0
	}
	if len(t.p.Signature) > 65 {
		return 3 * v.(uint64)
	}
	return v.(uint64)
}

// txBaseGas is every transaction's intrinsic cost, paid once per batch.
const txBaseGas = 21_000

// learnTransferGas records the gas of one transfer of asset measured alone
// (eth_estimateGas of its own transaction). Inside a batch it costs that
// less the transaction's base cost (and less its first access to the
// token's contracts, which batchOverheadGas covers); a fifth more is
// reserved until a mined batch tells what a transfer really costs there.
func (s *Settler) learnTransferGas(asset common.Address, measured uint64) {
	per := measured - min(measured, txBaseGas)
	per += per / 5
	if old, ok := s.gasByAsset.Load(asset); ok && old.(uint64) >= per {
		return
	}
	s.setTransferGas(asset, per)
}

// minLearnBatch is the smallest mined batch whose gas per transfer is
// taken as the reservation: a few transfers carry the batch's fixed costs.
const minLearnBatch = 8

// learnBatchGas records what a mined batch of n transfers of asset, all
// carried out, used: each reserves a quarter more than their average
// (payers met again within a transaction cost less than new ones, and
// the simulation catches a transfer that would still run short).
func (s *Settler) learnBatchGas(asset common.Address, n int, gasUsed uint64) {
	if n < minLearnBatch || gasUsed <= txBaseGas {
		return
	}
	per := (gasUsed - txBaseGas) / uint64(n)
	per += per / 4
	if old, ok := s.gasByAsset.Load(asset); ok && old.(uint64) == per {
		return
	}
	s.setTransferGas(asset, per)
}

// learnable is a batch sent whose receipt tells the gas of a transfer.
type learnable struct {
	asset common.Address
	n     int
}

// noteBatch remembers that the relayer's nonce carries n transfers of
// asset, all signed by plain keys, so that its receipt teaches the gas of
// one (see learnFrom). Only the latest few hundred are kept.
func (s *Settler) noteBatch(nonce uint64, asset common.Address, n int) {
	s.gasMu.Lock()
	defer s.gasMu.Unlock()
	if s.learning == nil {
		s.learning = map[uint64]learnable{}
	}
	s.learning[nonce] = learnable{asset, n}
	if len(s.learning) > 256 {
		for k := range s.learning {
			if k+256 < nonce {
				delete(s.learning, k)
			}
		}
	}
}

// learnFrom learns the gas of a transfer from the receipt of the relayer's
// nonce when noteBatch noted it and every transfer in it was carried out.
func (s *Settler) learnFrom(nonce uint64, r *types.Receipt) {
	s.gasMu.Lock()
	l, ok := s.learning[nonce]
	delete(s.learning, nonce)
	s.gasMu.Unlock()
	if ok && r.Status == types.ReceiptStatusSuccessful && countUsed(r, l.asset) == l.n {
		s.learnBatchGas(l.asset, l.n, r.GasUsed)
	}
}

// raiseTransferGas reserves half again more gas for the tokens of ts.
func (s *Settler) raiseTransferGas(ts []*transfer) {
	seen := map[common.Address]bool{}
	for _, t := range ts {
		asset := t.req.Network.Asset
		if v, ok := s.gasByAsset.Load(asset); ok && !seen[asset] {
			seen[asset] = true
			s.setTransferGas(asset, v.(uint64)+v.(uint64)/2)
		}
	}
}

// setTransferGas sets asset's reservation and the largest over all assets.
func (s *Settler) setTransferGas(asset common.Address, per uint64) {
	s.gasMu.Lock()
	defer s.gasMu.Unlock()
	s.gasByAsset.Store(asset, per)
	var largest uint64
	s.gasByAsset.Range(func(_, v any) bool {
		largest = max(largest, v.(uint64))
		return true
	})
	s.maxTransferGas.Store(largest)
}

// txGas is the gas limit of a transaction carrying ts (0 when a transfer's
// gas is unmeasured). A generous limit costs nothing, as unused gas is not
// paid for; the simulation runs with exactly this limit, so a transfer it
// would starve is caught before sending.
func (s *Settler) txGas(ts []*transfer) uint64 {
	gas := uint64(batchOverheadGas)
	for _, t := range ts {
		g := s.transferGas(t)
		if g == 0 {
			return 0
		}
		gas += g
	}
	return gas
}
