package gateway_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// refundStep is what refund.mjs did for one step: a call or a refund.
type refundStep struct {
	Status  int           `json:"status"`
	Body    string        `json:"body"`
	Receipt *x402.Receipt `json:"receipt"`
	Settle  *struct {
		Success     bool   `json:"success"`
		Transaction string `json:"transaction"`
		Amount      string `json:"amount"`
		ErrorReason string `json:"errorReason"`
	} `json:"settle"`
	Error string `json:"error"`
}

// runRefundSteps runs refund.mjs: calls through @x402/fetch, refunds
// through the official client's scheme.refund on GET /v1/responses.
func runRefundSteps(t *testing.T, ts *testServer, c *devchain.Chain, key string, steps []map[string]any) []refundStep {
	t.Helper()
	installNode(t)
	in, _ := json.Marshal(map[string]any{"privateKey": key, "url": ts.URL + "/responses", "refundUrl": ts.URL + "/responses",
		"steps": steps, "asset": c.Network.Asset.Hex(), "network": c.Network.CAIP2, "maxAtomic": "1000000", "rpcUrl": c.RPCURL})
	cmd := exec.Command("node", "refund.mjs")
	cmd.Dir = nodeDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("refund.mjs: %v\n%s", err, stderr.String())
	}
	var got []refundStep
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(steps) {
		t.Fatalf("refund.mjs answered %s: %v", out, err)
	}
	return got
}

// escrowBalance is what the settlement contract holds of the dev token.
func escrowBalance(t *testing.T, c *devchain.Chain) *big.Int {
	return tokenBalance(t, c, contracts.CanonicalBatchSettlement)
}

// onchainChannel reads the channel of a receipt's channelState from chain.
func onchainChannel(t *testing.T, c *devchain.Chain, r *x402.Receipt) channel.Onchain {
	t.Helper()
	id := common.HexToHash(gjson.Get(r.Extra.ChannelState, "channelId").String())
	cs := channel.NewContracts(c.Network.ChainID, contracts.CanonicalBatchSettlement, contracts.CanonicalERC3009DepositCollector,
		contracts.CanonicalPermit2DepositCollector, contracts.CanonicalPermit2)
	o, err := cs.ReadOnchain(context.Background(), c.Client, id)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The official batch-settlement client deposits, pays two vouchers, takes
// part of its deposit back with a cooperative refund, pays one more
// voucher on the same channel, then takes the rest back: the payer ends
// with exactly its wallet less the charges, the receiver with exactly the
// charges (the refund claimed and swept them), and the channel with
// nothing in escrow, judged on chain.
func TestOfficialClientRefundsItsChannel(t *testing.T) {
	cfg, opts, c := meteredConfig(t, nil)
	cfg.Payments.BatchSettlement.ClaimInterval = 0 // the default hour: the refunds claim
	ts := startServer(t, cfg, opts)
	key := freshPayer(t, c, 1_000_000, false)
	payerAddr, receiver := addressOf(key), common.HexToAddress(payTo)
	payerBefore, receiverBefore, escrowBefore := tokenBalance(t, c, payerAddr), tokenBalance(t, c, receiver), escrowBalance(t, c)

	const partial = 1234
	call := func(in string) map[string]any {
		return map[string]any{"body": map[string]any{"model": metered, "input": in}}
	}
	steps := []map[string]any{call("first, with a deposit"), call("second"), {"refund": big.NewInt(partial).String()},
		call("third, after a partial refund"), {"refund": nil}}
	got := runRefundSteps(t, ts, c, "0x"+common.Bytes2Hex(crypto.FromECDSA(key)), steps)

	var charged int64
	deposit := new(big.Int)
	for _, i := range []int{0, 1, 3} {
		s := got[i]
		if s.Status != http.StatusOK || s.Receipt == nil || !s.Receipt.Success {
			t.Fatalf("call %d: %+v", i, s)
		}
		want := expectedCharge(t, s.Body)
		if s.Receipt.Extra.ChargedAmount != big.NewInt(want).String() {
			t.Errorf("call %d charged %s, want %d", i, s.Receipt.Extra.ChargedAmount, want)
		}
		charged += want
		if i == 0 {
			deposit.SetString(s.Receipt.Amount, 10)
		} else if s.Receipt.Transaction != "" {
			t.Errorf("call %d sent a transaction: want a voucher-only answer after the refund too", i)
		}
	}
	if deposit.Sign() <= 0 {
		t.Fatalf("no deposit: %+v", got[0].Receipt)
	}
	part, full := got[2].Settle, got[4].Settle
	if part == nil || !part.Success || part.Amount != big.NewInt(partial).String() {
		t.Fatalf("partial refund: %+v %s", part, got[2].Error)
	}
	if full == nil || !full.Success || full.Transaction == "" {
		t.Fatalf("full refund: %+v %s", full, got[4].Error)
	}
	checkMinedTx(t, c, part.Transaction)
	checkMinedTx(t, c, full.Transaction)
	if want := new(big.Int).Sub(deposit, big.NewInt(charged+partial)); full.Amount != want.String() {
		t.Errorf("full refund returned %s, want deposit %s - charged %d - partial %d", full.Amount, deposit, charged, partial)
	}
	if spent := new(big.Int).Sub(payerBefore, tokenBalance(t, c, payerAddr)); spent.Int64() != charged {
		t.Errorf("payer is short of %s after the refunds, want exactly the charges %d", spent, charged)
	}
	if earned := new(big.Int).Sub(tokenBalance(t, c, receiver), receiverBefore); earned.Int64() != charged {
		t.Errorf("receiver got %s, want exactly the charges %d", earned, charged)
	}
	if held := new(big.Int).Sub(escrowBalance(t, c), escrowBefore); held.Sign() != 0 {
		t.Errorf("the settlement contract still holds %s of this channel", held)
	}
	o := onchainChannel(t, c, got[3].Receipt)
	if left := new(big.Int).Sub(o.Balance, o.TotalClaimed); left.Sign() != 0 || o.TotalClaimed.Int64() != charged {
		t.Errorf("channel on chain: balance %s, totalClaimed %s: want nothing left in escrow and %d claimed", o.Balance, o.TotalClaimed, charged)
	}
}

// farebox's Go payer refunds over POST (its body is not a call and runs no
// model); a refund on a channel the server has no charges for, or with
// nothing left, is refused with the spec's reason and moves nothing.
func TestGoPayerRefundsOverPost(t *testing.T) {
	ts, c := startMetered(t, nil)
	key := freshPayer(t, c, 1_000_000, false)
	payerAddr := addressOf(key)
	before := tokenBalance(t, c, payerAddr)
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	var settled *payer.Settlement
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(c.Client),
		payer.WithSchemes(channel.Scheme), payer.OnSettlement(func(s *payer.Settlement) { settled = s }))
	res, err := ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr})).Responses.New(context.Background(),
		oresponses.ResponseNewParams{Model: metered, Input: userText("pay by voucher")})
	if err != nil {
		t.Fatal(err)
	}
	charged := min((res.Usage.InputTokens*inputPerMTok+res.Usage.OutputTokens*outputPerMTok+999_999)/1_000_000, ceilingAtomics)
	if settled == nil || settled.Deposited == nil {
		t.Fatalf("no deposit: %+v", settled)
	}
	refundReq := func() *http.Request {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/responses", strings.NewReader(`{"model":"`+metered+`","input":"."}`))
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	s, err := tr.Refund(refundReq(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := new(big.Int).Sub(settled.Deposited, big.NewInt(charged)); s.Refunded == nil || s.Refunded.Cmp(want) != 0 {
		t.Errorf("refunded %v, want deposit - charged = %s", s.Refunded, want)
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, payerAddr)); spent.Int64() != charged {
		t.Errorf("payer spent %s, want exactly the charge %d", spent, charged)
	}
	// The record is gone on both sides: the payer's transport refuses to
	// sign, and a hand-made refund of the drained channel gets the reason.
	if _, err := tr.Refund(refundReq(), nil); err == nil {
		t.Error("a second refund of a drained channel succeeded")
	}
	// A payer without the chain or a record signs at 0: farebox says there
	// is nothing left rather than sending it to resynchronise.
	cold := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithSchemes(channel.Scheme))
	if _, err := cold.Refund(refundReq(), nil); err == nil || !strings.Contains(err.Error(), channel.ReasonRefundNoBalance) {
		t.Errorf("a refund of a drained channel by a payer without its record: %v, want %s", err, channel.ReasonRefundNoBalance)
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, payerAddr)); spent.Int64() != charged {
		t.Errorf("after the refused refund the payer spent %s, want %d", spent, charged)
	}
}

// The refund's 402 (GET /v1/responses without a payment) offers
// batch-settlement alone; a voucher sent there is refused and charges
// nothing.
func TestRefundOfferAndRefusals(t *testing.T) {
	ts, c := startMetered(t, nil)
	res, err := http.Get(ts.URL + "/responses")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	raw, _ := base64.StdEncoding.DecodeString(res.Header.Get(x402.HeaderPaymentRequired))
	pr := gjson.ParseBytes(raw)
	if res.StatusCode != http.StatusPaymentRequired || len(pr.Get("accepts").Array()) != 1 ||
		pr.Get("accepts.0.scheme").String() != channel.Scheme || pr.Get("accepts.0.extra.receiverAuthorizer").String() != c.Relayer.Hex() ||
		pr.Get("resource.url").String() != ts.URL+"/responses" {
		t.Fatalf("status %d, offer %s", res.StatusCode, raw)
	}
	env := base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2,"accepted":{"scheme":"batch-settlement","network":"` + c.Network.CAIP2 + `"},"payload":{"type":"voucher"}}`))
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/responses", nil)
	req.Header.Set(x402.HeaderPaymentSignature, env)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	raw, _ = base64.StdEncoding.DecodeString(res.Header.Get(x402.HeaderPaymentRequired))
	if res.StatusCode != http.StatusPaymentRequired || !strings.HasPrefix(gjson.GetBytes(raw, "error").String(), "invalid_batch_settlement_evm_") {
		t.Errorf("a voucher on the refund route: status %d, %s", res.StatusCode, raw)
	}
}

// An official client that lost its channel record (a new process) asks
// for a refund from the chain's view (nothing claimed yet): farebox
// answers the spec's corrective 402 with the channel's state and last
// voucher, the client adopts it and its retry gets back exactly the
// deposit less the charges, nothing more.
func TestOfficialClientRefundsAfterLosingItsState(t *testing.T) {
	cfg, opts, c := meteredConfig(t, nil)
	cfg.Payments.BatchSettlement.ClaimInterval = 0 // nothing claimed: the chain's view is behind farebox's
	ts := startServer(t, cfg, opts)
	key := freshPayer(t, c, 1_000_000, false)
	payerAddr := addressOf(key)
	before := tokenBalance(t, c, payerAddr)
	hexKey := "0x" + common.Bytes2Hex(crypto.FromECDSA(key))
	calls := runRefundSteps(t, ts, c, hexKey, []map[string]any{
		{"body": map[string]any{"model": metered, "input": "deposit"}}, {"body": map[string]any{"model": metered, "input": "voucher"}}})
	var charged int64
	for i, s := range calls {
		if s.Status != http.StatusOK || s.Receipt == nil || !s.Receipt.Success {
			t.Fatalf("call %d: %+v", i, s)
		}
		charged += expectedCharge(t, s.Body)
	}
	deposit, _ := new(big.Int).SetString(calls[0].Receipt.Amount, 10)
	got := runRefundSteps(t, ts, c, hexKey, []map[string]any{{"refund": nil}})[0]
	if got.Settle == nil || !got.Settle.Success {
		t.Fatalf("refund after a cold start: %+v", got)
	}
	if want := new(big.Int).Sub(deposit, big.NewInt(charged)); got.Settle.Amount != want.String() {
		t.Errorf("refunded %s, want deposit %s less the charges %d", got.Settle.Amount, deposit, charged)
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, payerAddr)); spent.Int64() != charged {
		t.Errorf("payer is short of %s, want exactly the charges %d", spent, charged)
	}
	if n := value(scrape(t, strings.TrimSuffix(ts.URL, "/v1")+"/metrics"), "farebox_channel_mismatches_total"); n != 1 {
		t.Errorf("%v corrective 402s, want the one the cold client recovered from", n)
	}
}
