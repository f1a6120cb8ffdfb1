package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"os/exec"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm/devchain"
)

// batchCall is one call pay.mjs's batch sibling made.
type batchCall struct {
	Status  int           `json:"status"`
	Body    string        `json:"body"`
	Receipt *x402.Receipt `json:"receipt"`
}

// A payer using the official batch-settlement client through @x402/fetch
// deposits once, then pays voucher-only calls, each charged exactly its
// use; at shutdown farebox claims the channel and sweeps exactly the sum
// charged to the receiver, judged on chain.
func TestBatchSettlementDepositThenVouchersThenClaim(t *testing.T) {
	cfg, opts, c := meteredConfig(t, nil)
	depositVouchersClaim(t, cfg, opts, c)
}

// depositVouchersClaim is the proof of TestBatchSettlementDepositThenVouchersThenClaim
// for a gateway set up by cfg and opts.
func depositVouchersClaim(t *testing.T, cfg gateway.Config, opts gateway.Options, c *devchain.Chain) {
	t.Helper()
	cfg.Payments.BatchSettlement.ClaimInterval = 0 // the default hour: the claim below is the shutdown's
	ts := startServer(t, cfg, opts)
	key := freshPayer(t, c, 1_000_000, false)
	payer, receiver := addressOf(key), common.HexToAddress(payTo)
	payerBefore, receiverBefore := tokenBalance(t, c, payer), tokenBalance(t, c, receiver)

	installNode(t)
	bodies := []map[string]any{}
	for _, in := range []string{"first, with a deposit", "second", "third, a little longer than the others"} {
		bodies = append(bodies, map[string]any{"model": metered, "input": in})
	}
	in, _ := json.Marshal(map[string]any{"privateKey": "0x" + common.Bytes2Hex(crypto.FromECDSA(key)), "url": ts.URL + "/responses",
		"bodies": bodies, "asset": c.Network.Asset.Hex(), "network": c.Network.CAIP2, "maxAtomic": "1000000", "rpcUrl": c.RPCURL})
	cmd := exec.Command("node", "batch.mjs")
	cmd.Dir = nodeDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("batch.mjs: %v\n%s", err, stderr.String())
	}
	var calls []batchCall
	if err := json.Unmarshal(out, &calls); err != nil || len(calls) != len(bodies) {
		t.Fatalf("batch.mjs answered %s: %v", out, err)
	}
	var charged int64
	deposit := new(big.Int)
	for i, call := range calls {
		r := call.Receipt
		if call.Status != http.StatusOK || r == nil || !r.Success {
			t.Fatalf("call %d: %d %+v %s", i, call.Status, r, call.Body)
		}
		want := expectedCharge(t, call.Body)
		if r.Extra.ChargedAmount != big.NewInt(want).String() || r.Extra.ChannelState == "" {
			t.Errorf("call %d: receipt %+v, want chargedAmount %d and the channel state", i, r, want)
		}
		charged += want
		if i == 0 {
			if r.Transaction == "" {
				t.Fatalf("the first call made no deposit: %+v", r)
			}
			checkMinedTx(t, c, r.Transaction)
			deposit.SetString(r.Amount, 10)
		} else if r.Transaction != "" {
			t.Errorf("call %d sent a transaction %s: want a voucher-only answer", i, r.Transaction)
		}
	}
	if got := new(big.Int).Sub(payerBefore, tokenBalance(t, c, payer)); got.Cmp(deposit) != 0 || deposit.Sign() <= 0 {
		t.Errorf("payer moved %s into the channel, the receipt says %s", got, deposit)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ts.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got := new(big.Int).Sub(tokenBalance(t, c, receiver), receiverBefore); got.Int64() != charged {
		t.Errorf("receiver got %s after the claim, want the sum charged %d\n%s", got, charged, grepLines(ts.logs.String(), "channel"))
	}
}
