package evm

import (
	"errors"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/farebox/farebox/x402"
)

// tokenABIJSON is the part of an EIP-3009 token's interface farebox calls:
// the ERC-20 balance, the EIP-712 domain (name, version, separator) and
// EIP-3009's authorizationState and both transferWithAuthorization
// overloads, with Circle's FiatToken v2.2 (USDC) signatures.
const tokenABIJSON = `[
{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"account","type":"address"}],"outputs":[{"name":"","type":"uint256"}]},
{"type":"function","name":"name","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"string"}]},
{"type":"function","name":"version","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"string"}]},
{"type":"function","name":"DOMAIN_SEPARATOR","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"bytes32"}]},
{"type":"function","name":"authorizationState","stateMutability":"view","inputs":[{"name":"authorizer","type":"address"},{"name":"nonce","type":"bytes32"}],"outputs":[{"name":"","type":"bool"}]},
{"type":"function","name":"transferWithAuthorization","stateMutability":"nonpayable","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"},{"name":"v","type":"uint8"},{"name":"r","type":"bytes32"},{"name":"s","type":"bytes32"}],"outputs":[]},
{"type":"function","name":"transferWithAuthorization","stateMutability":"nonpayable","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"validAfter","type":"uint256"},{"name":"validBefore","type":"uint256"},{"name":"nonce","type":"bytes32"},{"name":"signature","type":"bytes"}],"outputs":[]}
]`

// tokenABI is tokenABIJSON parsed. go-ethereum names the second overload
// in the list transferWithAuthorization0: that is the bytes one.
var tokenABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(tokenABIJSON))
	if err != nil {
		panic(err)
	}
	return a
}()

// tokenCall encodes a call to one of tokenABI's methods whose arguments are
// fixed by the code calling it (so an error is a bug here).
func tokenCall(method string, args ...any) []byte {
	data, err := tokenABI.Pack(method, args...)
	if err != nil {
		panic(err)
	}
	return data
}

// tokenResult decodes the single return value of one of tokenABI's
// methods into a T.
func tokenResult[T any](method string, out []byte) (T, error) {
	var zero T
	vals, err := tokenABI.Unpack(method, out)
	if err != nil {
		return zero, err
	}
	if len(vals) != 1 {
		return zero, errors.New("evm: expected one return value from " + method)
	}
	return *abi.ConvertType(vals[0], new(T)).(*T), nil
}

// transferCalldata encodes transferWithAuthorization for a payment: the
// (v, r, s) overload for a 65-byte signature, as every USDC version has it,
// and the bytes overload (FiatToken v2.2, EIP-1271 wallets) for longer ones.
func transferCalldata(p *x402.Payment) ([]byte, error) {
	a := &p.Authorization
	if a.Value == nil || a.ValidAfter == nil || a.ValidBefore == nil {
		return nil, errors.New("authorization has missing amounts")
	}
	sig := p.Signature
	if len(sig) < 65 {
		return nil, errors.New("signature shorter than 65 bytes")
	}
	if len(sig) > 65 {
		return tokenABI.Pack("transferWithAuthorization0", a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, sig)
	}
	v := sig[64]
	if v < 27 {
		v += 27
	}
	if !word(a.Value) || !word(a.ValidAfter) || !word(a.ValidBefore) {
		var r, s [32]byte
		copy(r[:], sig[0:32])
		copy(s[:], sig[32:64])
		return tokenABI.Pack("transferWithAuthorization", a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, r, s)
	}
	// All nine arguments are static words: encoded in place, one allocation
	// (the ABI packer's reflection costs 32 and ~6 µs per call).
	out := make([]byte, 4+9*32)
	copy(out, transferWithAuthorizationVRS[:])
	w := out[4:]
	copy(w[12:32], a.From[:])
	copy(w[32+12:64], a.To[:])
	a.Value.FillBytes(w[64:96])
	a.ValidAfter.FillBytes(w[96:128])
	a.ValidBefore.FillBytes(w[128:160])
	copy(w[160:192], a.Nonce[:])
	w[223] = v
	copy(w[224:256], sig[0:32])
	copy(w[256:288], sig[32:64])
	return out, nil
}

// transferWithAuthorizationVRS is the selector of
// transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32).
var transferWithAuthorizationVRS = [4]byte{0xe3, 0xee, 0x16, 0x0e}

// word reports whether x fits an ABI uint256.
func word(x *big.Int) bool { return x.Sign() >= 0 && x.BitLen() <= 256 }
