// Package redisstore is an x402.ReplayStore on Redis, for several farebox
// replicas behind a load balancer: every replica sees every reservation, so
// one authorization is served once across the fleet. It needs Redis 7.0 or
// later (SET ... PXAT and PEXPIRETIME).
package redisstore

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/x402"
)

// DefaultPrefix namespaces farebox's keys when the operator sets none.
const DefaultPrefix = "farebox:x402:replay:"

// Values stored under a key: the two states of an authorization.
const (
	valueReserved = "reserved"
	valueUsed     = "used"
)

// maxExpiry bounds PXAT: later expiries (an absurd validBefore) are kept
// until then, which is forever for any practical purpose.
var maxExpiry = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// commitScript marks the key used until the later of its current expiry and
// ARGV[1] (ms since the epoch), whether or not a reservation is still there:
// the authorization was settled, so it must stay refused even if its
// reservation expired or was lost.
var commitScript = redis.NewScript(`
local at = tonumber(ARGV[1])
local cur = redis.call('PEXPIRETIME', KEYS[1])
if cur == -1 then
  return redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
end
if cur > at then at = cur end
return redis.call('SET', KEYS[1], ARGV[2], 'PXAT', at)
`)

// releaseScript deletes the key only while it is a reservation, so that a
// committed authorization is never freed by a late or duplicate Release.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)

// Store is a ReplayStore whose state lives in Redis; a Store holds no state
// of its own, so any number of them (one per replica) may share a server.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	owned  bool // rdb was made by Open, so Close closes it
}

var _ x402.ReplayStore = (*Store)(nil)

// New returns a store on rdb whose keys start with prefix (DefaultPrefix when
// empty). Replicas that must refuse each other's authorizations use the same
// prefix.
func New(rdb redis.UniversalClient, prefix string) *Store {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Store{rdb: rdb, prefix: prefix}
}

// Open connects to the Redis at rawURL ("redis://[user:pass@]host:port/db",
// "rediss://" for TLS, or "unix://") and checks that it answers within ctx.
func Open(ctx context.Context, rawURL, prefix string) (*Store, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redisstore: %w", err)
	}
	s := New(redis.NewClient(opt), prefix)
	s.owned = true
	if err := s.Ping(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the connections of a store made by Open; a store made by
// New leaves its client to whoever made it.
func (s *Store) Close() error {
	if !s.owned {
		return nil
	}
	return s.rdb.Close()
}

// KeyName is the Redis key of k: prefix + chainId:asset:from:nonce, with
// addresses and nonce in lowercase 0x hex, so every replica derives the
// same name whatever the checksum casing the payer used.
func (s *Store) KeyName(k x402.Key) string {
	var b strings.Builder
	b.Grow(len(s.prefix) + len(k.ChainID) + 3*2 + 40 + 40 + 64 + 3)
	b.WriteString(s.prefix)
	b.WriteString(k.ChainID)
	b.WriteString(":0x")
	b.WriteString(hex.EncodeToString(k.Asset[:]))
	b.WriteString(":0x")
	b.WriteString(hex.EncodeToString(k.From[:]))
	b.WriteString(":0x")
	b.WriteString(hex.EncodeToString(k.Nonce[:]))
	return b.String()
}

// Reserve claims k until expires with one atomic SET NX PXAT: of many
// replicas racing on one authorization exactly one succeeds; the others get
// x402.ErrReplay. Any other error (Redis unreachable) is not ErrReplay, so
// the caller refuses to serve rather than risk a double spend.
func (s *Store) Reserve(ctx context.Context, k x402.Key, expires time.Time) error {
	err := s.rdb.Do(ctx, "SET", s.KeyName(k), valueReserved, "NX", "PXAT", millis(expires)).Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, redis.Nil):
		return x402.ErrReplay
	default:
		return fmt.Errorf("redisstore: reserve: %w", err)
	}
}

// Commit marks k used for good, kept until the later of its reservation's
// expiry and expires (the authorization's validBefore). It records k even
// when no reservation is left, because the money has moved.
func (s *Store) Commit(ctx context.Context, k x402.Key, expires time.Time) error {
	if err := commitScript.Run(ctx, s.rdb, []string{s.KeyName(k)}, millis(expires), valueUsed).Err(); err != nil {
		return fmt.Errorf("redisstore: commit: %w", err)
	}
	return nil
}

// Release frees k if it is still only reserved, so the payer may retry with
// the same authorization; a committed key stays used.
func (s *Store) Release(ctx context.Context, k x402.Key) error {
	if err := releaseScript.Run(ctx, s.rdb, []string{s.KeyName(k)}, valueReserved).Err(); err != nil {
		return fmt.Errorf("redisstore: release: %w", err)
	}
	return nil
}

// Ping reports whether Redis answers, for readiness checks.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redisstore: %w", err)
	}
	return nil
}

// millis is t as PXAT wants it: milliseconds since the epoch, at least 1
// (an expiry in the past makes the key vanish at once: such an
// authorization cannot settle anyway) and at most maxExpiry.
func millis(t time.Time) int64 {
	if t.After(maxExpiry) {
		t = maxExpiry
	}
	return max(t.UnixMilli(), 1)
}
