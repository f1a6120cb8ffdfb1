package evm

import (
	_ "embed"
	"encoding/binary"
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

// tryAggregateSelector is tryAggregate(bool,(address,bytes)[])'s selector.
var tryAggregateSelector = [4]byte(multicallABI.Methods["tryAggregate"].ID)

// tryAggregateCalldata packs tryAggregate(requireSuccess, calls), byte for
// byte what the ABI packer writes (a fuzz target holds it to it), without
// its reflection: one allocation instead of ~40 per transfer and ~60 µs
// per batch on the settler's path.
func tryAggregateCalldata(requireSuccess bool, calls []call3) []byte {
	size := 4 + 3*32 + len(calls)*32 // the two head words, the length, the offsets
	for _, c := range calls {
		size += 3*32 + padded(len(c.CallData))
	}
	out := make([]byte, size)
	copy(out, tryAggregateSelector[:])
	w := out[4:]
	if requireSuccess {
		w[31] = 1
	}
	putUint(w[32:64], 0x40) // the calls start after the two head words
	arr := w[64:]
	putUint(arr[0:32], uint64(len(calls)))
	offsets, tail := arr[32:], arr[32+len(calls)*32:]
	at := len(calls) * 32 // the tuples, from the start of the offsets
	for i, c := range calls {
		putUint(offsets[i*32:i*32+32], uint64(at))
		t := tail[at-len(calls)*32:]
		copy(t[12:32], c.Target[:])
		putUint(t[32:64], 0x40)
		putUint(t[64:96], uint64(len(c.CallData)))
		copy(t[96:], c.CallData)
		at += 3*32 + padded(len(c.CallData))
	}
	return out
}

// padded rounds n up to whole 32-byte words.
func padded(n int) int { return (n + 31) / 32 * 32 }

// putUint writes v as a big-endian 32-byte word.
func putUint(w []byte, v uint64) {
	binary.BigEndian.PutUint64(w[24:32], v)
}

// unpackTryAggregate decodes tryAggregate's per-call results: the ABI
// decoder's answer (a fuzz target holds it to it) without its reflection.
// A malformed answer is an error, never a panic.
func unpackTryAggregate(out []byte) ([]callResult, error) {
	fail := func(what string) ([]callResult, error) {
		return nil, fmt.Errorf("evm: decoding tryAggregate results: %s", what)
	}
	arr, ok := wordAt(out, 0)
	if !ok || arr > uint64(len(out)) {
		return fail("no array offset")
	}
	n, ok := wordAt(out, arr)
	if !ok || n > uint64(len(out))/32 {
		return fail("no array length")
	}
	base := arr + 32
	res := make([]callResult, n)
	for i := range n {
		off, ok := wordAt(out, base+i*32)
		if !ok || off > uint64(len(out)) {
			return fail("bad tuple offset")
		}
		t := base + off
		success, ok1 := wordAt(out, t)
		boff, ok2 := wordAt(out, t+32)
		if !ok1 || !ok2 || success > 1 || boff > uint64(len(out)) {
			return fail("bad tuple")
		}
		l, ok := wordAt(out, t+boff)
		start := t + boff + 32
		if !ok || l > uint64(len(out)) || start+l > uint64(len(out)) {
			return fail("bad returnData")
		}
		res[i] = callResult{Success: success == 1, ReturnData: append([]byte{}, out[start:start+l]...)}
	}
	return res, nil
}

// wordAt reads the 32-byte word at off as a uint64; false when it is out of
// range or does not fit in 64 bits.
func wordAt(b []byte, off uint64) (uint64, bool) {
	if off > uint64(len(b)) || uint64(len(b))-off < 32 {
		return 0, false
	}
	w := b[off : off+32]
	for _, c := range w[:24] {
		if c != 0 {
			return 0, false
		}
	}
	return binary.BigEndian.Uint64(w[24:]), true
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
