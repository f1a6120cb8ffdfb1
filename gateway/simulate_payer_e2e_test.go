package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gethtypes "github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/payer"
)

// A payer whose nonce was used elsewhere before it pays farebox with it
// (the simulation's job to catch) under `simulate: payer`: the payer's
// first payment was simulated, so this one skips the simulation and the
// model starts, but the settler's own simulation refuses the transfer sent
// alongside it: the model is stopped, the answer is a 402 (nothing of the
// model's answer), and since the model ran for a payment that did not pay,
// the authorization is spent and the payer in debt: its next payments, a
// used nonce or a good one, are refused before the model. The chain:
// payTo received exactly the one served call, the payer spent it and its
// own decoys.
func TestHostileSimulatePerPayerUsedNonce(t *testing.T) {
	a := sharedAnvil(t)
	ctx := context.Background()
	relayer, err := a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pc := usdcPayments(a)
	pc.Settler = "chain"
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL, RelayerKeyEnv: relayerEnv, Simulate: gateway.SimulatePerPayer}
	f := startUSDCFarebox(t, a, pc, map[string]string{relayerEnv: hexutil.Encode(crypto.FromECDSA(relayer))})
	m := f.model
	key, from := fundedPayer(t, f, 10*atomics)
	req := f.offer(t, 2)
	call := func(p *x402.Payment) (int, string) {
		t.Helper()
		value, err := x402.EncodePayment(p, req)
		if err != nil {
			t.Fatal(err)
		}
		res, b := postBounded(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"hi"}`, x402.HeaderPaymentSignature, value)
		return res.StatusCode, string(b)
	}
	good := func() *x402.Payment {
		p, err := payer.NewSigner(key).Sign(req, 2)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	if code, body := call(good()); code != 200 || !strings.Contains(body, `"status":"completed"`) {
		t.Fatalf("first call: %d %s", code, body)
	}
	if n := m.calls.Load(); n != 1 {
		t.Fatalf("model calls after the first = %d, want 1", n)
	}

	// The payer spends a nonce on a decoy transfer of its own, then pays
	// farebox with the same nonce.
	p := withUsedNonce(t, a, key, from, good())
	if code, body := call(p); code != 402 || strings.Contains(body, `"output"`) || !strings.Contains(body, x402.ReasonNonceAlreadyUsed) {
		t.Fatalf("payment with a used nonce, payer vouched for: %d %s, want 402 %s without the answer", code, body, x402.ReasonNonceAlreadyUsed)
	}
	if n := m.calls.Load(); n != 2 {
		t.Fatalf("model calls = %d, want 2: the vouched payer's payment skips the simulation", n)
	}

	// The model ran for it unpaid: the payer is in debt, refused before
	// the model whatever it pays with.
	for _, p := range []*x402.Payment{withUsedNonce(t, a, key, from, good()), good()} {
		if code, body := call(p); code != 402 || !strings.Contains(body, "earlier payment") {
			t.Fatalf("a payment of the payer in debt: %d %s", code, body)
		}
	}
	if n := m.calls.Load(); n != 2 {
		t.Fatalf("model calls = %d, want still 2", n)
	}
	// The chain: one call served and paid, two decoys of 1.
	waitBalance(t, a, f.payTo, atomics)
	if spent := new(big.Int).Sub(big.NewInt(10*atomics), usdcBalance(t, a, from)); spent.Int64() != atomics+2 {
		t.Fatalf("payer spent %s, want %d (one call and two decoys of 1)", spent, atomics+2)
	}
}

// withUsedNonce spends p's nonce on chain first: key (p's payer, with gas)
// submits its own transferWithAuthorization of 1 atomic unit to a fresh
// address under the same nonce, and waits for it to be mined.
func withUsedNonce(t *testing.T, a *chaintest.Anvil, key *ecdsa.PrivateKey, from common.Address, p *x402.Payment) *x402.Payment {
	t.Helper()
	ctx := context.Background()
	if _, err := rand.Read(p.Authorization.Nonce[:]); err != nil {
		t.Fatal(err)
	}
	n := a.Network
	p.Signature = signDigest(t, key, n.Digest(&p.Authorization))
	decoy := p.Authorization
	decoy.To, decoy.Value = common.HexToAddress(freshAddress()), big.NewInt(1)
	sig := signDigest(t, key, n.Digest(&decoy))
	var r, s [32]byte
	copy(r[:], sig[:32])
	copy(s[:], sig[32:64])
	data := contracts.NewFareboxUSDv2().PackTransferWithAuthorization0(decoy.From, decoy.To, decoy.Value,
		decoy.ValidAfter, decoy.ValidBefore, decoy.Nonce, sig[64], r, s)
	nonce, err := a.Client.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	asset := n.Asset
	tx, err := gethtypes.SignNewTx(key, gethtypes.LatestSignerForChainID(big.NewInt(chaintest.ChainID)), &gethtypes.DynamicFeeTx{
		ChainID: big.NewInt(chaintest.ChainID), Nonce: nonce, GasTipCap: big.NewInt(2e9), GasFeeCap: big.NewInt(100e9),
		Gas: 200_000, To: &asset, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; {
		r, err := a.Client.TransactionReceipt(ctx, tx.Hash())
		if err == nil {
			if r.Status != gethtypes.ReceiptStatusSuccessful {
				t.Fatalf("the decoy transfer reverted")
			}
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("the decoy transfer was not mined: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// signDigest is key's 65-byte signature of digest with v in {27, 28}.
func signDigest(t testing.TB, key *ecdsa.PrivateKey, digest [32]byte) []byte {
	t.Helper()
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return sig
}

// waitBalance waits until who holds want atomic units (farebox answers
// once the transfer is broadcast; it is mined right after on this chain).
func waitBalance(t *testing.T, a *chaintest.Anvil, who common.Address, want int64) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		got := usdcBalance(t, a, who)
		if got.Int64() == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %s, want %d", who.Hex(), got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
