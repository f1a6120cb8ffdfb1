package redis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/channelstoretest"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/store/redis"
	"github.com/farebox/farebox/x402/channel/service"
	goredis "github.com/redis/go-redis/v9"
)

// TestRedisStore also checks that locks are shared between clients (replicas).
func TestRedisStore(t *testing.T) {
	addr := redistest.Start(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: addr})
	defer rdb.Close()
	channelstoretest.Contract(t, redis.NewChannels(rdb, "t1:"))
	other := goredis.NewClient(&goredis.Options{Addr: addr})
	defer other.Close()
	a, b := redis.NewChannels(rdb, "t2:"), redis.NewChannels(other, "t2:")
	unlock, err := a.TryLock(context.Background(), "claimer", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.TryLock(context.Background(), "claimer", time.Minute); !errors.Is(err, service.ErrLocked) {
		t.Fatalf("the other replica took a held lock: %v", err)
	}
	unlock()
	unlockB, err := b.TryLock(context.Background(), "claimer", time.Minute)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	unlockB()
	if err := a.Put(context.Background(), channelstoretest.Record(1, 10), 0); err != nil {
		t.Fatal(err)
	}
	if r, err := b.Get(context.Background(), [32]byte{1}); err != nil || r == nil || r.State.Charged.Int64() != 10 {
		t.Fatalf("the other replica reads %+v %v", r, err)
	}
}
