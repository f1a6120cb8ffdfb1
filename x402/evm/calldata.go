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
	var r, s [32]byte
	copy(r[:], sig[0:32])
	copy(s[:], sig[32:64])
	return tokenABI.TryPackTransferWithAuthorization0(a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, v, r, s)
}

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
