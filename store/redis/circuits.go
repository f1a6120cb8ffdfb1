package redis

import (
	"context"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Circuits keeps circuits in Redis, so every replica skips a supplier
// that failed at any of them and only one probes it. When Redis cannot be
// reached a circuit counts as closed: a supplier is called rather than a
// call refused.
type Circuits struct {
	rdb    goredis.UniversalClient
	prefix string
}

// NewCircuits keeps circuits under prefix in rdb.
func NewCircuits(rdb goredis.UniversalClient, prefix string) *Circuits {
	return &Circuits{rdb: rdb, prefix: prefix}
}

// stateTTL forgets a circuit nobody touched for a day.
const stateTTL = 24 * time.Hour

var (
	allowScript = goredis.NewScript(`
local f = tonumber(redis.call('HGET', KEYS[1], 'f') or '0')
if f < tonumber(ARGV[1]) then return 1 end
local now = tonumber(ARGV[2])
if now < tonumber(redis.call('HGET', KEYS[1], 'u') or '0') then return 0 end
redis.call('HSET', KEYS[1], 'u', now + tonumber(ARGV[3]))
return 1`)
	failureScript = goredis.NewScript(`
local f = redis.call('HINCRBY', KEYS[1], 'f', 1)
if f >= tonumber(ARGV[1]) then redis.call('HSET', KEYS[1], 'u', tonumber(ARGV[2]) + tonumber(ARGV[3])) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return f`)
)

func (r *Circuits) key(k string) string { return r.prefix + k }

// Allow implements pool.Circuits.
func (r *Circuits) Allow(ctx context.Context, key string, now time.Time, failures int, cooldown time.Duration) bool {
	v, err := allowScript.Run(context.WithoutCancel(ctx), r.rdb, []string{r.key(key)}, failures, now.UnixMilli(), cooldown.Milliseconds()).Int()
	return err != nil || v == 1
}

// Success implements pool.Circuits.
func (r *Circuits) Success(ctx context.Context, key string) {
	r.rdb.Del(context.WithoutCancel(ctx), r.key(key))
}

// Failure implements pool.Circuits.
func (r *Circuits) Failure(ctx context.Context, key string, now time.Time, failures int, cooldown time.Duration) {
	failureScript.Run(context.WithoutCancel(ctx), r.rdb, []string{r.key(key)}, failures, now.UnixMilli(),
		cooldown.Milliseconds(), stateTTL.Milliseconds())
}

// Open implements pool.Circuits.
func (r *Circuits) Open(ctx context.Context, key string, now time.Time, failures int) bool {
	vals, err := r.rdb.HMGet(ctx, r.key(key), "f", "u").Result()
	if err != nil || vals[0] == nil {
		return false
	}
	var f, u int64
	if s, ok := vals[0].(string); ok {
		f = atoi(s)
	}
	if s, ok := vals[1].(string); ok {
		u = atoi(s)
	}
	return f >= int64(failures) && now.UnixMilli() < u
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
