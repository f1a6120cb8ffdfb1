package evm

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Multicall3 is the canonical Multicall3 address, the same on every public
// chain; batches of transfers go through its tryAggregate.
var Multicall3 = common.HexToAddress("0xcA11bde05977b3631167028862bE2a173976CA11")

//go:embed multicall3.hex
var multicall3Hex string

// Multicall3Code is Multicall3's runtime bytecode (as viem ships it), for
// chains that lack it: the dev chain's genesis, anvil_setCode in tests.
func Multicall3Code() []byte { return common.FromHex(strings.TrimSpace(multicall3Hex)) }

var multicallABI = mustABI(`[{"type":"function","name":"tryAggregate","stateMutability":"payable",
 "inputs":[{"name":"requireSuccess","type":"bool"},{"name":"calls","type":"tuple[]","components":[
  {"name":"target","type":"address"},{"name":"callData","type":"bytes"}]}],
 "outputs":[{"name":"returnData","type":"tuple[]","components":[
  {"name":"success","type":"bool"},{"name":"returnData","type":"bytes"}]}]}]`)

// authorizationUsedTopic is EIP-3009's AuthorizationUsed(address indexed
// authorizer, bytes32 indexed nonce): the per-transfer proof in a receipt.
var authorizationUsedTopic = crypto.Keccak256Hash([]byte("AuthorizationUsed(address,bytes32)"))

func mustABI(js string) abi.ABI {
	a, err := abi.JSON(strings.NewReader(js))
	if err != nil {
		panic(err)
	}
	return a
}

// call3 is one call of a Multicall3 batch, in the ABI's tuple shape.
type call3 struct {
	Target   common.Address
	CallData []byte
}

// callResult is one call's outcome in tryAggregate's answer.
type callResult struct {
	Success    bool
	ReturnData []byte
}

// tryAggregateCalldata packs tryAggregate(requireSuccess, calls).
func tryAggregateCalldata(requireSuccess bool, calls []call3) []byte {
	out, err := multicallABI.Pack("tryAggregate", requireSuccess, calls)
	if err != nil {
		panic(fmt.Sprintf("evm: packing tryAggregate: %v", err)) // static types: cannot fail
	}
	return out
}

// unpackTryAggregate decodes tryAggregate's per-call results.
func unpackTryAggregate(out []byte) ([]callResult, error) {
	vals, err := multicallABI.Unpack("tryAggregate", out)
	if err != nil || len(vals) != 1 {
		return nil, fmt.Errorf("evm: decoding tryAggregate results: %v", err)
	}
	var res []callResult
	if err := multicallABI.Methods["tryAggregate"].Outputs.Copy(&res, vals); err != nil {
		return nil, fmt.Errorf("evm: decoding tryAggregate results: %w", err)
	}
	return res, nil
}

// authorizationUsed reports whether r holds an AuthorizationUsed log for
// (from, nonce), emitted by asset when asset is not the zero address.
func authorizationUsed(r *types.Receipt, asset, from common.Address, nonce [32]byte) bool {
	for _, l := range r.Logs {
		if len(l.Topics) == 3 && l.Topics[0] == authorizationUsedTopic &&
			l.Topics[1] == common.BytesToHash(from.Bytes()) && l.Topics[2] == common.Hash(nonce) &&
			(asset == common.Address{} || l.Address == asset) {
			return true
		}
	}
	return false
}

// countUsed counts the AuthorizationUsed logs asset emitted in r.
func countUsed(r *types.Receipt, asset common.Address) int {
	n := 0
	for _, l := range r.Logs {
		if len(l.Topics) == 3 && l.Topics[0] == authorizationUsedTopic && l.Address == asset {
			n++
		}
	}
	return n
}
