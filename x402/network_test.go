package x402

import (
	"crypto/rand"
	"math/big"
	mrand "math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// customNetwork is a dev chain the way config would describe one.
var customNetwork = NewNetwork("", "", big.NewInt(1337), common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3"), "Farebox Test USD", "1")

func randomAuthorization(r *mrand.Rand) *Authorization {
	a := &Authorization{
		Value:       new(big.Int),
		ValidAfter:  big.NewInt(r.Int64N(1 << 40)),
		ValidBefore: big.NewInt(r.Int64N(1 << 40)),
	}
	v := make([]byte, 1+r.IntN(32))
	rand.Read(v)
	a.Value.SetBytes(v)
	rand.Read(a.From[:])
	rand.Read(a.To[:])
	rand.Read(a.Nonce[:])
	return a
}

// typedDataDigest is go-ethereum's own EIP-712 hashing, the cross-check.
func typedDataDigest(t *testing.T, n *Network, a *Authorization) [32]byte {
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
				{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"TransferWithAuthorization": {{Name: "from", Type: "address"}, {Name: "to", Type: "address"},
				{Name: "value", Type: "uint256"}, {Name: "validAfter", Type: "uint256"},
				{Name: "validBefore", Type: "uint256"}, {Name: "nonce", Type: "bytes32"}},
		},
		PrimaryType: "TransferWithAuthorization",
		Domain: apitypes.TypedDataDomain{Name: n.Name, Version: n.Version,
			ChainId: (*math.HexOrDecimal256)(n.ChainID), VerifyingContract: n.Asset.Hex()},
		Message: apitypes.TypedDataMessage{
			"from": a.From.Hex(), "to": a.To.Hex(), "value": a.Value.String(),
			"validAfter": a.ValidAfter.String(), "validBefore": a.ValidBefore.String(),
			"nonce": hexutil.Encode(a.Nonce[:]),
		},
	}
	h, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatalf("apitypes: %v", err)
	}
	var out [32]byte
	copy(out[:], h)
	return out
}

func TestDigestMatchesGoEthereumTypedData(t *testing.T) {
	r := mrand.New(mrand.NewPCG(1, 2))
	for _, n := range []*Network{Base, BaseSepolia, customNetwork} {
		for i := 0; i < 20; i++ {
			a := randomAuthorization(r)
			if got, want := n.Digest(a), typedDataDigest(t, n, a); got != want {
				t.Fatalf("%s: Digest = %x, apitypes = %x", n.CAIP2, got, want)
			}
		}
	}
}

func TestDigestOfLiteralNetworkEqualsPrecomputed(t *testing.T) {
	lit := &Network{CAIP2: Base.CAIP2, V1Name: "base", ChainID: big.NewInt(8453), Asset: Base.Asset, Name: Base.Name, Version: Base.Version}
	a := randomAuthorization(mrand.New(mrand.NewPCG(3, 4)))
	if lit.Digest(a) != Base.Digest(a) {
		t.Fatal("a network built as a literal hashes differently from NewNetwork's")
	}
}

func TestDigestDependsOnChain(t *testing.T) {
	a := randomAuthorization(mrand.New(mrand.NewPCG(5, 6)))
	other := NewNetwork("", "", big.NewInt(8453), BaseSepolia.Asset, BaseSepolia.Name, BaseSepolia.Version)
	if other.Digest(a) == BaseSepolia.Digest(a) {
		t.Fatal("same digest on two chain ids")
	}
}

func TestRegistryLooksUpBothNames(t *testing.T) {
	reg := DefaultRegistry()
	if err := reg.Add(customNetwork); err != nil {
		t.Fatal(err)
	}
	if got := reg.ByCAIP2("eip155:8453"); got != Base {
		t.Errorf("ByCAIP2(eip155:8453) = %v", got)
	}
	if got := reg.ByV1Name("base-sepolia"); got != BaseSepolia {
		t.Errorf("ByV1Name(base-sepolia) = %v", got)
	}
	if got := reg.Lookup(2, "eip155:1337"); got != customNetwork {
		t.Errorf("Lookup(2, eip155:1337) = %v", got)
	}
	if got := reg.Lookup(1, "eip155:8453"); got != nil {
		t.Errorf("a CAIP-2 id resolved as a v1 name: %v", got)
	}
	if got := reg.Lookup(1, ""); got != nil {
		t.Errorf("the empty v1 name resolved to %v", got)
	}
	if err := reg.Add(NewNetwork("", "", big.NewInt(8453), Base.Asset, "x", "1")); err == nil {
		t.Error("a second eip155:8453 was accepted")
	}
	if err := reg.Add(&Network{CAIP2: "eip155:1", ChainID: big.NewInt(2), Asset: Base.Asset, Name: "a", Version: "1"}); err == nil {
		t.Error("a CAIP-2 id that contradicts the chain id was accepted")
	}
	if want := len(DefaultRegistry().Networks()) + 1; len(reg.Networks()) != want {
		t.Errorf("Networks() = %d entries, want %d (the built-in ones and the custom one)", len(reg.Networks()), want)
	}
}
