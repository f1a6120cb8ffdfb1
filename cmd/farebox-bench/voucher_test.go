package main

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/x402"
)

// The voucher arm's farebox config is one farebox accepts: settler chain,
// the claim interval, and a per-token model beside the free one.
func TestVoucherConfigLoads(t *testing.T) {
	fake, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	h := &harness{tmp: t.TempDir(), kind: "openai", logLevel: "info", fake: fake}
	a := &chaintest.Anvil{RPCURL: "http://127.0.0.1:1", Network: x402.NewNetwork("eip155:84532", "base-sepolia", big.NewInt(chaintest.ChainID),
		common.HexToAddress("0x0000000000000000000000000000000000b3c4d5"), "USDC", "2")}
	va := &voucherArm{anvil: a, payTo: common.HexToAddress("0x00000000000000000000000000000000000b3c4d")}
	path := filepath.Join(h.tmp, "v.yaml")
	if err := os.WriteFile(path, []byte(h.voucherConfig("127.0.0.1:0", va)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := gateway.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Payments.Settler != "chain" || time.Duration(cfg.Payments.BatchSettlement.ClaimInterval) != voucherClaimInterval {
		t.Errorf("payments %+v", cfg.Payments)
	}
	var metered *gateway.ModelConfig
	for i := range cfg.Models {
		if cfg.Models[i].Name == voucherModel {
			metered = &cfg.Models[i]
		}
	}
	if metered == nil || metered.PricePerMTok == nil || metered.PricePerMTok.MaxPerCall != voucherCeiling || metered.Price != "" {
		t.Errorf("the per-token model: %+v", metered)
	}
}

// The voucher arm's referee on a real anvil: balances that moved as the
// receipts said are ok; a charge pay_to never received, or a deposit the
// payer's wallet does not show, is a mismatch.
func TestVoucherJudge(t *testing.T) {
	a := chaintest.StartAnvil(t)
	ctx := context.Background()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	vp := &voucherPayer{addr: crypto.PubkeyToAddress(key.PublicKey), charged: new(big.Int), deposited: new(big.Int)}
	if err := a.Fund(ctx, vp.addr, 5_000); err != nil {
		t.Fatal(err)
	}
	va := &voucherArm{anvil: a, gasPayer: crypto.PubkeyToAddress(a.RelayerKey.PublicKey), payTo: common.HexToAddress("0x00000000000000000000000000000000000b3c4d"),
		before: map[common.Address]*big.Int{}, payers: []*voucherPayer{vp}}
	for _, who := range []common.Address{vp.addr, va.payTo} {
		if va.before[who], err = usdcBalance(ctx, a, who); err != nil {
			t.Fatal(err)
		}
	}
	if verdict, err := va.judge(ctx, 2*time.Second); err != nil || !strings.HasPrefix(verdict, "ok") {
		t.Fatalf("nothing paid, nothing moved: %q, %v", verdict, err)
	}
	vp.charged.SetInt64(46)
	if verdict, err := va.judge(ctx, time.Second); err != nil || !strings.Contains(verdict, "MISMATCH") || !strings.Contains(verdict, va.payTo.Hex()) {
		t.Fatalf("a charge pay_to never received: %q, %v", verdict, err)
	}
	vp.charged.SetInt64(0)
	vp.deposited.SetInt64(5_000)
	if verdict, err := va.judge(ctx, time.Second); err != nil || !strings.Contains(verdict, "MISMATCH") || !strings.Contains(verdict, vp.addr.Hex()) {
		t.Fatalf("a deposit the wallet does not show: %q, %v", verdict, err)
	}
}
