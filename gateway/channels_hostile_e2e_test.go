package gateway_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// TestHostileZeroSignatureGetsNoChannelState: a stranger who knows a
// payer's channel config sends a voucher at the wrong amount with an
// all-zero signature: the 402 is a plain invalid-signature refusal whose
// offer carries no channelState or voucherState; the payer's own voucher
// at the wrong amount still gets the corrective 402.
func TestHostileZeroSignatureGetsNoChannelState(t *testing.T) {
	ts, c := startMetered(t, nil)
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	key := freshPayer(t, c, 1_000_000, false)
	store := payer.NewMemoryChannels()
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(c.Client),
		payer.WithSchemes(channel.Scheme), payer.WithPayTo(common.HexToAddress(payTo)), payer.WithChannelStore(store))
	cl := ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr}))
	if _, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: metered, Input: userText("open")}); err != nil {
		t.Fatal(err)
	}
	recs, err := store.List(payer.ChannelKey{Payer: addressOf(key), Network: c.Network.CAIP2, Receiver: common.HexToAddress(payTo)})
	if err != nil || len(recs) != 1 {
		t.Fatalf("payer's channels: %v %v", recs, err)
	}
	// The 402 of an unpaid call names the channel's terms.
	res, _ := post(t, ts.URL+"/responses", `{"model":"`+metered+`","input":"hi"}`)
	raw, _ := base64.StdEncoding.DecodeString(res.Header.Get(x402.HeaderPaymentRequired))
	var accepted json.RawMessage
	for _, a := range gjson.GetBytes(raw, "accepts").Array() {
		if a.Get("scheme").String() == channel.Scheme {
			accepted = json.RawMessage(a.Raw)
		}
	}
	extra := gjson.GetBytes(accepted, "extra")
	cfg := map[string]any{"payer": addressOf(key).Hex(), "payerAuthorizer": addressOf(key).Hex(), "receiver": payTo,
		"receiverAuthorizer": extra.Get("receiverAuthorizer").String(), "token": c.Network.Asset.Hex(),
		"withdrawDelay": extra.Get("withdrawDelay").Int(), "salt": common.Hash(recs[0].Salt).Hex()}
	voucher := func(sig []byte) string {
		b, _ := json.Marshal(map[string]any{"x402Version": 2, "accepted": accepted, "payload": map[string]any{
			"type": channel.TypeVoucher, "channelConfig": cfg, "voucher": map[string]any{"channelId": recs[0].ChannelID.Hex(),
				"maxClaimableAmount": "1", "signature": hexutil.Encode(sig)}}})
		return base64.StdEncoding.EncodeToString(b)
	}
	res, body := post(t, ts.URL+"/responses", `{"model":"`+metered+`","input":"hi"}`, "PAYMENT-SIGNATURE", voucher(make([]byte, 65)))
	raw, _ = base64.StdEncoding.DecodeString(res.Header.Get(x402.HeaderPaymentRequired))
	if res.StatusCode != http.StatusPaymentRequired || gjson.GetBytes(body, "error.code").String() != channel.ReasonVoucherSignature {
		t.Fatalf("zero-signature voucher: status %d: %s", res.StatusCode, body)
	}
	if s := string(raw) + string(body); strings.Contains(s, "channelState") || strings.Contains(s, "voucherState") ||
		strings.Contains(s, "chargedCumulativeAmount") {
		t.Fatalf("the refusal tells the channel's state: %s %s", raw, body)
	}
	// The payer's own signature at the wrong amount: the corrective 402.
	cs := channel.NewContracts(c.Network.ChainID, contracts.CanonicalBatchSettlement, contracts.CanonicalERC3009DepositCollector,
		contracts.CanonicalPermit2DepositCollector, contracts.CanonicalPermit2)
	sig := signDigest(t, key, cs.VoucherDigest(recs[0].ChannelID, big.NewInt(1)))
	res, body = post(t, ts.URL+"/responses", `{"model":"`+metered+`","input":"hi"}`, "PAYMENT-SIGNATURE", voucher(sig))
	raw, _ = base64.StdEncoding.DecodeString(res.Header.Get(x402.HeaderPaymentRequired))
	if gjson.GetBytes(body, "error.code").String() != channel.ReasonCumulativeAmountMismatch ||
		gjson.GetBytes(raw, `accepts.0.extra.channelState.chargedCumulativeAmount`).String() != recs[0].Charged.String() {
		t.Fatalf("the payer's voucher at the wrong amount: status %d: %s %s", res.StatusCode, body, raw)
	}
}
