package eip712

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/farebox/farebox/x402"
)

var (
	chain   = big.NewInt(84532)
	permit2 = common.HexToAddress("0x000000000022D473030F116dDEE9F6B43aC78BA3")
	token   = common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e")
	alice   = common.HexToAddress("0x1111111111111111111111111111111111111111")
	bob     = common.HexToAddress("0x2222222222222222222222222222222222222222")
)

// reference hashes typed data with go-ethereum's apitypes.
func reference(t *testing.T, td apitypes.TypedData) [32]byte {
	t.Helper()
	h, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	var out [32]byte
	copy(out[:], h)
	return out
}

func TestUptoWitnessDigestMatchesApitypes(t *testing.T) {
	wt := NewWitnessType("Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)")
	p := &PermitWitnessTransferFrom{Token: token, Amount: big.NewInt(50000), Spender: bob,
		Nonce: new(big.Int).Lsh(big.NewInt(1), 200), Deadline: big.NewInt(1_900_000_000)}
	witness := Words(nil).Bytes32(crypto.Keccak256Hash([]byte("Witness(address to,address facilitator,uint256 validAfter)"))).
		Address(alice).Address(bob).Uint64(0).Hash()
	got := wt.Digest(Permit2Domain(chain, permit2), p, witness)
	want := reference(t, apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"PermitWitnessTransferFrom": {{Name: "permitted", Type: "TokenPermissions"}, {Name: "spender", Type: "address"},
				{Name: "nonce", Type: "uint256"}, {Name: "deadline", Type: "uint256"}, {Name: "witness", Type: "Witness"}},
			"TokenPermissions": {{Name: "token", Type: "address"}, {Name: "amount", Type: "uint256"}},
			"Witness":          {{Name: "to", Type: "address"}, {Name: "facilitator", Type: "address"}, {Name: "validAfter", Type: "uint256"}},
		},
		PrimaryType: "PermitWitnessTransferFrom",
		Domain:      apitypes.TypedDataDomain{Name: "Permit2", ChainId: (*math.HexOrDecimal256)(chain), VerifyingContract: permit2.Hex()},
		Message: apitypes.TypedDataMessage{
			"permitted": map[string]any{"token": token.Hex(), "amount": "50000"},
			"spender":   bob.Hex(), "nonce": p.Nonce.String(), "deadline": "1900000000",
			"witness": map[string]any{"to": alice.Hex(), "facilitator": bob.Hex(), "validAfter": "0"},
		},
	})
	if got != want {
		t.Fatalf("digest %x, apitypes %x", got, want)
	}
}

func TestTokenDigestsMatchApitypes(t *testing.T) {
	n := x402.NewNetwork("", "", chain, token, "USDC", "2")
	domain := apitypes.TypedDataDomain{Name: "USDC", Version: "2", ChainId: (*math.HexOrDecimal256)(chain), VerifyingContract: token.Hex()}
	domainType := []apitypes.Type{{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
		{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}}
	p := &Permit2612{Owner: alice, Spender: permit2, Value: big.NewInt(7), Nonce: big.NewInt(3), Deadline: big.NewInt(99)}
	want := reference(t, apitypes.TypedData{
		Types: apitypes.Types{"EIP712Domain": domainType, "Permit": {{Name: "owner", Type: "address"},
			{Name: "spender", Type: "address"}, {Name: "value", Type: "uint256"}, {Name: "nonce", Type: "uint256"}, {Name: "deadline", Type: "uint256"}}},
		PrimaryType: "Permit", Domain: domain,
		Message: apitypes.TypedDataMessage{"owner": alice.Hex(), "spender": permit2.Hex(), "value": "7", "nonce": "3", "deadline": "99"},
	})
	if got := PermitDigest(n, p); got != want {
		t.Errorf("permit digest %x, apitypes %x", got, want)
	}
	a := &x402.Authorization{From: alice, To: bob, Value: big.NewInt(1000), ValidAfter: big.NewInt(0),
		ValidBefore: big.NewInt(1_900_000_000), Nonce: [32]byte{1, 2, 3}}
	want = reference(t, apitypes.TypedData{
		Types: apitypes.Types{"EIP712Domain": domainType, "ReceiveWithAuthorization": {{Name: "from", Type: "address"},
			{Name: "to", Type: "address"}, {Name: "value", Type: "uint256"}, {Name: "validAfter", Type: "uint256"},
			{Name: "validBefore", Type: "uint256"}, {Name: "nonce", Type: "bytes32"}}},
		PrimaryType: "ReceiveWithAuthorization", Domain: domain,
		Message: apitypes.TypedDataMessage{"from": alice.Hex(), "to": bob.Hex(), "value": "1000", "validAfter": "0",
			"validBefore": "1900000000", "nonce": common.Hash(a.Nonce).Hex()},
	})
	if got := ReceiveDigest(n, a); got != want {
		t.Errorf("receive digest %x, apitypes %x", got, want)
	}
}

func TestRecover(t *testing.T) {
	key, _ := crypto.GenerateKey()
	digest := crypto.Keccak256Hash([]byte("farebox"))
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	if a, err := Recover(digest, sig); err != nil || a != crypto.PubkeyToAddress(key.PublicKey) {
		t.Fatalf("Recover = %s, %v", a, err)
	}
	// The high-s twin of a valid signature recovers the same key but is refused.
	high := append([]byte(nil), sig...)
	s := new(big.Int).SetBytes(high[32:64])
	new(big.Int).Sub(secpN, s).FillBytes(high[32:64])
	high[64] = 55 - high[64] // 27 <-> 28
	if _, err := Recover(digest, high); err != ErrSignatureHighS {
		t.Errorf("high s: %v", err)
	}
	if _, err := Recover(digest, sig[:64]); err != ErrSignatureLength {
		t.Errorf("short: %v", err)
	}
	bad := append([]byte(nil), sig...)
	bad[64] = 29
	if _, err := Recover(digest, bad); err != ErrSignatureV {
		t.Errorf("v=29: %v", err)
	}
}

func TestDecodeGasSponsoringIgnoresTheEchoedDeclaration(t *testing.T) {
	echo := []byte(`{"eip2612GasSponsoring":` + string(GasSponsoringDeclaration()) + `}`)
	if g, err := DecodeGasSponsoring(echo); g != nil || err != nil {
		t.Fatalf("the echoed declaration decoded as %+v, %v", g, err)
	}
	bad := []byte(`{"eip2612GasSponsoring":{"info":{"from":"0x1","asset":"0x2","spender":"0x3","amount":"1","nonce":"0","deadline":"9","signature":"0x00","version":"1"}}}`)
	if _, err := DecodeGasSponsoring(bad); err == nil {
		t.Fatal("a malformed permit decoded")
	}
}

// FuzzNoPermitAgreesWithTheFullDecode holds the fast path to the full
// decode: whenever noPermit says there is no permit, encoding/json's
// decode finds none and no error either.
func FuzzNoPermitAgreesWithTheFullDecode(f *testing.F) {
	f.Add(string(GasSponsoringDeclaration()))
	f.Add(`{"eip2612GasSponsoring":` + string(GasSponsoringDeclaration()) + `}`)
	f.Add(`{"eip2612GasSponsoring":{"info":{"from":"0x1","version":"1"}},"eip2612GasSponsoring":{"info":null}}`)
	f.Add(`{"eip2612GasSponsoring":{"info":{"from":"0x1","FROM":5}}}`)
	f.Add(`{"eip2612GasSponsoring":{"info":{"ſignature":"0x"}}}`)
	f.Add(`{"eip2612GasSponsoring":{"Info":{},"info":{}}}`)
	f.Add(`{"other":1}`)
	f.Add(`null`)
	f.Add(`[1]`)
	f.Add(`{"eip2612GasSponsoring":{"info":{"from":"0x0000000000000000000000000000000000000001","asset":"0x0000000000000000000000000000000000000001","spender":"0x0000000000000000000000000000000000000001","amount":"1","nonce":"1","deadline":"1","signature":"0x00","version":"1"}}}`)
	f.Fuzz(func(t *testing.T, ext string) {
		if len(ext) == 0 || !noPermit([]byte(ext)) {
			return
		}
		if g, err := decodeGasSponsoring([]byte(ext)); g != nil || err != nil {
			t.Fatalf("noPermit(%q) but the full decode gives %+v, %v", ext, g, err)
		}
	})
}

func TestNoPermitSeesTheEchoedDeclaration(t *testing.T) {
	echo := []byte(`{"eip2612GasSponsoring":` + string(GasSponsoringDeclaration()) + `,"other":{"x":[1,2]}}`)
	if !noPermit(echo) {
		t.Error("the echoed declaration is left to the full decode")
	}
	for _, ext := range []string{
		`{"eip2612GasSponsoring":{"info":{"from":"0x0000000000000000000000000000000000000001","asset":"0x0000000000000000000000000000000000000001","spender":"0x0000000000000000000000000000000000000001","amount":"1","nonce":"1","deadline":"1","signature":"0x00","version":"1"}}}`,
		`{"eip2612GasSponsoring":{"info":{"from":5}}}`,
		`{"eip2612GasSponsoring":null}`,
		`[]`,
	} {
		if noPermit([]byte(ext)) {
			t.Errorf("noPermit(%s): want the full decode", ext)
		}
	}
}

// BenchmarkDecodeEchoedDeclaration is what every payment from a client that
// echoes the 402's extensions costs: fast (noPermit) against the full decode.
func BenchmarkDecodeEchoedDeclaration(b *testing.B) {
	echo := []byte(`{"eip2612GasSponsoring":` + string(GasSponsoringDeclaration()) + `}`)
	for name, decode := range map[string]func([]byte) (*GasSponsoring, error){"fast": DecodeGasSponsoring, "full": decodeGasSponsoring} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if g, err := decode(echo); g != nil || err != nil {
					b.Fatal(g, err)
				}
			}
		})
	}
}
