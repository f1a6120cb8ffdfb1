package gateway_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/facilitator"
	"github.com/farebox/farebox/x402/payer"
	oresponses "github.com/openai/openai-go/v3/responses"
)

var (
	refOnce    sync.Once
	refShared  *chaintest.Facilitator
	refRelayer string // the reference facilitator's relayer address
	refErr     error
)

// referenceFacilitator is the x402 reference facilitator (@x402/core +
// @x402/evm) on the shared anvil, one per test binary, with a relayer of
// its own; TestMain stops it.
func referenceFacilitator(t testing.TB) (*chaintest.Anvil, *chaintest.Facilitator) {
	t.Helper()
	a := sharedAnvil(t)
	refOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		key, err := a.NewRelayer(ctx)
		if err != nil {
			refErr = err
			return
		}
		refRelayer = crypto.PubkeyToAddress(key.PublicKey).Hex()
		if refShared, refErr = chaintest.StartReferenceFacilitator(ctx, a.RPCURL, key); refErr == nil {
			afterAll(refShared.Stop)
		}
	})
	if refErr != nil {
		t.Fatal(refErr)
	}
	return a, refShared
}

// startFacilitatorFarebox is farebox settling through the reference
// facilitator (payments.settler: facilitator), asking it to verify first
// when verify is set.
func startFacilitatorFarebox(t testing.TB, verify bool) (*usdcFarebox, *chaintest.Facilitator) {
	t.Helper()
	a, ref := referenceFacilitator(t)
	pc := usdcPayments(a)
	pc.Settler = "facilitator"
	pc.Facilitator = gateway.FacilitatorConfig{URL: ref.URL, Verify: verify}
	return startUSDCFarebox(t, a, pc, nil), ref
}

func TestReferenceFacilitatorSettlesFareboxPayments(t *testing.T) {
	for _, verify := range []bool{false, true} {
		for _, version := range []int{2, 1} {
			name := networkName(version)
			if verify {
				name += "/verify"
			}
			t.Run(name, func(t *testing.T) {
				f, ref := startFacilitatorFarebox(t, verify)
				var receipts []*x402.Receipt
				var sent []string
				cl := f.client(t, f.a.PayerKey, version, &receipts, &sent)
				payerBefore := usdcBalance(t, f.a, f.a.Payer)

				res, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: usdcModel, Input: userText("settled by the reference")})
				if err != nil {
					t.Fatalf("%v\nfacilitator output:\n%s", err, ref.Output())
				}
				if !strings.Contains(res.OutputText(), "settled by the reference") || len(receipts) != 1 {
					t.Fatalf("answer %q, %d receipts\nfacilitator output:\n%s", res.OutputText(), len(receipts), ref.Output())
				}
				if len(sent) != 1 || sent[0] != paymentHeaderName(version) {
					t.Fatalf("payment headers sent %v, want one %s", sent, paymentHeaderName(version))
				}
				checkMinedReceipt(t, f.a, receipts[0], f.a.Payer, networkName(version))
				tx, _, err := f.a.Client.TransactionByHash(context.Background(), common.HexToHash(receipts[0].Transaction))
				if err != nil || tx.To() == nil || *tx.To() != f.a.Network.Asset {
					t.Fatalf("settlement transaction %v is not a call to the token: %v", tx, err)
				}
				f.checkPaidOnce(t, f.a.Payer, payerBefore)
			})
		}
	}
}

// With verify on, what only the chain knows (a payer without funds, a
// nonce already used) is refused by the reference facilitator's /verify,
// with its reason code, before the model runs.
func TestReferenceFacilitatorVerifyRefusesBeforeTheModel(t *testing.T) {
	for _, version := range []int{2, 1} {
		t.Run(networkName(version), func(t *testing.T) {
			f, ref := startFacilitatorFarebox(t, true)
			req := f.offer(t, version)
			poor, err := crypto.GenerateKey()
			if err != nil {
				t.Fatal(err)
			}
			name, value, err := payer.NewSigner(poor).PaymentHeader(req, version)
			if err != nil {
				t.Fatal(err)
			}
			f.refusal(t, name, value, "invalid_exact_evm_insufficient_balance")
			f.refusal(t, paymentHeaderName(version), usedPayment(t, f.a, req, version), x402.ReasonNonceAlreadyUsed)
			if n := f.model.calls.Load(); n != 0 {
				t.Errorf("model called %d times, want 0\nfacilitator output:\n%s", n, ref.Output())
			}
		})
	}
}

func TestFacilitatorClientReadsTheReferenceSupported(t *testing.T) {
	_, ref := referenceFacilitator(t)
	c, err := facilitator.New(ref.URL)
	if err != nil {
		t.Fatal(err)
	}
	sup, err := c.Supported(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !sup.Supports(2, "exact", "eip155:84532") {
		t.Errorf("v2 exact on eip155:84532 missing from %+v", sup.Kinds)
	}
	if !sup.Supports(1, "exact", "base-sepolia") {
		t.Errorf("v1 exact on base-sepolia missing from %+v", sup.Kinds)
	}
	if sup.Supports(2, "exact", "eip155:8453") {
		t.Errorf("the reference was started for anvil only, yet lists eip155:8453: %+v", sup.Kinds)
	}
	signers := sup.Signers["eip155:*"]
	if len(signers) != 1 || !strings.EqualFold(signers[0], refRelayer) {
		t.Errorf("signers %v, want [%s]", sup.Signers, refRelayer)
	}
}

// With a facilitator settler and payments.chain.rpc_url, farebox simulates
// on chain itself (the default once a chain is reachable): an unfunded
// payer is refused before the model, without asking /verify.
func TestFacilitatorSettlerSimulatesWithAnRPCURL(t *testing.T) {
	a, ref := referenceFacilitator(t)
	pc := usdcPayments(a)
	pc.Settler = "facilitator"
	pc.Facilitator = gateway.FacilitatorConfig{URL: ref.URL}
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL}
	f := startUSDCFarebox(t, a, pc, nil)
	poor, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	name, value, err := payer.NewSigner(poor).PaymentHeader(f.offer(t, 2), 2)
	if err != nil {
		t.Fatal(err)
	}
	f.refusal(t, name, value, x402.ReasonInsufficientFunds)
	if n := f.model.calls.Load(); n != 0 {
		t.Errorf("model called %d times, want 0", n)
	}
}

// A facilitator that settles the payment but answers only once farebox
// stopped waiting (here a proxy in front of the reference facilitator
// that forwards /settle and holds the answer until farebox's request is
// gone) may have moved the payer's money: the client is served with a
// settlement_pending receipt, and the authorization stays spent, so the
// same payment sent again does not buy a second run (a 409 once the
// engine's 30 s answer wait runs out). (A settle request
// without an answer once released the authorization.) The chain shows
// one payment.
func TestFacilitatorAnsweringTooLateStillServes(t *testing.T) {
	a, ref := referenceFacilitator(t)
	settled := make(chan string, 2)
	late := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		out, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, strings.TrimSuffix(ref.URL, "/")+r.URL.Path, bytes.NewReader(body))
		if err != nil {
			t.Error(err)
			return
		}
		out.Header = r.Header.Clone()
		res, err := http.DefaultClient.Do(out)
		if err != nil {
			t.Errorf("forwarding %s: %v", r.URL.Path, err)
			return
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if strings.HasSuffix(r.URL.Path, "/settle") {
			settled <- string(answer)
			<-r.Context().Done() // farebox gave up waiting
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(res.StatusCode)
		w.Write(answer)
	}))
	t.Cleanup(late.Close)

	pc := usdcPayments(a)
	pc.Settler = "facilitator"
	pc.Facilitator = gateway.FacilitatorConfig{URL: late.URL}
	pc.SettleTimeout = gateway.Duration(500 * time.Millisecond)
	f := startUSDCFarebox(t, a, pc, nil)
	req := f.offer(t, 2)
	p, err := payer.NewSigner(a.PayerKey).Sign(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	header, err := x402.EncodePayment(p, req)
	if err != nil {
		t.Fatal(err)
	}
	before := usdcBalance(t, a, a.Payer)
	call := func() (int, string, *x402.Receipt) {
		hr, err := http.NewRequest(http.MethodPost, f.URL+"/responses", strings.NewReader(`{"model":"`+usdcModel+`","input":"answered late"}`))
		if err != nil {
			t.Fatal(err)
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set(x402.HeaderPaymentSignature, header)
		res, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		rc, _ := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse))
		return res.StatusCode, string(body), rc
	}

	status, body, rc := call()
	if status != http.StatusOK || !strings.Contains(body, "answered late") {
		t.Fatalf("a call the facilitator settled: %d %s\nfacilitator output:\n%s", status, body, ref.Output())
	}
	if rc == nil || rc.Success || rc.ErrorReason != x402.ReasonSettlementPending {
		t.Fatalf("receipt %+v, want settlement_pending", rc)
	}
	if answer := <-settled; !strings.Contains(answer, `"success":true`) {
		t.Fatalf("the facilitator's late answer: %s", answer)
	}
	// The same payment again waits for the first's outcome, which only the
	// facilitator knew, and is told to retry once it is answered (after
	// the engine's 30 s answer wait): never run a second time.
	status, body, _ = call()
	if status != http.StatusConflict || !strings.Contains(body, "payment_in_progress") {
		t.Errorf("the same payment again: %d %s, want 409 payment_in_progress", status, body)
	}
	if n := f.model.calls.Load(); n != 1 {
		t.Fatalf("the same payment ran the model %d times (second answer: %d %s)", n, status, body)
	}
	f.checkPaidOnce(t, a.Payer, before)
}
