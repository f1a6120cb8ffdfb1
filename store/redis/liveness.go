package redis

import (
	"context"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/x402/settle"
)

var _ settle.Liveness = (*Journal)(nil)

func (j *Journal) liveKey(instance string) string { return j.prefix + "live:" + instance }

// Beat marks instance alive for ttl (SET PX): the replicas' engines beat
// while they run, and Adopt takes only the entries of those that stopped.
func (j *Journal) Beat(ctx context.Context, instance string, ttl time.Duration) error {
	if err := j.rdb.Set(ctx, j.liveKey(instance), time.Now().UTC().Format(time.RFC3339Nano), ttl).Err(); err != nil {
		return fmt.Errorf("redisjournal: beat: %w", err)
	}
	return nil
}

// Alive reports whether instance's beat has not lapsed.
func (j *Journal) Alive(ctx context.Context, instance string) (bool, error) {
	err := j.rdb.Get(ctx, j.liveKey(instance)).Err()
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, goredis.Nil):
		return false, nil
	default:
		return false, fmt.Errorf("redisjournal: alive: %w", err)
	}
}

// Gone ends instance's beat (a clean stop).
func (j *Journal) Gone(ctx context.Context, instance string) error {
	if err := j.rdb.Del(ctx, j.liveKey(instance)).Err(); err != nil {
		return fmt.Errorf("redisjournal: gone: %w", err)
	}
	return nil
}
