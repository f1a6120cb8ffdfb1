package channel

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// TestSettlementABIIsTheContracts holds the embedded part of the ABI equal,
// entry by entry, to the compiled x402BatchSettlement's.
func TestSettlementABIIsTheContracts(t *testing.T) {
	var full, ours []map[string]any
	b, err := os.ReadFile("../evm/contracts/x402BatchSettlement.abi")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &full); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(settlementJSON), &ours); err != nil {
		t.Fatal(err)
	}
	byName := map[string]map[string]any{}
	for _, e := range full {
		if e["type"] == "function" {
			byName[e["name"].(string)] = e
		}
	}
	if len(ours) != 10 {
		t.Fatalf("the embedded ABI has %d entries, want the 10 calls chain.go makes", len(ours))
	}
	for _, e := range ours {
		if want := byName[e["name"].(string)]; !reflect.DeepEqual(e, want) {
			t.Errorf("%s differs from the contract's:\n got %v\nwant %v", e["name"], e, want)
		}
	}
}

// TestSettlementCalldataIsTheBindings packs every call with tuples as the
// generated bindings do and expects the same bytes.
func TestSettlementCalldataIsTheBindings(t *testing.T) {
	bound := contracts.NewBatchSettlement()
	cfg := Config{Payer: common.HexToAddress("0x01"), PayerAuthorizer: common.HexToAddress("0x02"),
		Receiver: common.HexToAddress("0x03"), ReceiverAuthorizer: common.HexToAddress("0x04"),
		Token: common.HexToAddress("0x05"), WithdrawDelay: 900, Salt: [32]byte{6}}
	bc := contracts.X402BatchSettlementChannelConfig{Payer: cfg.Payer, PayerAuthorizer: cfg.PayerAuthorizer,
		Receiver: cfg.Receiver, ReceiverAuthorizer: cfg.ReceiverAuthorizer, Token: cfg.Token,
		WithdrawDelay: big.NewInt(900), Salt: cfg.Salt}
	claims := []Claim{{Config: cfg, MaxClaimable: big.NewInt(7), Signature: []byte{8, 9}, TotalClaimed: big.NewInt(5)}}
	bclaims := []contracts.X402BatchSettlementVoucherClaim{{Voucher: contracts.X402BatchSettlementVoucher{Channel: bc,
		MaxClaimableAmount: big.NewInt(7)}, Signature: []byte{8, 9}, TotalClaimed: big.NewInt(5)}}
	dep, err := settlementABI.TryPackDeposit(cfg.binding(), big.NewInt(10), common.HexToAddress("0x0a"), []byte{1})
	if err != nil {
		t.Fatal(err)
	}
	id := [32]byte{0x0b}
	for name, c := range map[string][2][]byte{
		"deposit":             {dep, bound.PackDeposit(bc, big.NewInt(10), common.HexToAddress("0x0a"), []byte{1})},
		"claim":               {ClaimCalldata(claims), bound.PackClaim(bclaims)},
		"claimWithSignature":  {settlementABI.PackClaimWithSignature(bindClaims(claims), []byte{1}), bound.PackClaimWithSignature(bclaims, []byte{1})},
		"settle":              {SettleCalldata(cfg.Receiver, cfg.Token), bound.PackSettle(cfg.Receiver, cfg.Token)},
		"refund":              {RefundCalldata(cfg, big.NewInt(3)), bound.PackRefund(bc, big.NewInt(3))},
		"refundWithSignature": {settlementABI.PackRefundWithSignature(cfg.binding(), big.NewInt(3), big.NewInt(4), []byte{1}), bound.PackRefundWithSignature(bc, big.NewInt(3), big.NewInt(4), []byte{1})},
		"channels":            {settlementABI.PackChannels(id), bound.PackChannels(id)},
		"pendingWithdrawals":  {settlementABI.PackPendingWithdrawals(id), bound.PackPendingWithdrawals(id)},
		"refundNonce":         {settlementABI.PackRefundNonce(id), bound.PackRefundNonce(id)},
		"multicall":           {settlementABI.PackMulticall([][]byte{{1}, {2, 3}}), bound.PackMulticall([][]byte{{1}, {2, 3}})},
	} {
		if !bytes.Equal(c[0], c[1]) {
			t.Errorf("%s: calldata %x, the bindings pack %x", name, c[0], c[1])
		}
	}
}
