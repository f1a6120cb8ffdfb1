package service

import (
	"bytes"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/channel"
)

// EncodeRecord writes what encoding/json writes for a Record.
func TestEncodeRecordMatchesEncodingJSON(t *testing.T) {
	st := channel.NewState([32]byte{1, 2}, channel.Config{Payer: common.Address{0xab}, Receiver: common.Address{0xcd}, WithdrawDelay: 900},
		channel.Onchain{Balance: big.NewInt(10_000)}, time.UnixMilli(1_800_000_000_123))
	for i, rec := range []*Record{
		{State: st, Rev: 7},
		{State: st, Rev: 8, Deposit: &PendingTx{Tx: common.Hash{9}, Amount: "5000"}},
		{State: st, Rev: 9, Quarantine: &Quarantine{Reason: "reverted \"x\"", At: 5}, RefundedAt: 1_800_000_000_000},
		{State: st, Deposit: &PendingTx{Tx: common.Hash{1}}, Quarantine: &Quarantine{Reason: "r"}, RefundedAt: -1},
	} {
		got, err := EncodeRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(rec)
		if !bytes.Equal(got, want) {
			t.Fatalf("record %d:\n got %s\nwant %s", i, got, want)
		}
		back, err := DecodeRecord(got)
		if err != nil || back.Rev != rec.Rev || back.RefundedAt != rec.RefundedAt || (back.Deposit == nil) != (rec.Deposit == nil) {
			t.Fatalf("record %d read back %+v %v", i, back, err)
		}
	}
}
