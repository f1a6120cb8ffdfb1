package upto

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// FuzzDecodePayload: arbitrary payloads and extensions never panic the
// decoder, the verifier or the calldata builder; refusals are *x402.Error.
func FuzzDecodePayload(f *testing.F) {
	key, _ := crypto.GenerateKey()
	now := time.Unix(1_800_000_000, 0)
	cl := &client{key: key, chainID: big.NewInt(84532), permit2: contracts.CanonicalPermit2, proxy: contracts.CanonicalUptoPermit2Proxy,
		token: common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e"), tokenName: "USDC", tokenVersion: "2"}
	net := x402.NewNetwork("", "", cl.chainID, cl.token, "USDC", "2")
	req := &x402.Requirement{Scheme: Scheme, Network: net, Amount: big.NewInt(50000), PayTo: common.HexToAddress("0xbeef"), MaxTimeoutSeconds: 300}
	fac := common.HexToAddress("0xfac")
	payload, ext := cl.payment(f, req, fac, now.Unix()+300, big.NewInt(7), 0)
	f.Add(payload, ext)
	f.Add(payload, []byte(nil))
	v := &Verifier{Contracts: NewContracts(cl.chainID, cl.permit2, cl.proxy), Facilitator: fac, Now: func() time.Time { return now }}
	f.Fuzz(func(t *testing.T, payload, ext []byte) {
		p, err := DecodePayload(payload, ext)
		var xe *x402.Error
		if err != nil {
			if !errors.As(err, &xe) {
				t.Fatalf("DecodePayload returned a %T", err)
			}
			return
		}
		if err := v.Verify(p, req); err != nil && !errors.As(err, &xe) {
			t.Fatalf("Verify returned a %T", err)
		}
		if _, err := SettleCalldata(p, big.NewInt(1)); err != nil && !errors.As(err, &xe) {
			t.Fatalf("SettleCalldata returned a %T", err)
		}
	})
}

// BenchmarkVerify is the local cost of an upto payment (checks, digest, recovery).
func BenchmarkVerify(b *testing.B) {
	key, _ := crypto.GenerateKey()
	cl := &client{key: key, chainID: big.NewInt(84532), permit2: contracts.CanonicalPermit2, proxy: contracts.CanonicalUptoPermit2Proxy,
		token: common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e"), tokenName: "USDC", tokenVersion: "2"}
	net := x402.NewNetwork("", "", cl.chainID, cl.token, "USDC", "2")
	req := &x402.Requirement{Scheme: Scheme, Network: net, Amount: big.NewInt(50000), PayTo: common.HexToAddress("0xbeef"), MaxTimeoutSeconds: 300}
	fac := common.HexToAddress("0xfac")
	payload, _ := cl.payment(b, req, fac, time.Now().Unix()+300, big.NewInt(7), -1)
	p, err := DecodePayload(payload, nil)
	if err != nil {
		b.Fatal(err)
	}
	v := &Verifier{Contracts: NewContracts(cl.chainID, cl.permit2, cl.proxy), Facilitator: fac}
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Verify(p, req); err != nil {
			b.Fatal(err)
		}
	}
}
