package gateway_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// pendingProxy is a facilitator in front of the reference one that
// settles for real but answers every settlement as pending: success
// false, errorReason settlement_pending, the transaction's hash (what an
// x402 facilitator answers when its wait for the receipt gives up). The
// hashes it answered with are sent on hashes.
func pendingProxy(t *testing.T, upstream string, hashes chan<- string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		out, err := http.NewRequestWithContext(r.Context(), r.Method, strings.TrimSuffix(upstream, "/")+r.URL.Path, bytes.NewReader(body))
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
			var s map[string]any
			if err := json.Unmarshal(answer, &s); err != nil || s["success"] != true {
				t.Errorf("the reference facilitator did not settle: %s", answer)
			}
			s["success"], s["errorReason"] = false, x402.ReasonSettlementPending
			hash, _ := s["transaction"].(string)
			hashes <- hash
			answer, _ = json.Marshal(s)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(res.StatusCode)
		_, _ = w.Write(answer)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A facilitator's settlement_pending, with payments.chain.rpc_url beside
// it, is followed on chain through the server's wiring: the client is
// served at once with a pending receipt naming the facilitator's
// transaction; once that transaction shows the transfer, the same payment
// sent again is answered from the stored answer with a successful receipt
// naming it, the model never runs twice, and the chain shows the price
// paid once.
func TestFacilitatorPendingSettlementIsFollowedOnChain(t *testing.T) {
	a, ref := referenceFacilitator(t)
	hashes := make(chan string, 4)
	pc := usdcPayments(a)
	pc.Settler = "facilitator"
	pc.Facilitator = gateway.FacilitatorConfig{URL: pendingProxy(t, ref.URL, hashes)}
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL}
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
		res, body := post(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"followed on chain"}`, x402.HeaderPaymentSignature, header)
		rc, _ := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse))
		return res.StatusCode, string(body), rc
	}

	status, body, rc := call()
	if status != http.StatusOK || !strings.Contains(body, "followed on chain") {
		t.Fatalf("the pending call: %d %s\nfacilitator output:\n%s", status, body, ref.Output())
	}
	hash := <-hashes
	if rc == nil || rc.Success || rc.ErrorReason != x402.ReasonSettlementPending || rc.Transaction != hash {
		t.Fatalf("receipt %+v, want settlement_pending naming %s", rc, hash)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		status, body, rc = call()
		if status == http.StatusOK && rc != nil && rc.Success {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the same payment a minute later: %d %s, receipt %+v; want the stored answer with a successful receipt", status, body, rc)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if rc.Transaction != hash || !strings.Contains(body, "followed on chain") {
		t.Fatalf("the replay: receipt %+v, body %s; want the answer and %s", rc, body, hash)
	}
	checkMinedReceipt(t, a, rc, a.Payer, networkName(2))
	f.checkPaidOnce(t, a.Payer, before)
	select {
	case h := <-hashes:
		t.Fatalf("the facilitator was asked to settle again (%s)", h)
	default:
	}
}
