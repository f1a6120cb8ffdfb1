package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisPrefix namespaces the Redis store's keys when the operator
// sets none.
const DefaultRedisPrefix = "farebox:channel:"

// RedisStore is a Store on Redis, shared by replicas: records and
// in-flight claims are keys under a prefix, writes are compare-and-swap
// scripts on the revision, locks are SET NX with a token, kept alive while
// held and lapsing after their ttl when the holder died:
//
//	<prefix>c:<channelId>   the record (JSON)
//	<prefix>channels        set of channel ids
//	<prefix>claims          hash key -> in-flight ClaimRecord (JSON)
//	<prefix>lock:<name>     a lock's token
type RedisStore struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewRedisStore returns a Store on rdb under prefix (DefaultRedisPrefix when "").
func NewRedisStore(rdb redis.UniversalClient, prefix string) *RedisStore {
	if prefix == "" {
		prefix = DefaultRedisPrefix
	}
	return &RedisStore{rdb: rdb, prefix: prefix}
}

func (s *RedisStore) recKey(id [32]byte) string { return s.prefix + "c:" + channelKey(id) }
func (s *RedisStore) setKey() string            { return s.prefix + "channels" }
func (s *RedisStore) claimsKey() string         { return s.prefix + "claims" }

var putScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
local rev = 0
if cur then rev = cjson.decode(cur)['rev'] end
if tostring(rev) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
return 1
`)

var deleteRecScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return 1 end
if tostring(cjson.decode(cur)['rev']) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
return 1
`)

// Get implements Store.
func (s *RedisStore) Get(ctx context.Context, id [32]byte) (*Record, error) {
	b, err := s.rdb.Get(ctx, s.recKey(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("channel store: %w", err)
	}
	return decodeRecord(b)
}

// Put implements Store.
func (s *RedisStore) Put(ctx context.Context, rec *Record, prev uint64) error {
	next := *rec
	next.Rev = prev + 1
	v, err := encodeRecord(&next)
	if err != nil {
		return err
	}
	ok, err := putScript.Run(ctx, s.rdb, []string{s.recKey(rec.State.ChannelID), s.setKey()},
		fmt.Sprint(prev), v, channelKey(rec.State.ChannelID)).Int()
	if err != nil {
		return fmt.Errorf("channel store: %w", err)
	}
	if ok == 0 {
		return ErrConflict
	}
	rec.Rev = next.Rev
	return nil
}

// Delete implements Store.
func (s *RedisStore) Delete(ctx context.Context, id [32]byte, prev uint64) error {
	ok, err := deleteRecScript.Run(ctx, s.rdb, []string{s.recKey(id), s.setKey()}, fmt.Sprint(prev), channelKey(id)).Int()
	if err != nil {
		return fmt.Errorf("channel store: %w", err)
	}
	if ok == 0 {
		return ErrConflict
	}
	return nil
}

// List implements Store.
func (s *RedisStore) List(ctx context.Context) ([]*Record, error) {
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
	out := make([]*Record, 0, len(vals))
	for _, v := range vals {
		str, ok := v.(string)
		if !ok {
			continue // deleted meanwhile
		}
		r, err := decodeRecord([]byte(str))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// PutClaim implements Store.
func (s *RedisStore) PutClaim(ctx context.Context, c *ClaimRecord) error {
	v, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return s.rdb.HSet(ctx, s.claimsKey(), c.Key, v).Err()
}

// Claims implements Store.
func (s *RedisStore) Claims(ctx context.Context) ([]*ClaimRecord, error) {
	m, err := s.rdb.HGetAll(ctx, s.claimsKey()).Result()
	if err != nil {
		return nil, fmt.Errorf("channel store: %w", err)
	}
	out := make([]*ClaimRecord, 0, len(m))
	for _, v := range m {
		var c ClaimRecord
		if err := json.Unmarshal([]byte(v), &c); err != nil {
			return nil, err
		}
		out = append(out, &c)
	}
	return out, nil
}

// DeleteClaim implements Store.
func (s *RedisStore) DeleteClaim(ctx context.Context, key string) error {
	return s.rdb.HDel(ctx, s.claimsKey(), key).Err()
}

var unlockScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

var extendScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`)

// TryLock implements Store: SET NX PX with a random token, extended every
// ttl/3 while held, so a lock outlives a long answer but not its holder.
func (s *RedisStore) TryLock(ctx context.Context, name string, ttl time.Duration) (func(), error) {
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
		return nil, ErrLocked
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
