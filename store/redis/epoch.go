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

// ensureEpochScript writes ARGV[1] as the epoch when there is none and,
// when ARGV[2] is '1' (a loss seen) and the epoch is not ARGV[4] (the
// one this replica knew), ARGV[3] as the loss time: also when another
// replica, which never knew the old epoch, already wrote a new one
// without a loss time, so that it learns of the loss too. A loss time
// another replica wrote for the same loss stays. It returns the epoch and
// the last loss time.
var ensureEpochScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[1])
end
if ARGV[2] == '1' and cur ~= ARGV[4] and (not cur or not redis.call('GET', KEYS[2])) then
  redis.call('SET', KEYS[2], ARGV[3])
end
return {cur or ARGV[1], redis.call('GET', KEYS[2]) or ''}
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
	return j.adoptEpochOn(ctx, j.rdb, lost)
}

// adoptEpochOn is adoptEpoch on one client or connection (the connect
// hook runs on the connection it is opening).
func (j *Journal) adoptEpochOn(ctx context.Context, c goredis.Scripter, lost bool) (string, error) {
	flag := "0"
	if lost {
		flag = "1"
	}
	j.epoch.mu.Lock()
	known := j.epoch.known
	j.epoch.mu.Unlock()
	now := time.Now().UnixMilli()
	res, err := ensureEpochScript.Run(ctx, c, []string{j.epochKey(), j.lostKey()}, newEpoch(), flag, now, known).StringSlice()
	if err != nil || len(res) != 2 {
		return "", fmt.Errorf("redisjournal: store epoch: %w", err)
	}
	if lost {
		j.log.Warn("Redis lost farebox's data (its store epoch is gone): new authorizations are checked against the chain's pending state for a while",
			"prefix", j.prefix)
	}
	j.epoch.mu.Lock()
	defer j.epoch.mu.Unlock()
	j.epoch.known = res[0]
	j.noteLost(res[1])
	if lost && j.epoch.lostAt.IsZero() {
		// The loss time is gone too (a second loss in between): this
		// one is the loss seen now.
		j.epoch.lostAt = time.UnixMilli(now)
	}
	return res[0], nil
}

// noteLost keeps the later of the loss time this replica knows and ms (a
// stored loss time, "" when none); the caller holds j.epoch.mu.
func (j *Journal) noteLost(ms string) {
	if n, err := strconv.ParseInt(ms, 10, 64); err == nil {
		if at := time.UnixMilli(n); at.After(j.epoch.lostAt) {
			j.epoch.lostAt = at
		}
	}
}

// learnLost records a loss time another replica stored (the create
// script returns it), so a replica that started on the emptied Redis
// is careful too once a replica that lived through the loss saw it.
func (j *Journal) learnLost(ms string) {
	if ms == "" {
		return
	}
	j.epoch.mu.Lock()
	defer j.epoch.mu.Unlock()
	j.noteLost(ms)
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
	return j.checkEpochOn(ctx, j.rdb)
}

// CheckLoss reads the store's epoch (settle.LossReporter): at the
// engine's start, so that a replica knows the epoch before its first
// purchase and a loss after it is seen as one.
func (j *Journal) CheckLoss(ctx context.Context) error { return j.checkEpoch(ctx) }

// epochReader is what checkEpochOn needs of a client or connection.
type epochReader interface {
	goredis.Scripter
	Get(ctx context.Context, key string) *goredis.StringCmd
}

func (j *Journal) checkEpochOn(ctx context.Context, c epochReader) error {
	j.epoch.mu.Lock()
	known := j.epoch.known
	j.epoch.mu.Unlock()
	if known == "" {
		_, err := j.adoptEpochOn(ctx, c, false)
		return err
	}
	cur, err := c.Get(ctx, j.epochKey()).Result()
	if err != nil && !errors.Is(err, goredis.Nil) {
		return fmt.Errorf("redisjournal: store epoch: %w", err)
	}
	if cur != known {
		_, err = j.adoptEpochOn(ctx, c, true)
		return err
	}
	lost, err := c.Get(ctx, j.lostKey()).Result()
	if err != nil && !errors.Is(err, goredis.Nil) {
		return fmt.Errorf("redisjournal: store loss time: %w", err)
	}
	j.learnLost(lost)
	return nil
}

// onConnect checks the epoch on every new connection: a Redis that
// restarted (empty or not) is reconnected to before any command, so a
// loss is seen at once, not at the next create or readiness probe. A
// failed check does not refuse the connection: the create script checks
// the epoch again.
func (j *Journal) onConnect(ctx context.Context, cn *goredis.Conn) error {
	if err := j.checkEpochOn(ctx, cn); err != nil {
		j.log.Warn("checking the Redis store epoch on a new connection", "err", err)
	}
	return nil
}
