package x402

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func testKey(i byte) Key {
	k := Key{ChainID: "84532", Asset: BaseSepolia.Asset}
	k.Nonce[0] = i
	return k
}

func TestOneOfManyConcurrentReservationsWins(t *testing.T) {
	s := NewMemoryStore(1000)
	k := testKey(1)
	var wins, replays atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			switch err := s.Reserve(context.Background(), k, time.Now().Add(time.Minute)); {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, ErrReplay):
				replays.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if wins.Load() != 1 || replays.Load() != 99 {
		t.Fatalf("%d reservations won and %d were refused as replays, want 1 and 99", wins.Load(), replays.Load())
	}
}

func TestReleaseAllowsReuseCommitDoesNot(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore(10)
	exp := time.Now().Add(time.Minute)
	k := testKey(2)
	if err := s.Reserve(ctx, k, exp); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := s.Reserve(ctx, k, exp); err != nil {
		t.Fatalf("a released authorization could not be reserved again: %v", err)
	}
	if err := s.Commit(ctx, k, exp); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := s.Reserve(ctx, k, exp); !errors.Is(err, ErrReplay) {
		t.Fatalf("a settled authorization was reserved again: %v", err)
	}
}

func TestExpiredEntriesArePurged(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_000_000, 0)
	s := NewMemoryStore(2)
	s.Now = func() time.Time { return now }
	if err := s.Reserve(ctx, testKey(1), now.Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.Reserve(ctx, testKey(2), now.Add(20*time.Second)); err != nil {
		t.Fatal(err)
	}
	s.Commit(ctx, testKey(2), now.Add(20*time.Second))
	if err := s.Reserve(ctx, testKey(3), now.Add(time.Minute)); !errors.Is(err, ErrReplayStoreFull) {
		t.Fatalf("a full store took a third entry: %v", err)
	}
	now = now.Add(15 * time.Second)
	if err := s.Reserve(ctx, testKey(3), now.Add(time.Minute)); err != nil {
		t.Fatalf("the expired first entry was not purged: %v", err)
	}
	if err := s.Reserve(ctx, testKey(2), now.Add(time.Minute)); !errors.Is(err, ErrReplay) {
		t.Fatalf("a live committed entry was forgotten: %v", err)
	}
	now = now.Add(10 * time.Second)
	if err := s.Reserve(ctx, testKey(4), now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 {
		t.Fatalf("Len() = %d, want 2", s.Len())
	}
}

func TestPaymentKeyIgnoresSignature(t *testing.T) {
	f := newFixture(t)
	p := f.payment(2, nil)
	q := *p
	q.Signature = append([]byte(nil), p.Signature...)
	q.Signature[64] ^= 1
	if p.Key(BaseSepolia) != q.Key(BaseSepolia) {
		t.Fatal("the replay key depends on signature bytes")
	}
	if p.Key(BaseSepolia) == p.Key(Base) {
		t.Fatal("the replay key ignores the chain")
	}
	if got := p.Authorization.Expires().Unix(); got != p.Authorization.ValidBefore.Int64() {
		t.Fatalf("Expires() = %d, want validBefore", got)
	}
}
