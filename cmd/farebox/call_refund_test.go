package main

import (
	"context"
	"encoding/hex"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// TestFareboxCallRefundGetsTheRestBack: against `farebox dev`, `farebox
// call` pays the per-token model with batch-settlement (one deposit, then
// a voucher), then `farebox call --refund` takes back exactly the deposit
// less the charges: the payer is short of exactly the charges, pay_to got
// exactly them, and the channel holds nothing in escrow, judged on chain.
func TestFareboxCallRefundGetsTheRestBack(t *testing.T) {
	ctx := context.Background()
	key, _ := crypto.GenerateKey()
	payerAddr := crypto.PubkeyToAddress(key.PublicKey)
	_, banner := startDevCommand(t, "--fund", payerAddr.Hex()+"=1")
	base := field(t, banner, `base URL\s+(\S+)`)
	rpcURL := field(t, banner, `chain RPC\s+(\S+)`)
	token := common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`))
	rpc, err := ethclientDial(ctx, rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	balance := func(who common.Address) *big.Int {
		awaitRelayer(t, rpc, devRelayer)
		return tokenBalance(t, rpc, token, who)
	}
	payTo := common.HexToAddress(DevPayTo)
	payerBefore, payToBefore, escrowBefore := balance(payerAddr), balance(payTo), balance(contracts.CanonicalBatchSettlement)

	keyHex := hex.EncodeToString(crypto.FromECDSA(key))
	dir := t.TempDir()
	call := func(args ...string) string {
		t.Helper()
		out, err := callWith(t, keyHex, append([]string{"--base-url", base, "--channels", dir, "--rpc-url", rpcURL, "--model", DevMeteredModel}, args...)...)
		if err != nil {
			t.Fatalf("farebox call %v: %v", args, err)
		}
		return out
	}
	amountRe := regexp.MustCompile(`amount=([0-9.]+) USDC`)
	charged := new(big.Int)
	var channelID string
	for i, prompt := range []string{"hello", "hello again, by voucher"} {
		out := call("--scheme", "batch-settlement", "--max-price", "0.01", "--max-deposit", "0.05", prompt)
		m := amountRe.FindStringSubmatch(out)
		if m == nil || !strings.Contains(out, "scheme=batch-settlement") {
			t.Fatalf("call %d printed %q", i, out)
		}
		c, err := x402.ParseUSDC(m[1])
		if err != nil || c.Sign() <= 0 {
			t.Fatalf("call %d charged %q: %v", i, m[1], err)
		}
		charged.Add(charged, c)
		if i == 0 {
			if !strings.Contains(out, "deposited=0.05 USDC") {
				t.Fatalf("the first call made no deposit of 0.05: %q", out)
			}
			channelID = regexp.MustCompile(`channel=(0x[0-9a-fA-F]{64})`).FindStringSubmatch(out)[1]
		}
	}
	out := call("--refund")
	want := new(big.Int).Sub(big.NewInt(50_000), charged)
	if !strings.Contains(out, "refund: amount="+x402.FormatUSDC(want)+" USDC") || !strings.Contains(out, channelID) {
		t.Fatalf("refund printed %q, want %s USDC back from channel %s", out, x402.FormatUSDC(want), channelID)
	}
	if spent := new(big.Int).Sub(payerBefore, balance(payerAddr)); spent.Cmp(charged) != 0 {
		t.Errorf("payer is short of %s after the refund, want exactly the charges %s", spent, charged)
	}
	if earned := new(big.Int).Sub(balance(payTo), payToBefore); earned.Cmp(charged) != 0 {
		t.Errorf("pay_to got %s, want exactly the charges %s", earned, charged)
	}
	if held := new(big.Int).Sub(balance(contracts.CanonicalBatchSettlement), escrowBefore); held.Sign() != 0 {
		t.Errorf("the settlement contract still holds %s of this channel", held)
	}
	cs := channel.NewContracts(big.NewInt(1337), contracts.CanonicalBatchSettlement, contracts.CanonicalERC3009DepositCollector,
		contracts.CanonicalPermit2DepositCollector, contracts.CanonicalPermit2)
	o, err := cs.ReadOnchain(ctx, rpc, common.HexToHash(channelID))
	if err != nil {
		t.Fatal(err)
	}
	if left := new(big.Int).Sub(o.Balance, o.TotalClaimed); left.Sign() != 0 || o.TotalClaimed.Cmp(charged) != 0 {
		t.Errorf("channel on chain: balance %s, totalClaimed %s: want nothing left in escrow and %s claimed", o.Balance, o.TotalClaimed, charged)
	}
}

// TestFareboxCallAfterRefundJustWorks: on one `farebox dev`, a payer with
// no chain access of its own (no --rpc-url) pays twice, takes its refund,
// then calls again: the channel record followed the refund, so the next
// call deposits afresh on top of what was claimed instead of being refused
// with a cumulative-amount mismatch; a second refund then leaves the payer
// short of exactly the three charges, judged on chain.
func TestFareboxCallAfterRefundJustWorks(t *testing.T) {
	ctx := context.Background()
	key, _ := crypto.GenerateKey()
	payerAddr := crypto.PubkeyToAddress(key.PublicKey)
	_, banner := startDevCommand(t, "--fund", payerAddr.Hex()+"=1")
	base := field(t, banner, `base URL\s+(\S+)`)
	rpcURL := field(t, banner, `chain RPC\s+(\S+)`)
	token := common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`))
	rpc, err := ethclientDial(ctx, rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	balance := func(who common.Address) *big.Int {
		awaitRelayer(t, rpc, devRelayer)
		return tokenBalance(t, rpc, token, who)
	}
	payerBefore := balance(payerAddr)
	keyHex := hex.EncodeToString(crypto.FromECDSA(key))
	dir := t.TempDir()
	call := func(args ...string) string {
		t.Helper()
		out, err := callWith(t, keyHex, append([]string{"--base-url", base, "--channels", dir, "--model", DevMeteredModel}, args...)...)
		if err != nil {
			t.Fatalf("farebox call %v: %v", args, err)
		}
		return out
	}
	amountRe := regexp.MustCompile(`amount=([0-9.]+) USDC`)
	charged := new(big.Int)
	pay := func(prompt string) {
		t.Helper()
		out := call("--scheme", "batch-settlement", "--max-price", "0.01", "--max-deposit", "0.05", prompt)
		m := amountRe.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("call printed %q", out)
		}
		c, err := x402.ParseUSDC(m[1])
		if err != nil || c.Sign() <= 0 {
			t.Fatalf("call charged %q: %v", m[1], err)
		}
		charged.Add(charged, c)
	}
	pay("hello")
	pay("hello again, by voucher")
	call("--refund")
	pay("hello after the refund")
	if out := call("--refund"); !strings.Contains(out, "refund: amount=") {
		t.Fatalf("the second refund printed %q", out)
	}
	if spent := new(big.Int).Sub(payerBefore, balance(payerAddr)); spent.Cmp(charged) != 0 {
		t.Errorf("payer is short of %s after two refunds, want exactly the three charges %s", spent, charged)
	}
}
