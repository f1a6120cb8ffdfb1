package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/x402/settle"
)

// The store epoch tells a Redis that lost its data (restarted without
// persistence, flushed, failed over to an empty replica) from one that
// kept it: a random value written once, which every Create checks in the
// same script. A missing or different epoch means the journal forgot
// entries this replica may still be settling, so an authorization it holds
// could be taken for a new one; the replica then writes a new epoch and the
// time of the loss, and the engine checks every new authorization against
// the chain's pending state for a while (settle.LossReporter).
//
//	<prefix>epoch   the store's epoch
//	<prefix>lost    unix ms of the last loss a replica noticed
type epochState struct {
	mu     sync.Mutex
	known  string
	lostAt time.Time
}

var _ settle.LossReporter = (*Journal)(nil)

// ensureEpochScript writes ARGV[1] as the epoch when there is none (and,
// when ARGV[2] is '1', ARGV[3] as the loss time), then returns the epoch
// and the last loss time.
var ensureEpochScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[1])
  cur = ARGV[1]
  if ARGV[2] == '1' then redis.call('SET', KEYS[2], ARGV[3]) end
end
return {cur, redis.call('GET', KEYS[2]) or ''}
`)

func (j *Journal) epochKey() string { return j.prefix + "epoch" }
func (j *Journal) lostKey() string  { return j.prefix + "lost" }

func newEpoch() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// knownEpoch is the epoch this replica last saw, read (or written) on
// first use: a Redis that is empty when the replica starts is new to it,
// not a loss.
func (j *Journal) knownEpoch(ctx context.Context) (string, error) {
	j.epoch.mu.Lock()
	known := j.epoch.known
	j.epoch.mu.Unlock()
	if known != "" {
		return known, nil
	}
	return j.adoptEpoch(ctx, false)
}

// adoptEpoch reads the store's epoch, writing a new one when it is
// missing (lost: and the loss time), and remembers it with the last loss.
func (j *Journal) adoptEpoch(ctx context.Context, lost bool) (string, error) {
	flag := "0"
	if lost {
		flag = "1"
	}
	now := time.Now().UnixMilli()
	res, err := ensureEpochScript.Run(ctx, j.rdb, []string{j.epochKey(), j.lostKey()}, newEpoch(), flag, now).StringSlice()
	if err != nil || len(res) != 2 {
		return "", fmt.Errorf("redisjournal: store epoch: %w", err)
	}
	j.epoch.mu.Lock()
	defer j.epoch.mu.Unlock()
	j.epoch.known = res[0]
	if ms, err := strconv.ParseInt(res[1], 10, 64); err == nil {
		if at := time.UnixMilli(ms); at.After(j.epoch.lostAt) {
			j.epoch.lostAt = at
		}
	}
	if lost && j.epoch.lostAt.IsZero() {
		// Another replica wrote the new epoch but its loss time is gone
		// (a second loss in between): this one is the loss seen now.
		j.epoch.lostAt = time.UnixMilli(now)
	}
	return res[0], nil
}

// LostAt is when this journal's Redis was last seen to have lost its data
// (zero: never since this replica started, nor noticed by another).
func (j *Journal) LostAt() time.Time {
	j.epoch.mu.Lock()
	defer j.epoch.mu.Unlock()
	return j.epoch.lostAt
}

// checkEpoch compares the store's epoch with the one this replica knows,
// so a loss is noticed by the readiness probe (and at start) even before
// a purchase comes.
func (j *Journal) checkEpoch(ctx context.Context) error {
	j.epoch.mu.Lock()
	known := j.epoch.known
	j.epoch.mu.Unlock()
	if known == "" {
		_, err := j.adoptEpoch(ctx, false)
		return err
	}
	cur, err := j.rdb.Get(ctx, j.epochKey()).Result()
	if err != nil && !errors.Is(err, goredis.Nil) {
		return fmt.Errorf("redisjournal: store epoch: %w", err)
	}
	if cur != known {
		_, err = j.adoptEpoch(ctx, true)
	}
	return err
}
