package evm

import (
	"context"
	"errors"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// rawClient is the JSON-RPC client under an *ethclient.Client (and under
// the dev chain's in-process client): it reaches eth_call's block
// overrides, which the typed client does not expose.
type rawClient interface {
	Client() *rpc.Client
}

// callArgs is an eth_call / eth_estimateGas transaction object.
type callArgs struct {
	From common.Address  `json:"from"`
	To   *common.Address `json:"to"`
	Data hexutil.Bytes   `json:"data"`
	Gas  *hexutil.Uint64 `json:"gas,omitempty"`
}

// blockOverrides sets the simulated block's timestamp: geth and anvil both
// read {"time": ...} as eth_call's and eth_estimateGas's fourth parameter.
type blockOverrides struct {
	Time hexutil.Uint64 `json:"time"`
}

// earliestLanding is the earliest timestamp the block carrying a transfer
// sent now can have: after the head's, and not before the wall clock's
// second (nodes stamp blocks with their clock). A transfer whose validAfter
// is below it cannot land too early.
func earliestLanding(headTime uint64) uint64 {
	return max(headTime+1, uint64(time.Now().Unix()))
}

// nextBlockTime is the timestamp the next block is expected to carry: the
// simulation of a payment checked now runs at it, so an authorization valid
// from the current second (validAfter = now) is not refused for the head
// block's older timestamp.
func nextBlockTime(headTime uint64) uint64 {
	return max(headTime+1, uint64(time.Now().Unix())+1)
}

// callAt runs msg with eth_call on the latest state in a block stamped at
// (0 keeps the node's timestamp): the state the transfer will meet, at the
// time it can land. The latest state rather than the pending block, because
// anvil re-executes its whole pool for every pending call, which under load
// costs more than the batch itself; transfers already in flight are the
// settlement engine's in-flight accounting's business. Without a raw
// JSON-RPC client it falls back to a plain eth_call on the latest block.
func callAt(ctx context.Context, b Backend, msg ethereum.CallMsg, at uint64) ([]byte, error) {
	rc, ok := b.(rawClient)
	if !ok || rc.Client() == nil {
		return b.CallContract(ctx, msg, nil)
	}
	var out hexutil.Bytes
	ctx, cancel := boundedBy(ctx, b)
	defer cancel()
	err := rc.Client().CallContext(ctx, &out, "eth_call", toArgs(msg), "latest", nil, overrides(at))
	return out, err
}

// estimateAt is eth_estimateGas like callAt.
func estimateAt(ctx context.Context, b Backend, msg ethereum.CallMsg, at uint64) (uint64, error) {
	rc, ok := b.(rawClient)
	if !ok || rc.Client() == nil {
		return b.EstimateGas(ctx, msg)
	}
	var gas hexutil.Uint64
	ctx, cancel := boundedBy(ctx, b)
	defer cancel()
	err := rc.Client().CallContext(ctx, &gas, "eth_estimateGas", toArgs(msg), "latest", nil, overrides(at))
	return uint64(gas), err
}

func toArgs(msg ethereum.CallMsg) callArgs {
	a := callArgs{From: msg.From, To: msg.To, Data: msg.Data}
	if msg.Gas != 0 {
		g := hexutil.Uint64(msg.Gas)
		a.Gas = &g
	}
	return a
}

func overrides(at uint64) *blockOverrides {
	if at == 0 {
		return nil
	}
	return &blockOverrides{Time: hexutil.Uint64(at)}
}

// isRejection tells a node's explicit refusal of a request (a JSON-RPC
// error object) from a transport failure, after which the outcome is unknown.
func isRejection(err error) bool {
	var re rpc.Error
	return errors.As(err, &re)
}
