package evm

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// TestTransferCalldataMatchesTheABI holds the in-place encoding of the
// (v, r, s) overload to the ABI packer's, byte for byte.
func TestTransferCalldataMatchesTheABI(t *testing.T) {
	max256 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	for i, vals := range [][3]*big.Int{
		{big.NewInt(1000), big.NewInt(0), big.NewInt(1_900_000_000)},
		{big.NewInt(0), big.NewInt(1), big.NewInt(2)},
		{max256, max256, max256},
	} {
		for _, v := range []byte{0, 1, 27, 28} {
			p := &x402.Payment{Signature: make([]byte, 65)}
			for k := range p.Signature {
				p.Signature[k] = byte(k*7 + i)
			}
			p.Signature[64] = v
			a := &p.Authorization
			a.From = common.HexToAddress("0x00112233445566778899aabbccddeeff00112233")
			a.To = common.HexToAddress("0xffeeddccbbaa99887766554433221100ffeeddcc")
			a.Value, a.ValidAfter, a.ValidBefore = vals[0], vals[1], vals[2]
			a.Nonce = common.HexToHash("0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20")
			got, err := transferCalldata(p)
			if err != nil {
				t.Fatal(err)
			}
			var r, s [32]byte
			copy(r[:], p.Signature[:32])
			copy(s[:], p.Signature[32:64])
			vv := v
			if vv < 27 {
				vv += 27
			}
			want, err := tokenABI.Pack("transferWithAuthorization", a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, vv, r, s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("case %d v=%d:\n got %x\nwant %x", i, v, got, want)
			}
		}
	}
	// Out of uint256's range: the packer decides (it refuses).
	p := &x402.Payment{Signature: make([]byte, 65)}
	p.Authorization.Value, p.Authorization.ValidAfter, p.Authorization.ValidBefore = big.NewInt(-1), big.NewInt(0), big.NewInt(1)
	if _, err := transferCalldata(p); err == nil {
		t.Error("a negative value was encoded")
	}
}

func BenchmarkTransferCalldata(b *testing.B) {
	p := &x402.Payment{Signature: make([]byte, 65)}
	p.Authorization.Value, p.Authorization.ValidAfter, p.Authorization.ValidBefore = big.NewInt(1000), big.NewInt(0), big.NewInt(1_900_000_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := transferCalldata(p); err != nil {
			b.Fatal(err)
		}
	}
}
