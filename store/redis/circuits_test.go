package redis_test

import (
	"testing"

	"github.com/farebox/farebox/internal/testkit/circuittest"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/store/redis"
	"github.com/farebox/farebox/upstream/pool"
	goredis "github.com/redis/go-redis/v9"
)

// Replicas sharing Redis share each supplier's circuit: the failures seen
// by one open it for the other, and only one of them probes.
func TestCircuitIsSharedThroughRedis(t *testing.T) {
	addr := redistest.Start(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	circuittest.OpensAndCloses(t, func() pool.Circuits { return redis.NewCircuits(rdb, "test:") })
}
