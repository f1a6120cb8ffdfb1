package redisstore

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/internal/redistest"
	"github.com/farebox/farebox/x402"
)

// server starts a real redis-server for one test.
func server(t *testing.T) string {
	t.Helper()
	return redistest.Start(t)
}

// client connects a new client (one "replica") to addr.
func client(t *testing.T, addr string) *redis.Client { return clientTB(t, addr) }

func clientTB(t testing.TB, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 128})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// randomKey is an authorization no other test uses.
func randomKey(t *testing.T) x402.Key { return randomKeyTB(t) }

func randomKeyTB(t testing.TB) x402.Key {
	t.Helper()
	k := x402.Key{ChainID: "84532", Asset: x402.BaseSepolia.Asset}
	if _, err := rand.Read(k.From[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := rand.Read(k.Nonce[:]); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestOneOfAHundredConcurrentReservationsWins(t *testing.T) {
	s := New(client(t, server(t)), "")
	k := randomKey(t)
	expires := time.Now().Add(5 * time.Minute)
	var won, replays, others atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 100 {
		wg.Go(func() {
			<-start
			switch err := s.Reserve(context.Background(), k, expires); {
			case err == nil:
				won.Add(1)
			case errors.Is(err, x402.ErrReplay):
				replays.Add(1)
			default:
				others.Add(1)
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if won.Load() != 1 || replays.Load() != 99 || others.Load() != 0 {
		t.Fatalf("won %d, replays %d, other errors %d; want 1, 99, 0", won.Load(), replays.Load(), others.Load())
	}
}

func TestReleaseLetsTheSameAuthorizationBeReservedAgain(t *testing.T) {
	ctx := context.Background()
	s := New(client(t, server(t)), "")
	k := randomKey(t)
	exp := time.Now().Add(time.Minute)
	if err := s.Reserve(ctx, k, exp); err != nil {
		t.Fatal(err)
	}
	if err := s.Reserve(ctx, k, exp); !errors.Is(err, x402.ErrReplay) {
		t.Fatalf("second reserve while in flight: %v, want ErrReplay", err)
	}
	if err := s.Release(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := s.Reserve(ctx, k, exp); err != nil {
		t.Fatalf("reserve after release: %v", err)
	}
	if err := s.Release(ctx, randomKey(t)); err != nil {
		t.Fatalf("releasing an unknown key: %v", err)
	}
}

func TestCommitSurvivesRelease(t *testing.T) {
	ctx := context.Background()
	rdb := client(t, server(t))
	s := New(rdb, "")
	k := randomKey(t)
	exp := time.Now().Add(time.Minute)
	if err := s.Reserve(ctx, k, exp); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, k, exp); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := s.Reserve(ctx, k, exp); !errors.Is(err, x402.ErrReplay) {
		t.Fatalf("reserve after commit + release: %v, want ErrReplay", err)
	}
	if got, err := rdb.Get(ctx, s.KeyName(k)).Result(); err != nil || got != "used" {
		t.Fatalf("value = %q, %v; want used", got, err)
	}

	lost := randomKey(t) // reservation gone (expired, or Redis lost it): commit still records
	if err := s.Commit(ctx, lost, exp); err != nil {
		t.Fatal(err)
	}
	if err := s.Reserve(ctx, lost, exp); !errors.Is(err, x402.ErrReplay) {
		t.Fatalf("reserve after a commit without reservation: %v, want ErrReplay", err)
	}
}

func TestEntriesExpireAtValidBefore(t *testing.T) {
	ctx := context.Background()
	rdb := client(t, server(t))
	s := New(rdb, "")
	k := randomKey(t)
	name := s.KeyName(k)
	reserved := time.Now().Add(time.Minute).Truncate(time.Millisecond)
	if err := s.Reserve(ctx, k, reserved); err != nil {
		t.Fatal(err)
	}
	if got := expireTime(t, rdb, name); !got.Equal(reserved) {
		t.Fatalf("reservation expires at %v, want %v", got, reserved)
	}
	later := reserved.Add(time.Hour)
	if err := s.Commit(ctx, k, later); err != nil {
		t.Fatal(err)
	}
	if got := expireTime(t, rdb, name); !got.Equal(later) {
		t.Fatalf("commit expires at %v, want %v", got, later)
	}
	if err := s.Commit(ctx, k, reserved); err != nil {
		t.Fatal(err)
	}
	if got := expireTime(t, rdb, name); !got.Equal(later) {
		t.Fatalf("a second commit shortened the expiry to %v, want %v", got, later)
	}

	short := randomKey(t)
	soon := time.Now().Add(300 * time.Millisecond)
	if err := s.Reserve(ctx, short, soon); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, short, soon); err != nil {
		t.Fatal(err)
	}
	if err := s.Reserve(ctx, short, soon); !errors.Is(err, x402.ErrReplay) {
		t.Fatalf("reserve before validBefore: %v", err)
	}
	waitGone(t, rdb, s.KeyName(short))
	if err := s.Reserve(ctx, short, time.Now().Add(time.Minute)); err != nil {
		t.Fatalf("reserve after validBefore passed: %v", err)
	}
}

// expireTime reads the key's absolute expiry from Redis.
func expireTime(t *testing.T, rdb *redis.Client, name string) time.Time {
	t.Helper()
	ms, err := rdb.Do(context.Background(), "PEXPIRETIME", name).Int64()
	if err != nil || ms < 0 {
		t.Fatalf("PEXPIRETIME %s = %d, %v", name, ms, err)
	}
	return time.UnixMilli(ms)
}

// waitGone polls until Redis has expired the key (bounded, so a key that
// never expires fails the test instead of hanging it).
func waitGone(t *testing.T, rdb *redis.Client, name string) {
	t.Helper()
	for range 500 {
		n, err := rdb.Exists(context.Background(), name).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		pttl, _ := rdb.PTTL(context.Background(), name).Result()
		time.Sleep(min(max(pttl, time.Millisecond), 20*time.Millisecond))
	}
	t.Fatalf("%s never expired", name)
}

func TestTwoReplicasShareState(t *testing.T) {
	ctx := context.Background()
	addr := server(t)
	a, b := New(client(t, addr), "farebox-test:"), New(client(t, addr), "farebox-test:")
	k := randomKey(t)
	exp := time.Now().Add(time.Minute)
	if err := a.Reserve(ctx, k, exp); err != nil {
		t.Fatal(err)
	}
	if err := b.Reserve(ctx, k, exp); !errors.Is(err, x402.ErrReplay) {
		t.Fatalf("replica b reserved what a holds: %v", err)
	}
	if err := a.Commit(ctx, k, exp); err != nil {
		t.Fatal(err)
	}
	if err := b.Release(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := b.Reserve(ctx, k, exp); !errors.Is(err, x402.ErrReplay) {
		t.Fatalf("replica b freed a's committed key: %v", err)
	}

	race := randomKey(t)
	var won atomic.Int32
	var wg sync.WaitGroup
	for i := range 50 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			if err := s.Reserve(ctx, race, exp); err == nil {
				won.Add(1)
			} else if !errors.Is(err, x402.ErrReplay) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("%d replicas won one authorization, want 1", won.Load())
	}

	other := New(client(t, addr), "other-tenant:")
	if err := other.Reserve(ctx, k, exp); err != nil {
		t.Fatalf("a different prefix shares keys: %v", err)
	}
}

func TestKeyLayout(t *testing.T) {
	k := x402.Key{ChainID: "8453", Asset: common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
		From: common.HexToAddress("0xAbCdEf0123456789aBcDeF0123456789AbCdEf01")}
	k.Nonce[0], k.Nonce[31] = 0xAB, 0x01
	got := New(nil, "p:").KeyName(k)
	want := "p:8453:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913:0xabcdef0123456789abcdef0123456789abcdef01:0xab" +
		strings.Repeat("00", 30) + "01"
	if got != want {
		t.Fatalf("KeyName =\n%s\nwant\n%s", got, want)
	}
	if got := New(nil, "").KeyName(k); got[:len(DefaultPrefix)] != DefaultPrefix {
		t.Fatalf("default prefix missing: %s", got)
	}
}

func TestRedisDownIsNotAReplay(t *testing.T) {
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { _ = dead.Close() })
	s := New(dead, "")
	k := randomKey(t)
	err := s.Reserve(context.Background(), k, time.Now().Add(time.Minute))
	if err == nil || errors.Is(err, x402.ErrReplay) {
		t.Fatalf("reserve with Redis down = %v, want a non-replay error", err)
	}
	if err := s.Ping(context.Background()); err == nil {
		t.Fatal("Ping succeeded with Redis down")
	}
	if err := New(client(t, server(t)), "").Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func TestCanceledContextIsHonoured(t *testing.T) {
	s := New(client(t, server(t)), "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Reserve(ctx, randomKey(t), time.Now().Add(time.Minute)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Reserve with a canceled context: %v", err)
	}
}

func TestOpenConnectsByURL(t *testing.T) {
	addr := server(t)
	ctx := context.Background()
	s, err := Open(ctx, "redis://"+addr+"/0", "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	peer := New(client(t, addr), "")
	k := randomKey(t)
	if err := s.Reserve(ctx, k, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := peer.Reserve(ctx, k, time.Now().Add(time.Minute)); !errors.Is(err, x402.ErrReplay) {
		t.Fatalf("a store opened by URL does not share the server: %v", err)
	}
	if _, err := Open(ctx, "http://"+addr, ""); err == nil {
		t.Error("Open accepted an http URL")
	}
	if _, err := Open(ctx, "redis://127.0.0.1:1/0", ""); err == nil {
		t.Error("Open succeeded with nothing listening")
	}
}
