package evm

import (
	"math/big"
	"testing"

	"github.com/farebox/farebox/x402"
)

func TestRevertStringsMapToX402Reasons(t *testing.T) {
	for _, tc := range []struct{ revert, want string }{
		{"FiatTokenV2: authorization is used or canceled", x402.ReasonNonceAlreadyUsed},
		{"FiatTokenV2: authorization is not yet valid", x402.ReasonValidAfter},
		{"FiatTokenV2: authorization is expired", x402.ReasonValidBefore},
		{"FiatTokenV2: invalid signature", x402.ReasonSignature},
		{"ECRecover: invalid signature 's' value", x402.ReasonSignature},
		{"ERC20: transfer amount exceeds balance", x402.ReasonInsufficientFunds},
		{"Pausable: paused", x402.ReasonInvalidTxState},
		{"Blacklistable: account is blacklisted", x402.ReasonInvalidTxState},
		{"something else", x402.ReasonInvalidTxState},
	} {
		if got := reasonForRevert(tc.revert); got != tc.want {
			t.Errorf("reasonForRevert(%q) = %s, want %s", tc.revert, got, tc.want)
		}
	}
}

func TestTransferCalldataPicksTheOverloadBySignatureLength(t *testing.T) {
	p := &x402.Payment{Authorization: x402.Authorization{Value: big.NewInt(1), ValidAfter: big.NewInt(0), ValidBefore: big.NewInt(9)}}
	vrs := tokenABI.GetABI().Methods["transferWithAuthorization0"].ID
	withBytes := tokenABI.GetABI().Methods["transferWithAuthorization"].ID
	for _, tc := range []struct {
		name     string
		sig      []byte
		selector []byte
		v        byte
	}{
		{"65 bytes with v 0", append(make([]byte, 64), 0), vrs, 27},
		{"65 bytes with v 28", append(make([]byte, 64), 28), vrs, 28},
		{"130 bytes", make([]byte, 130), withBytes, 0},
	} {
		p.Signature = tc.sig
		data, err := transferCalldata(p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(data[:4]) != string(tc.selector) {
			t.Fatalf("%s: selector %x, want %x", tc.name, data[:4], tc.selector)
		}
		if tc.v != 0 && data[4+6*32+31] != tc.v {
			t.Fatalf("%s: v = %d, want %d", tc.name, data[4+6*32+31], tc.v)
		}
	}
	p.Signature = make([]byte, 64)
	if _, err := transferCalldata(p); err == nil {
		t.Fatal("a 64-byte signature was accepted")
	}
}
