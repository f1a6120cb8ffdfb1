package x402

import (
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// fixture is one priced resource on Base Sepolia and a payer with a fixed key.
type fixture struct {
	t     testing.TB
	now   time.Time
	key   *ecdsa.PrivateKey
	from  common.Address
	payTo common.Address
	req   *Requirement
	nonce byte
}

func newFixture(t testing.TB) *fixture {
	key, err := crypto.HexToECDSA("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	if err != nil {
		t.Fatal(err)
	}
	payTo := common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C")
	return &fixture{t: t, now: time.Unix(1_760_000_000, 0), key: key, from: crypto.PubkeyToAddress(key.PublicKey), payTo: payTo,
		req: &Requirement{Scheme: SchemeExact, Network: BaseSepolia, Amount: big.NewInt(1000), PayTo: payTo,
			MaxTimeoutSeconds: 300, Resource: "https://farebox.example/v1/responses", Description: "model m", MimeType: "application/json"}}
}

func (f *fixture) verifier() *Verifier { return &Verifier{Now: func() time.Time { return f.now }} }

// authorization is what a reference client signs for f.req right now.
func (f *fixture) authorization() Authorization {
	f.nonce++
	a := Authorization{From: f.from, To: f.payTo, Value: big.NewInt(1000),
		ValidAfter: big.NewInt(f.now.Unix() - 600), ValidBefore: big.NewInt(f.now.Unix() + 300)}
	a.Nonce[0], a.Nonce[31] = f.nonce, 0xee
	return a
}

// sign signs a over network n with key, v in {27, 28}.
func sign(t testing.TB, key *ecdsa.PrivateKey, n *Network, a *Authorization) []byte {
	d := n.Digest(a)
	sig, err := crypto.Sign(d[:], key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return sig
}

// payment builds a signed payment of the given version; edit, when set,
// changes the authorization before it is signed.
func (f *fixture) payment(version int, edit func(a *Authorization)) *Payment {
	a := f.authorization()
	if edit != nil {
		edit(&a)
	}
	p := &Payment{Version: version, Scheme: SchemeExact, Network: BaseSepolia.CAIP2, Authorization: a}
	if version == 1 {
		p.Network = BaseSepolia.V1Name
	}
	p.Signature = sign(f.t, f.key, BaseSepolia, &p.Authorization)
	return p
}

// header encodes p as its header value for f.req.
func (f *fixture) header(p *Payment) string {
	h, err := EncodePayment(p, f.req)
	if err != nil {
		f.t.Fatal(err)
	}
	return h
}

// edited decodes a good header's JSON into a map, applies edit, re-encodes.
func (f *fixture) edited(version int, edit func(m map[string]any)) string {
	p := f.payment(version, nil)
	f.header(p)
	var m map[string]any
	if err := json.Unmarshal(p.Raw, &m); err != nil {
		f.t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		f.t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// authOf returns the authorization object inside a decoded payment map.
func authOf(m map[string]any) map[string]any {
	return m["payload"].(map[string]any)["authorization"].(map[string]any)
}
