package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/farebox/farebox/x402/channel/service"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// DefaultChannelsPrefix namespaces the Redis store's keys when the operator
// sets none.
const DefaultChannelsPrefix = "farebox:channel:"

// Channels is a Store on Redis, shared by replicas: records and
// in-flight claims are keys under a prefix, writes are compare-and-swap
// scripts on the revision, locks are SET NX with a token, kept alive while
// held and lapsing after their ttl when the holder died:
//
//	<prefix>c:<channelId>   the record (JSON)
//	<prefix>channels        set of channel ids
//	<prefix>claims          hash key -> in-flight service.ClaimRecord (JSON)
//	<prefix>lock:<name>     a lock's token
type Channels struct {
	rdb    goredis.UniversalClient
	prefix string
	// journal is the journal on the same Redis, whose store epoch tells
	// a Redis that lost its data (nil: no loss is ever told).
	journal *Journal
}

var _ service.StoreLoss = (*Channels)(nil)

// LostAt implements service.StoreLoss: it checks the journal's store
// epoch on the same Redis (a restart emptied both) and returns the last
// loss any replica saw. The channel service asks only about a channel it
// has no record of, so a Redis that came back empty is seen before such a
// channel is rebuilt from the chain.
func (s *Channels) LostAt(ctx context.Context) (time.Time, error) {
	if s.journal == nil {
		return time.Time{}, nil
	}
	if err := s.journal.checkEpoch(ctx); err != nil {
		return time.Time{}, fmt.Errorf("channel store: %w", err)
	}
	return s.journal.LostAt(), nil
}

// NewChannels returns a Store on rdb under prefix (DefaultChannelsPrefix when "").
func NewChannels(rdb goredis.UniversalClient, prefix string) *Channels {
	if prefix == "" {
		prefix = DefaultChannelsPrefix
	}
	return &Channels{rdb: rdb, prefix: prefix}
}

func (s *Channels) recKey(id [32]byte) string { return s.prefix + "c:" + service.ChannelKey(id) }
func (s *Channels) setKey() string            { return s.prefix + "channels" }
func (s *Channels) claimsKey() string         { return s.prefix + "claims" }

var putScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
local rev = 0
if cur then rev = cjson.decode(cur)['rev'] end
if tostring(rev) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
return 1
`)

var deleteRecScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return 1 end
if tostring(cjson.decode(cur)['rev']) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
return 1
`)

// Get implements service.Store.
func (s *Channels) Get(ctx context.Context, id [32]byte) (*service.Record, error) {
	b, err := s.rdb.Get(ctx, s.recKey(id)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("channel store: %w", err)
	}
	return service.DecodeRecord(b)
}

// Put implements service.Store.
func (s *Channels) Put(ctx context.Context, rec *service.Record, prev uint64) error {
	next := *rec
	next.Rev = prev + 1
	v, err := service.EncodeRecord(&next)
	if err != nil {
		return err
	}
	ok, err := putScript.Run(ctx, s.rdb, []string{s.recKey(rec.State.ChannelID), s.setKey()},
		fmt.Sprint(prev), v, service.ChannelKey(rec.State.ChannelID)).Int()
	if err != nil {
		return fmt.Errorf("channel store: %w", err)
	}
	if ok == 0 {
		return service.ErrConflict
	}
	rec.Rev = next.Rev
	return nil
}

// Delete implements service.Store.
func (s *Channels) Delete(ctx context.Context, id [32]byte, prev uint64) error {
	ok, err := deleteRecScript.Run(ctx, s.rdb, []string{s.recKey(id), s.setKey()}, fmt.Sprint(prev), service.ChannelKey(id)).Int()
	if err != nil {
		return fmt.Errorf("channel store: %w", err)
	}
	if ok == 0 {
		return service.ErrConflict
	}
	return nil
}

// List implements service.Store.
func (s *Channels) List(ctx context.Context) ([]*service.Record, error) {
	ids, err := s.rdb.SMembers(ctx, s.setKey()).Result()
	if err != nil {
		return nil, fmt.Errorf("channel store: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = s.prefix + "c:" + id
	}
	vals, err := s.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, fmt.Errorf("channel store: %w", err)
	}
	out := make([]*service.Record, 0, len(vals))
	for _, v := range vals {
		str, ok := v.(string)
		if !ok {
			continue // deleted meanwhile
		}
		r, err := service.DecodeRecord([]byte(str))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// PutClaim implements service.Store.
func (s *Channels) PutClaim(ctx context.Context, c *service.ClaimRecord) error {
	v, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return s.rdb.HSet(ctx, s.claimsKey(), c.Key, v).Err()
}

// Claims implements service.Store.
func (s *Channels) Claims(ctx context.Context) ([]*service.ClaimRecord, error) {
	m, err := s.rdb.HGetAll(ctx, s.claimsKey()).Result()
	if err != nil {
		return nil, fmt.Errorf("channel store: %w", err)
	}
	out := make([]*service.ClaimRecord, 0, len(m))
	for _, v := range m {
		var c service.ClaimRecord
		if err := json.Unmarshal([]byte(v), &c); err != nil {
			return nil, err
		}
		out = append(out, &c)
	}
	return out, nil
}

// DeleteClaim implements service.Store.
func (s *Channels) DeleteClaim(ctx context.Context, key string) error {
	return s.rdb.HDel(ctx, s.claimsKey(), key).Err()
}

var unlockScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

var extendScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`)

// TryLock implements service.Store: SET NX PX with a random token, extended every
// ttl/3 while held, so a lock outlives a long answer but not its holder.
func (s *Channels) TryLock(ctx context.Context, name string, ttl time.Duration) (func(), error) {
	if ttl <= 0 {
		ttl = 30 * time.Second
	}
	var raw [16]byte
	_, _ = rand.Read(raw[:])
	token, key := hex.EncodeToString(raw[:]), s.prefix+"lock:"+name
	ok, err := s.rdb.SetNX(ctx, key, token, ttl).Result()
	if err != nil {
		return nil, fmt.Errorf("channel store: locking %s: %w", name, err)
	}
	if !ok {
		return nil, service.ErrLocked
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				c, cancel := context.WithTimeout(context.Background(), ttl/3)
				_ = extendScript.Run(c, s.rdb, []string{key}, token, ttl.Milliseconds()).Err()
				cancel()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-done
			c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = unlockScript.Run(c, s.rdb, []string{key}, token).Err()
		})
	}, nil
}
