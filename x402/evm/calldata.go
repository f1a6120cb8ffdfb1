package evm

import (
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm/token"
)

// tokenABI packs and unpacks calls to any EIP-3009 token: FareboxUSD's ABI
// has the same selectors as Circle's FiatToken for every function used here.
var tokenABI = token.NewFareboxUSD()

// eip1271Magic is the value isValidSignature returns for a valid signature.
var eip1271Magic = [4]byte{0x16, 0x26, 0xba, 0x7e}

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
		return tokenABI.TryPackTransferWithAuthorization(a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, sig)
	}
	v := sig[64]
	if v < 27 {
		v += 27
	}
	if !word(a.Value) || !word(a.ValidAfter) || !word(a.ValidBefore) {
		var r, s [32]byte
		copy(r[:], sig[0:32])
		copy(s[:], sig[32:64])
		return tokenABI.TryPackTransferWithAuthorization0(a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, r, s)
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

// isValidSignatureCalldata encodes EIP-1271 isValidSignature(bytes32, bytes).
func isValidSignatureCalldata(digest [32]byte, sig []byte) []byte {
	out := make([]byte, 0, 4+32*4+len(sig)+32)
	out = append(out, eip1271Magic[:]...)
	out = append(out, digest[:]...)
	out = append(out, common.LeftPadBytes(big.NewInt(64).Bytes(), 32)...)
	out = append(out, common.LeftPadBytes(big.NewInt(int64(len(sig))).Bytes(), 32)...)
	out = append(out, sig...)
	if pad := len(sig) % 32; pad != 0 {
		out = append(out, make([]byte, 32-pad)...)
	}
	return out
}
