package main

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
)

// settlerBlock is what one block carried of the relayer's: its
// transactions, the transfers they proved, and the block's gas and time.
type settlerBlock struct {
	settlements, txs int
	gasUsed, limit   uint64
	time             uint64
}

// settlerBlocks is every block since the arm began that carried a
// transaction of the relayer's.
type settlerBlocks struct {
	blocks []settlerBlock
	// firstTime is the timestamp of the block before the first one, the
	// start of the chain time the settlements took.
	firstTime uint64
	gas       uint64 // used by the relayer's transactions
	total     int    // transfers proved by AuthorizationUsed logs
}

// judgeSettler waits until the relayer has nothing pending, then reads
// every block since startBlock: the relayer's transactions, their gas and
// status, and the AuthorizationUsed logs that prove each transfer.
func judgeSettler(ctx context.Context, a *chaintest.Anvil, relayer common.Address, startBlock uint64, res *SettlerResult) error {
	if err := awaitDrained(ctx, a, relayer); err != nil {
		return err
	}
	sb, err := readSettlerBlocks(ctx, a, relayer, startBlock, res)
	if err != nil {
		return err
	}
	if len(sb.blocks) == 0 {
		return errors.New("no block carried a settlement")
	}
	sb.summarize(res)
	return nil
}

// awaitDrained returns once every transaction the relayer sent is mined.
func awaitDrained(ctx context.Context, a *chaintest.Anvil, relayer common.Address) error {
	for {
		pending, err := a.Client.PendingNonceAt(ctx, relayer)
		if err != nil {
			return err
		}
		mined, err := a.Client.NonceAt(ctx, relayer, nil)
		if err != nil {
			return err
		}
		if pending == mined {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// readSettlerBlocks reads the receipts of every block after startBlock,
// counting the relayer's transactions, their gas, reverts (into res) and
// the transfers their logs prove.
func readSettlerBlocks(ctx context.Context, a *chaintest.Anvil, relayer common.Address, startBlock uint64, res *SettlerResult) (*settlerBlocks, error) {
	last, err := a.Client.BlockNumber(ctx)
	if err != nil {
		return nil, err
	}
	used := crypto.Keccak256Hash([]byte("AuthorizationUsed(address,bytes32)"))
	sb := &settlerBlocks{}
	for num := startBlock + 1; num <= last; num++ {
		var rs []struct {
			From    common.Address `json:"from"`
			GasUsed hexutil.Uint64 `json:"gasUsed"`
			Status  hexutil.Uint64 `json:"status"`
			Logs    []struct {
				Address common.Address `json:"address"`
				Topics  []common.Hash  `json:"topics"`
			} `json:"logs"`
		}
		if err := a.Client.Client().CallContext(ctx, &rs, "eth_getBlockReceipts", hexutil.EncodeUint64(num)); err != nil {
			return nil, err
		}
		b := settlerBlock{}
		for _, r := range rs {
			if r.From != relayer {
				continue
			}
			b.txs++
			sb.gas += uint64(r.GasUsed)
			if r.Status == 0 {
				res.Reverted++
			}
			for _, l := range r.Logs {
				if l.Address == a.Network.Asset && len(l.Topics) == 3 && l.Topics[0] == used {
					b.settlements++
				}
			}
		}
		if b.txs == 0 {
			continue
		}
		h, err := a.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(num))
		if err != nil {
			return nil, err
		}
		b.gasUsed, b.limit, b.time = h.GasUsed, h.GasLimit, h.Time
		if len(sb.blocks) == 0 {
			prev, err := a.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(num-1))
			if err != nil {
				return nil, err
			}
			sb.firstTime = prev.Time
		}
		sb.blocks = append(sb.blocks, b)
		sb.total += b.settlements
	}
	return sb, nil
}

// summarize fills res with the rates and fills the blocks show: held (up
// to the last block at 90% of the fullest), overall, peak, gas.
func (sb *settlerBlocks) summarize(res *SettlerResult) {
	blocks, total := sb.blocks, sb.total
	res.Reverted += res.Settlements - total // sent but not carried out
	res.Blocks = len(blocks)
	var peak int
	var fill float64
	for _, b := range blocks {
		res.Transactions += b.txs
		peak = max(peak, b.settlements)
		fill += float64(b.gasUsed) / float64(b.limit)
	}
	span := blocks[len(blocks)-1].time - sb.firstTime
	res.OverallPerSec = float64(total) / float64(max(span, 1))
	held, full := 0, 0
	for i, b := range blocks {
		if 10*b.settlements >= 9*peak {
			full = i
		}
	}
	for _, b := range blocks[:full+1] {
		held += b.settlements
	}
	res.PerSec = float64(held) / float64(max(blocks[full].time-sb.firstTime, 1))
	res.PeakBlockPerSec = float64(peak) / settlerBlockTime.Seconds()
	res.GasPerSettlement = float64(sb.gas) / float64(max(total, 1))
	res.SettlementsPerTx = float64(total) / float64(res.Transactions)
	res.TxsPerBlock = float64(res.Transactions) / float64(len(blocks))
	res.BlockGasFillPercent = 100 * fill / float64(len(blocks))
	res.MaxPerSecAtThisGas = settlerGasLimit / res.GasPerSettlement / settlerBlockTime.Seconds()
	perBlock := make([]int, len(blocks))
	for i, b := range blocks {
		perBlock[i] = b.settlements
	}
	fmt.Printf("settler: settlements per block %v over %d s of chain time\n", perBlock, span)
}
