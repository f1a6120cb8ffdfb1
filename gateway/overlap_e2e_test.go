package gateway_test

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// TestOverlappedCheckRefusesBeforeAnyByte runs the chain's check alongside
// the model (payments.chain.overlap): an authorization the chain refuses
// (its nonce used by another server) is still a 402 with nothing of the
// answer written, JSON or stream, though the model ran; good payments are
// served and charged once each.
func TestOverlappedCheckRefusesBeforeAnyByte(t *testing.T) {
	a := sharedAnvil(t)
	key, err := a.NewRelayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pc := usdcPayments(a)
	pc.Settler = "chain"
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL, RelayerKeyEnv: relayerEnv, Overlap: true}
	f := startUSDCFarebox(t, a, pc, map[string]string{relayerEnv: hexutil.Encode(crypto.FromECDSA(key))})
	req := f.offer(t, 2)
	payerBefore := usdcBalance(t, a, a.Payer)

	for _, stream := range []bool{false, true} {
		value := usedPayment(t, a, req, 2) // moves the price once, outside farebox
		body := `{"model":"` + usdcModel + `","input":"refuse me","stream":` + map[bool]string{false: "false", true: "true"}[stream] + `}`
		res, b := post(t, f.URL+"/responses", body, x402.HeaderPaymentSignature, value)
		if res.StatusCode != http.StatusPaymentRequired || gjson.GetBytes(b, "error.code").String() != x402.ReasonNonceAlreadyUsed {
			t.Fatalf("stream %v: %d %s, want 402 %s", stream, res.StatusCode, b, x402.ReasonNonceAlreadyUsed)
		}
		if ct := res.Header.Get("Content-Type"); strings.Contains(ct, "event-stream") {
			t.Errorf("stream %v: the refusal went out as %s: the stream had started", stream, ct)
		}
	}
	if n := f.model.calls.Load(); n != 2 {
		t.Errorf("model called %d times, want 2: the check overlapped it", n)
	}

	var receipts []*x402.Receipt
	var sent []string
	cl := f.client(t, a.PayerKey, 2, &receipts, &sent)
	if _, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: usdcModel, Input: userText("paid, checked alongside")}); err != nil {
		t.Fatal(err)
	}
	st := cl.Responses.NewStreaming(context.Background(), oresponses.ResponseNewParams{Model: usdcModel, Input: userText("streamed, checked alongside")})
	var text strings.Builder
	for st.Next() {
		if ev := st.Current(); ev.Type == "response.output_text.delta" {
			text.WriteString(ev.Delta)
		}
	}
	if err := st.Err(); err != nil || !strings.Contains(text.String(), "streamed, checked alongside") {
		t.Fatalf("stream: %q, %v", text.String(), err)
	}
	if len(receipts) == 0 {
		t.Fatal("no receipt for the JSON answer")
	}
	for _, r := range receipts {
		checkMinedReceipt(t, a, r, a.Payer, networkName(2))
	}
	// Two direct settlements and two served calls moved money; nothing else.
	spent := new(big.Int).Sub(payerBefore, usdcBalance(t, a, a.Payer))
	if got := usdcBalance(t, a, f.payTo); spent.Int64() != 4*atomics || got.Int64() != 4*atomics {
		t.Errorf("payer spent %s, payTo received %s, want %d each", spent, got, 4*atomics)
	}
}
