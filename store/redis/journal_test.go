package redis_test

import (
	"context"
	"github.com/farebox/farebox/store/redis"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/settle/journaltest"
)

// client is one real redis-server per test; subtests get their own prefix.
func client(t *testing.T) *goredis.Client {
	rdb := goredis.NewClient(&goredis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func prefix(t *testing.T) string {
	return "test:" + strings.NewReplacer("/", ":", " ", "_").Replace(t.Name()) + ":"
}

func TestJournal(t *testing.T) {
	rdb := client(t)
	journaltest.Run(t, func(t *testing.T) settle.Journal { return redis.NewJournal(rdb, prefix(t)) })
}

func TestHolds(t *testing.T) {
	rdb := client(t)
	journaltest.RunHolds(t, func(t *testing.T) settle.Holds { return redis.NewHolds(rdb, prefix(t)) })
}

// The keys are where the package doc says, so operators can find them.
func TestKeysLiveUnderThePrefix(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	j := redis.NewJournal(rdb, "ops:")
	e := journaltest.NewEntry([20]byte{7})
	e.PaymentID = "pay_0123456789abcdef"
	if _, err := j.Create(ctx, e); err != nil {
		t.Fatal(err)
	}
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"ops:e:" + e.Name(): true, "ops:open": true, "ops:epoch": true, "ops:id:" + settle.IDName(e.Payer, e.PaymentID): true}
	if len(keys) != len(want) {
		t.Fatalf("keys = %v, want %v", keys, want)
	}
	for _, k := range keys {
		if !want[k] {
			t.Fatalf("unexpected key %q (all: %v)", k, keys)
		}
	}
}

// TestOneReplicaClaimsAnOrphan: of two replicas (or one asking twice)
// claiming the same entry, the first claim holds; once it lapses, a
// claim is new again.
func TestOneReplicaClaimsAnOrphan(t *testing.T) {
	ctx := context.Background()
	j := redis.NewJournal(client(t), prefix(t))
	name := journaltest.NewEntry([20]byte{9}).Name()
	for i, c := range []struct {
		owner string
		want  bool
	}{{"a:1", true}, {"b:2", false}, {"a:1", false}} {
		got, err := j.Claim(ctx, name, c.owner, time.Minute)
		if err != nil || got != c.want {
			t.Fatalf("claim %d by %s = %v, %v; want %v", i, c.owner, got, err, c.want)
		}
	}
	other := journaltest.NewEntry([20]byte{9}).Name()
	if got, err := j.Claim(ctx, other, "a:1", 50*time.Millisecond); err != nil || !got {
		t.Fatalf("a claim on another entry = %v, %v", got, err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got, err := j.Claim(ctx, other, "b:2", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if got {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a lapsed claim is still held")
		}
	}
}
