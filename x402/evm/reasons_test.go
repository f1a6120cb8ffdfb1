package evm

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
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
	// The selectors of FiatToken's two overloads, from their signatures.
	vrs := crypto.Keccak256([]byte("transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)"))[:4]
	withBytes := crypto.Keccak256([]byte("transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)"))[:4]
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

func TestTokenCallsUseFiatTokenSelectors(t *testing.T) {
	who := common.HexToAddress("0x00000000000000000000000000000000000000a1")
	for _, tc := range []struct {
		data      []byte
		signature string
	}{
		{tokenCall("balanceOf", who), "balanceOf(address)"},
		{tokenCall("name"), "name()"},
		{tokenCall("version"), "version()"},
		{tokenCall("DOMAIN_SEPARATOR"), "DOMAIN_SEPARATOR()"},
		{tokenCall("authorizationState", who, [32]byte{1}), "authorizationState(address,bytes32)"},
	} {
		if want := crypto.Keccak256([]byte(tc.signature))[:4]; string(tc.data[:4]) != string(want) {
			t.Errorf("%s: selector %x, want %x", tc.signature, tc.data[:4], want)
		}
	}
}

func TestTokenResultDecodesEachReturnType(t *testing.T) {
	word := func(b ...byte) []byte { return common.LeftPadBytes(b, 32) }
	if bal, err := tokenResult[*big.Int]("balanceOf", word(0x01, 0x00)); err != nil || bal.Int64() != 256 {
		t.Fatalf("balanceOf = %v, %v; want 256", bal, err)
	}
	if used, err := tokenResult[bool]("authorizationState", word(1)); err != nil || !used {
		t.Fatalf("authorizationState = %v, %v; want true", used, err)
	}
	sep := [32]byte{31: 7}
	if got, err := tokenResult[[32]byte]("DOMAIN_SEPARATOR", sep[:]); err != nil || got != sep {
		t.Fatalf("DOMAIN_SEPARATOR = %x, %v; want %x", got, err, sep)
	}
	str := append(append(word(0x20), word(4)...), common.RightPadBytes([]byte("USDC"), 32)...)
	if name, err := tokenResult[string]("name", str); err != nil || name != "USDC" {
		t.Fatalf("name = %q, %v; want USDC", name, err)
	}
	if _, err := tokenResult[bool]("authorizationState", nil); err == nil {
		t.Fatal("an empty answer decoded")
	}
}
