// Package channelstoretest is the conformance suite of service.Store:
// every store of payment channels runs through the same checks.
package channelstoretest

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
)

// Record is a channel record with id and charged, the state every store
// test writes.
func Record(id byte, charged int64) *service.Record {
	st := channel.NewState([32]byte{id}, channel.Config{Payer: common.Address{1}, WithdrawDelay: 900},
		channel.Onchain{Balance: big.NewInt(10_000)}, time.UnixMilli(1_700_000_000_000))
	st.Charged = big.NewInt(charged)
	return &service.Record{State: st}
}

// Contract checks what the service relies on from every Store:
// compare-and-swap writes and deletes, listing, the claim journal, locks.
func Contract(t *testing.T, s service.Store) {
	ctx := context.Background()
	id := [32]byte{7}
	if r, err := s.Get(ctx, id); err != nil || r != nil {
		t.Fatalf("empty store: %v %v", r, err)
	}
	a := Record(7, 100)
	if err := s.Put(ctx, a, 0); err != nil || a.Rev != 1 {
		t.Fatalf("create: %v (rev %d)", err, a.Rev)
	}
	if err := s.Put(ctx, Record(7, 5), 0); !errors.Is(err, service.ErrConflict) {
		t.Fatalf("second create: %v, want a conflict", err)
	}
	b := Record(7, 250)
	b.Deposit = &service.PendingTx{Tx: common.Hash{9}, Amount: "5000"}
	if err := s.Put(ctx, b, 1); err != nil || b.Rev != 2 {
		t.Fatalf("update: %v (rev %d)", err, b.Rev)
	}
	if err := s.Put(ctx, Record(7, 1), 1); !errors.Is(err, service.ErrConflict) {
		t.Fatalf("stale update: %v, want a conflict", err)
	}
	got, err := s.Get(ctx, id)
	if err != nil || got.Rev != 2 || got.State.Charged.Int64() != 250 || got.Deposit == nil || got.Deposit.Tx != (common.Hash{9}) ||
		!got.State.OnchainSyncedAt.Equal(b.State.OnchainSyncedAt) {
		t.Fatalf("read back: %+v %v", got, err)
	}
	if err := s.Put(ctx, Record(8, 1), 0); err != nil {
		t.Fatal(err)
	}
	if all, err := s.List(ctx); err != nil || len(all) != 2 {
		t.Fatalf("list: %d %v", len(all), err)
	}
	if err := s.Delete(ctx, id, 1); !errors.Is(err, service.ErrConflict) {
		t.Fatalf("stale delete: %v", err)
	}
	if err := s.Delete(ctx, id, 2); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Get(ctx, id); r != nil {
		t.Fatal("deleted record still there")
	}
	if all, _ := s.List(ctx); len(all) != 1 {
		t.Fatalf("list after delete: %d", len(all))
	}
	c := &service.ClaimRecord{Key: "r/t", Tx: common.Hash{3}, Channels: []string{"0x01"}, Total: "42"}
	if err := s.PutClaim(ctx, c); err != nil {
		t.Fatal(err)
	}
	if cs, err := s.Claims(ctx); err != nil || len(cs) != 1 || cs[0].Tx != c.Tx || cs[0].Total != "42" {
		t.Fatalf("claims: %+v %v", cs, err)
	}
	if err := s.DeleteClaim(ctx, "r/t"); err != nil {
		t.Fatal(err)
	}
	if cs, _ := s.Claims(ctx); len(cs) != 0 {
		t.Fatalf("claims after delete: %+v", cs)
	}
	unlock, err := s.TryLock(ctx, "x", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.TryLock(ctx, "x", time.Minute); !errors.Is(err, service.ErrLocked) {
		t.Fatalf("second lock: %v", err)
	}
	other, err := s.TryLock(ctx, "y", time.Minute)
	if err != nil {
		t.Fatalf("another name: %v", err)
	}
	other()
	unlock()
	unlock()
	again, err := s.TryLock(ctx, "x", time.Minute)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	again()
}
