package main

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer/payertest"
)

// TestFareboxCallPaysTheCheapestScheme: against a server offering exact,
// upto and batch-settlement, `farebox call` opens a channel, pays the next
// call with a voucher from its channel store, prints what each call was
// charged, pays upto when told to, and gets the rest back with --refund.
func TestFareboxCallPaysTheCheapestScheme(t *testing.T) {
	shop, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(400))
	key, _ := crypto.GenerateKey()
	keyHex := hex.EncodeToString(crypto.FromECDSA(key))
	dir := t.TempDir()
	call := func(args ...string) string {
		t.Helper()
		out, err := callWith(t, keyHex, append([]string{"--base-url", srv.URL + "/v1", "--channels", dir}, args...)...)
		if err != nil {
			t.Fatalf("farebox call %v: %v (refusals %v)", args, err, shop.Refused)
		}
		return out
	}
	for i, want := range []string{"deposited=0.005 USDC", "scheme=batch-settlement ceiling=0.001 USDC\n"} {
		out := call("--max-price", "0.002", "--max-deposit", "0.01", "hello")
		if !strings.Contains(out, "amount=0.0004 USDC") || !strings.Contains(out, want) {
			t.Fatalf("call %d printed %q, want the charge of 0.0004 USDC and %q", i, out, want)
		}
	}
	if out := call("--scheme", "upto", "hello"); !strings.Contains(out, "amount=0.0004 USDC") || !strings.Contains(out, "scheme=upto") {
		t.Fatalf("upto call printed %q", out)
	}
	if out := call("--refund"); !strings.Contains(out, "refund: amount=0.0042 USDC") {
		t.Fatalf("refund printed %q, want the 0.0042 USDC left of the deposit", out)
	}
	if seen := shop.Seen(); strings.Join(seen, " ") != "batch-settlement:deposit batch-settlement:voucher upto batch-settlement:refund" {
		t.Fatalf("the shop saw %v", seen)
	}
	if _, err := callWith(t, keyHex, "--base-url", srv.URL+"/v1", "--scheme", "cheque", "hello"); err == nil || !strings.Contains(err.Error(), "--scheme") {
		t.Fatalf("an unknown scheme: %v", err)
	}
}
