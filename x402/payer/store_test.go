package payer_test

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
)

// TestFileChannelsLockAcrossStores: two stores on one directory (two
// processes) take turns on a key, and a waiter gives up with its context;
// records, pending deposits included, survive a new store.
func TestFileChannelsLockAcrossStores(t *testing.T) {
	dir := t.TempDir()
	a, _ := payer.NewFileChannels(dir)
	b, _ := payer.NewFileChannels(dir)
	k := payer.ChannelKey{Payer: common.HexToAddress("0x01"), Network: "eip155:84532", Receiver: common.HexToAddress("0x02")}
	unlock, err := a.Lock(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := b.Lock(ctx, k); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second store took a held lock: %v", err)
	}
	other := k
	other.Receiver = common.HexToAddress("0x03")
	u2, err := b.Lock(context.Background(), other)
	if err != nil {
		t.Fatalf("another key is blocked: %v", err)
	}
	u2()
	rec := &payer.ChannelRecord{ChannelID: common.HexToHash("0xc4"), Balance: big.NewInt(5000), Charged: big.NewInt(1234),
		Signed: big.NewInt(2234), Deposit: &payer.PendingDeposit{Method: channel.MethodEIP3009, Amount: big.NewInt(5000),
			Expires: 1_800_000_000, Nonce: make([]byte, 32), Signature: []byte{1, 2, 3}}}
	if err := a.Put(k, rec); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		u, err := b.Lock(context.Background(), k)
		if err == nil {
			u()
		}
		done <- err
	}()
	unlock()
	if err := <-done; err != nil {
		t.Fatalf("the waiter did not get the released lock: %v", err)
	}
	got, err := b.Get(k, rec.ChannelID)
	if err != nil || got == nil {
		t.Fatalf("record lost: %v", err)
	}
	if got.Balance.Int64() != 5000 || got.Charged.Int64() != 1234 || got.Signed.Int64() != 2234 || got.Deposit == nil ||
		got.Deposit.Amount.Int64() != 5000 || got.Deposit.Expires != 1_800_000_000 || len(got.Deposit.Signature) != 3 {
		t.Fatalf("record %+v, deposit %+v", got, got.Deposit)
	}
	if err := b.Delete(k, rec.ChannelID); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Get(k, rec.ChannelID); got != nil {
		t.Fatalf("deleted record still read: %+v", got)
	}
}
