package pool_test

import (
	"testing"

	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/redis/go-redis/v9"
)

// Replicas sharing Redis share each supplier's circuit: the failures seen
// by one open it for the other, and only one of them probes.
func TestCircuitIsSharedThroughRedis(t *testing.T) {
	addr := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	circuitOpensAndCloses(t, func() pool.Circuits { return pool.NewRedisCircuits(rdb, "test:") })
}
