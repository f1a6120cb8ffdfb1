package gateway_test

import (
	"context"
	"encoding/base64"
	storebolt "github.com/farebox/farebox/store/bolt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	fb "github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
	"github.com/tidwall/gjson"
)

// An upto payment from the official client is charged exactly usage x
// price, on chain; the response's max_output_tokens is bounded by the
// ceiling; the same payment and body again is served with the same
// receipt and charged nothing more.
func TestUptoChargesExactlyTheUse(t *testing.T) {
	ts, c := startMetered(t, nil)
	key := freshPayer(t, c, 1_000_000, true)
	approvePermit2(t, c, key)
	payer, receiver := addressOf(key), common.HexToAddress(payTo)
	payerBefore, receiverBefore := tokenBalance(t, c, payer), tokenBalance(t, c, receiver)

	p := payUpto(t, ts, c, key, map[string]any{"model": metered, "input": strings.Repeat("metered words ", 20), "max_output_tokens": 1_000_000})
	if p.Status != http.StatusOK || p.Payments != 1 {
		t.Fatalf("status %d after %d payments: %s", p.Status, p.Payments, p.Body)
	}
	want := expectedCharge(t, p.Body)
	r := p.Receipt
	if r == nil || !r.Success || r.Amount != big.NewInt(want).String() || r.Extra.ChargedAmount != r.Amount || r.Transaction == "" {
		t.Fatalf("receipt %+v, want amount %d", r, want)
	}
	checkMinedTx(t, c, r.Transaction)
	if got := new(big.Int).Sub(payerBefore, tokenBalance(t, c, payer)); got.Int64() != want {
		t.Errorf("payer paid %s, want %d", got, want)
	}
	if got := new(big.Int).Sub(tokenBalance(t, c, receiver), receiverBefore); got.Int64() != want {
		t.Errorf("receiver got %s, want %d", got, want)
	}
	// max_output_tokens was bounded: (ceiling*1e6 - ceil(body/4)*inP) / outP.
	bound := (ceilingAtomics*1_000_000 - int64((len(p.Sent)+3)/4)*inputPerMTok) / outputPerMTok
	if got := gjson.Get(p.Body, "max_output_tokens").Int(); got != bound {
		t.Errorf("max_output_tokens %d, want the bound %d", got, bound)
	}

	// The same payment and body: the same answer's receipt, no second charge.
	res, _ := post(t, ts.URL+"/responses", p.Sent, "PAYMENT-SIGNATURE", p.Header)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("replay: %d", res.StatusCode)
	}
	again, err := x402.DecodeReceipt(res.Header.Get("PAYMENT-RESPONSE"))
	if err != nil || *again != *r {
		t.Errorf("replayed receipt %+v (%v), want %+v", again, err, r)
	}
	if got := new(big.Int).Sub(payerBefore, tokenBalance(t, c, payer)); got.Int64() != want {
		t.Errorf("after the replay the payer paid %s, want %d", got, want)
	}
}

// A payer with no ETH who never approved Permit2 pays with the EIP-2612
// permit of the gas-sponsoring extension: farebox's relayer sends
// settleWithPermit and the payer still holds no ETH.
func TestUptoGasSponsoredPayerWithoutETH(t *testing.T) {
	ts, c := startMetered(t, nil)
	key := freshPayer(t, c, 1_000_000, false)
	payer := addressOf(key)
	before := tokenBalance(t, c, payer)
	p := payUpto(t, ts, c, key, map[string]any{"model": metered, "input": "gasless"})
	if p.Status != http.StatusOK {
		t.Fatalf("status %d: %s", p.Status, p.Body)
	}
	if !headerHas(t, p.Header, "extensions.eip2612GasSponsoring") {
		t.Fatalf("the client sent no gas-sponsoring permit: %s", p.Header)
	}
	want := expectedCharge(t, p.Body)
	if p.Receipt == nil || p.Receipt.Amount != big.NewInt(want).String() {
		t.Fatalf("receipt %+v, want amount %d", p.Receipt, want)
	}
	checkMinedTx(t, c, p.Receipt.Transaction)
	if got := new(big.Int).Sub(before, tokenBalance(t, c, payer)); got.Int64() != want {
		t.Errorf("payer paid %s, want %d", got, want)
	}
	if eth, err := c.Client.BalanceAt(context.Background(), payer, nil); err != nil || eth.Sign() != 0 {
		t.Errorf("payer ETH %v (%v), want 0", eth, err)
	}
}

// zeroUsage answers with text and reports no tokens at all.
type zeroUsage struct{}

func (zeroUsage) Respond(ctx context.Context, req *fb.Request, out fb.Output) error {
	if err := out.Text("free of charge"); err != nil {
		return err
	}
	out.SetUsage(fb.Usage{})
	return nil
}

// A failed model call charges nothing, and a zero charge sends nothing:
// the permit stays unused on chain and the receipt says amount "0".
func TestUptoFailedOrZeroCallMovesNothing(t *testing.T) {
	ts, c := startMetered(t, map[string]fb.Model{"broken-metered": brokenModel{}, "zero-metered": zeroUsage{}})
	key := freshPayer(t, c, 1_000_000, false)
	payer := addressOf(key)
	before := tokenBalance(t, c, payer)

	p := payUpto(t, ts, c, key, map[string]any{"model": "broken-metered", "input": "fail"})
	if p.Status != http.StatusBadGateway || p.Payments != 1 {
		t.Fatalf("broken model: status %d after %d payments: %s", p.Status, p.Payments, p.Body)
	}
	if permit2NonceUsed(t, c, p.Header) {
		t.Error("a failed call used the payer's permit")
	}

	z := payUpto(t, ts, c, key, map[string]any{"model": "zero-metered", "input": "nothing used"})
	if z.Status != http.StatusOK {
		t.Fatalf("zero usage: status %d: %s", z.Status, z.Body)
	}
	if r := z.Receipt; r == nil || !r.Success || r.Amount != "0" || r.Extra.ChargedAmount != "0" || r.Transaction != "" {
		t.Errorf("zero-charge receipt %+v", r)
	}
	if permit2NonceUsed(t, c, z.Header) {
		t.Error("a zero charge used the payer's permit")
	}
	if got := tokenBalance(t, c, payer); got.Cmp(before) != 0 {
		t.Errorf("payer balance %s, want %s unchanged", got, before)
	}
}

// A restart between the answer and its block loses nothing: the journal
// (data_dir) holds the upto purchase with its charge before the send, and
// the next process resumes it (decoding the upto payment again) until the
// chain confirms it.
func TestUptoPurchaseSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	cfg, opts, c := meteredConfig(t, nil)
	cfg.DataDir = dir
	first := startServer(t, cfg, opts)
	key := freshPayer(t, c, 1_000_000, false)
	payer := addressOf(key)
	before := tokenBalance(t, c, payer)
	p := payUpto(t, first, c, key, map[string]any{"model": metered, "input": "restart me"})
	if p.Status != http.StatusOK || p.Receipt == nil || !p.Receipt.Success {
		t.Fatalf("status %d, receipt %+v: %s", p.Status, p.Receipt, p.Body)
	}
	// Answered once broadcast, before its block (2 s): stop at once.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := first.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	entry := func() *settle.Entry {
		j, err := storebolt.OpenJournal(dir, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		raw, _ := base64.StdEncoding.DecodeString(p.Header)
		nonce, _ := new(big.Int).SetString(gjson.GetBytes(raw, "payload.permit2Authorization.nonce").String(), 10)
		var k [32]byte
		nonce.FillBytes(k[:])
		en, err := j.Get(context.Background(), x402.Key{ChainID: c.Network.ChainID.String(), Asset: c.Network.Asset, From: payer, Nonce: k})
		if err != nil {
			t.Fatal(err)
		}
		return en
	}
	want := expectedCharge(t, p.Body)
	if en := entry(); en.Charge == nil || en.Charge.Int64() != want || en.Amount.Int64() != ceilingAtomics || en.Tx == (common.Hash{}) {
		t.Fatalf("journaled %+v, want charge %d of ceiling %d with its transaction", en, want, ceilingAtomics)
	}

	second := startServer(t, cfg, opts)
	res, _ := post(t, second.URL+"/responses", p.Sent, "PAYMENT-SIGNATURE", p.Header)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the same purchase after the restart: %d", res.StatusCode)
	}
	if r, err := x402.DecodeReceipt(res.Header.Get("PAYMENT-RESPONSE")); err != nil || *r != *p.Receipt {
		t.Errorf("receipt after the restart %+v (%v), want %+v", r, err, p.Receipt)
	}
	checkMinedTx(t, c, p.Receipt.Transaction)
	if got := new(big.Int).Sub(before, tokenBalance(t, c, payer)); got.Int64() != want {
		t.Errorf("payer paid %s, want %d", got, want)
	}
	// The resumed follower confirms the purchase once it sees the block.
	waitMetric(t, strings.TrimSuffix(second.URL, "/v1"), "farebox_settlement_events_total", 1, "event", "confirmed")
	if err := second.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if en := entry(); en.State != settle.Confirmed {
		t.Errorf("after the resume the entry is %s, want confirmed", en.State)
	}
}

// gatedModel answers once released, telling when a call started.
type gatedModel struct {
	started chan struct{}
	release chan struct{}
}

func (m gatedModel) Respond(ctx context.Context, req *fb.Request, out fb.Output) error {
	m.started <- struct{}{}
	select {
	case <-m.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return out.Text("released")
}

// In-flight accounting holds the ceiling: a payer whose balance covers one
// ceiling is refused a second upto call while the first is running, and
// the first is charged only its use.
func TestUptoHoldsTheCeilingWhileInFlight(t *testing.T) {
	gate := gatedModel{started: make(chan struct{}, 1), release: make(chan struct{})}
	ts, c := startMetered(t, map[string]fb.Model{"gated-metered": gate})
	key := freshPayer(t, c, ceilingAtomics, false)
	payer := addressOf(key)
	first := make(chan nodePaid, 1)
	go func() { first <- payUpto(t, ts, c, key, map[string]any{"model": "gated-metered", "input": "first"}) }()
	<-gate.started
	second := payUpto(t, ts, c, key, map[string]any{"model": "gated-metered", "input": "second"})
	close(gate.release)
	if second.Status != http.StatusPaymentRequired || gjson.Get(second.Body, "error.code").String() != x402.ReasonInsufficientFunds {
		t.Errorf("second call: %d %s", second.Status, second.Body)
	}
	p := <-first
	if p.Status != http.StatusOK || p.Receipt == nil || !p.Receipt.Success {
		t.Fatalf("first call: %d %+v %s", p.Status, p.Receipt, p.Body)
	}
	checkMinedTx(t, c, p.Receipt.Transaction)
	// The model reported no usage: the documented count, 4 bytes a token
	// of the request body in and of the text out.
	in, out := int64((len(p.Sent)+3)/4), int64((len("released")+3)/4)
	want := (in*inputPerMTok + out*outputPerMTok + 999_999) / 1_000_000
	if p.Receipt.Amount != big.NewInt(want).String() {
		t.Errorf("charged %s, want %d for %d tokens in and %d out", p.Receipt.Amount, want, in, out)
	}
	if got := tokenBalance(t, c, payer); got.Int64() != ceilingAtomics-want {
		t.Errorf("payer holds %s after a charge of %d (funded %d)", got, want, ceilingAtomics)
	}
}

// A streamed upto answer carries its receipt in-band (the final response
// object's x402 field), for the actual charge.
func TestUptoStreamCarriesTheChargeInBand(t *testing.T) {
	ts, c := startMetered(t, nil)
	key := freshPayer(t, c, 1_000_000, false)
	payer := addressOf(key)
	before := tokenBalance(t, c, payer)
	p := payUpto(t, ts, c, key, map[string]any{"model": metered, "input": "stream the use", "stream": true})
	if p.Status != http.StatusOK {
		t.Fatalf("status %d: %s", p.Status, p.Body)
	}
	var final gjson.Result
	for _, line := range strings.Split(p.Body, "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok && gjson.Get(data, "type").String() == "response.completed" {
			final = gjson.Get(data, "response")
		}
	}
	want := expectedCharge(t, final.Raw)
	r := final.Get("x402")
	if !r.Get("success").Bool() || r.Get("amount").Int() != want || r.Get("extra.chargedAmount").Int() != want {
		t.Fatalf("in-band receipt %s, want amount %d", r.Raw, want)
	}
	checkMinedTx(t, c, r.Get("transaction").String())
	if got := new(big.Int).Sub(before, tokenBalance(t, c, payer)); got.Int64() != want {
		t.Errorf("payer paid %s, want %d", got, want)
	}
}
