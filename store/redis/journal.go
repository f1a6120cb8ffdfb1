// Package redis is every store of farebox on Redis (registered as
// redis://, rediss:// and unix:// settings), for several farebox replicas
// behind a load balancer: the journal, holds and stored answers, the
// payment channels, the books and the pools' circuits, all on one client
// (see Set). The journal and holds: every replica sees every entry, hold
// and debt. Creation is one atomic script (create-if-absent on
// both the authorization and its payment id), state changes are
// compare-and-swap scripts on the stored state. Keys live under a prefix:
//
//	<prefix>e:<KeyName>        the entry (JSON), never expires
//	<prefix>id:<IDName>        payment id -> KeyName
//	<prefix>open               set of unfinished KeyNames (for Resume)
//	<prefix>debt:<payer>       hash KeyName -> DebtItem (JSON)
//	<prefix>hold:<account>     hash hold id -> "amount|expiresMs"
//	<prefix>answer:<KeyName>   a paid answer, until its authorization expires
//	<prefix>claim:<KeyName>    the replica adopting a dead replica's entry, for a while
//	<prefix>live:<instance>    a running replica's beat, for adopt_after (liveness.go)
//	<prefix>epoch, <prefix>lost  the store epoch and its last loss (epoch.go)
//
// Settled entries are never deleted: size Redis for them (about 1 KiB per
// purchase) and give it persistence (AOF), or the journal is only as
// durable as the Redis server.
package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	goredis "github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// DefaultPrefix namespaces the keys when the operator sets none.
const DefaultPrefix = "farebox:settle:"

// createScript answers {code, last loss time, entry or id's entry name}:
// the loss time (KEYS[5]) rides along so that every replica learns a loss
// another replica noticed, in the same step that checks the epoch.
var createScript = goredis.NewScript(`
local lost = redis.call('GET', KEYS[5]) or ''
if redis.call('GET', KEYS[4]) ~= ARGV[4] then return {3, lost} end
local cur = redis.call('GET', KEYS[1])
if cur then return {1, lost, cur} end
if ARGV[3] == '1' then
  local other = redis.call('GET', KEYS[2])
  if other then return {2, lost, other} end
  redis.call('SET', KEYS[2], ARGV[2])
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
return {0, lost}
`)

var updateScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return -1 end
if cjson.decode(cur)['state'] ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
if ARGV[4] == '1' then
  redis.call('SREM', KEYS[2], ARGV[3])
else
  redis.call('SADD', KEYS[2], ARGV[3])
end
return 1
`)

var deleteScript = goredis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return 1 end
if cjson.decode(cur)['state'] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
if KEYS[3] ~= KEYS[1] and redis.call('GET', KEYS[3]) == ARGV[2] then
  redis.call('DEL', KEYS[3])
end
return 1
`)

// Journal is a settle.Journal whose state lives in Redis.
type Journal struct {
	rdb    goredis.UniversalClient
	prefix string
	epoch  epochState
	log    *slog.Logger
}

var (
	_ settle.Journal = (*Journal)(nil)
	_ settle.Claimer = (*Journal)(nil)
)

// NewJournal returns a journal on rdb under prefix (DefaultPrefix when empty);
// replicas that share purchases use the same prefix. Close does not close
// rdb.
func NewJournal(rdb goredis.UniversalClient, prefix string) *Journal {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Journal{rdb: rdb, prefix: prefix, log: slog.New(slog.DiscardHandler)}
}

func (j *Journal) entryKey(name string) string { return j.prefix + "e:" + name }
func (j *Journal) openKey() string             { return j.prefix + "open" }
func (j *Journal) idKey(payer common.Address, id string) string {
	return j.prefix + "id:" + settle.IDName(payer, id)
}
func (j *Journal) debtKey(payer common.Address) string {
	return j.prefix + "debt:" + strings.ToLower(payer.Hex())
}

func decode(s string) (*settle.Entry, error) {
	var e settle.Entry
	if err := json.Unmarshal([]byte(s), &e); err != nil {
		return nil, fmt.Errorf("redisjournal: corrupt entry: %w", err)
	}
	return &e, nil
}

// Create stores e unless its key or payment id is taken, in one script.
func (j *Journal) Create(ctx context.Context, e *settle.Entry) (*settle.Entry, error) {
	b, err := e.AppendJSON(nil)
	if err != nil {
		return nil, err
	}
	name := e.Name()
	idKey, hasID := j.entryKey(name), "0"
	if e.PaymentID != "" {
		idKey, hasID = j.idKey(e.Payer, e.PaymentID), "1"
	}
	var res []any
	for lost := false; ; lost = true {
		epoch, err := j.knownEpoch(ctx)
		if err != nil {
			return nil, err
		}
		res, err = createScript.Run(ctx, j.rdb, []string{j.entryKey(name), idKey, j.openKey(), j.epochKey(), j.lostKey()}, b, name, hasID, epoch).Slice()
		if err != nil {
			return nil, fmt.Errorf("redisjournal: create: %w", err)
		}
		if len(res) < 2 {
			return nil, fmt.Errorf("redisjournal: create: answered %v", res)
		}
		lostMs, _ := res[1].(string)
		j.learnLost(lostMs)
		if code, _ := res[0].(int64); code != 3 || lost {
			break
		}
		// The epoch is gone or changed: the store lost its data since
		// this replica last wrote. Adopt (or write) the new epoch and
		// create again; the loss time makes the engine careful.
		if _, err := j.adoptEpoch(ctx, true); err != nil {
			return nil, err
		}
	}
	code, _ := res[0].(int64)
	switch code {
	case 3:
		return nil, errors.New("redisjournal: create: the store epoch keeps changing")
	case 0:
		return nil, nil
	case 1:
		s, _ := res[2].(string)
		cur, err := decode(s)
		if err != nil {
			return nil, err
		}
		return cur, settle.ErrExists
	default:
		other, _ := res[2].(string)
		cur, err := j.get(ctx, other)
		if err != nil && !errors.Is(err, settle.ErrNotFound) {
			return nil, err
		}
		return cur, settle.ErrIDTaken
	}
}

func (j *Journal) get(ctx context.Context, name string) (*settle.Entry, error) {
	s, err := j.rdb.Get(ctx, j.entryKey(name)).Result()
	if errors.Is(err, goredis.Nil) {
		return nil, settle.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("redisjournal: get: %w", err)
	}
	return decode(s)
}

// Get returns the entry of k.
func (j *Journal) Get(ctx context.Context, k x402.Key) (*settle.Entry, error) {
	return j.get(ctx, settle.KeyName(k))
}

// Update replaces the entry if its stored state is still from.
func (j *Journal) Update(ctx context.Context, e *settle.Entry, from settle.State) error {
	b, err := e.AppendJSON(nil)
	if err != nil {
		return err
	}
	name, finished := e.Name(), "0"
	if e.State.Finished() {
		finished = "1"
	}
	n, err := updateScript.Run(ctx, j.rdb, []string{j.entryKey(name), j.openKey()}, string(from), b, name, finished).Int64()
	switch {
	case err != nil:
		return fmt.Errorf("redisjournal: update: %w", err)
	case n < 0:
		return settle.ErrNotFound
	case n == 0:
		return settle.ErrStateChanged
	}
	return nil
}

// Delete removes the entry of k and its payment id if it is in state from.
func (j *Journal) Delete(ctx context.Context, k x402.Key, from settle.State) error {
	name := settle.KeyName(k)
	cur, err := j.get(ctx, name)
	if errors.Is(err, settle.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	idKey := j.entryKey(name)
	if cur.PaymentID != "" {
		idKey = j.idKey(cur.Payer, cur.PaymentID)
	}
	n, err := deleteScript.Run(ctx, j.rdb, []string{j.entryKey(name), j.openKey(), idKey}, string(from), name).Int64()
	if err != nil {
		return fmt.Errorf("redisjournal: delete: %w", err)
	}
	if n == 0 {
		return settle.ErrStateChanged
	}
	return nil
}

// Unfinished lists the entries named in the open set.
func (j *Journal) Unfinished(ctx context.Context) ([]*settle.Entry, error) {
	names, err := j.rdb.SMembers(ctx, j.openKey()).Result()
	if err != nil {
		return nil, fmt.Errorf("redisjournal: unfinished: %w", err)
	}
	var out []*settle.Entry
	for len(names) > 0 {
		chunk := names[:min(len(names), 500)]
		names = names[len(chunk):]
		keys := make([]string, len(chunk))
		for i, n := range chunk {
			keys[i] = j.entryKey(n)
		}
		vals, err := j.rdb.MGet(ctx, keys...).Result()
		if err != nil {
			return nil, fmt.Errorf("redisjournal: unfinished: %w", err)
		}
		for _, v := range vals {
			s, ok := v.(string)
			if !ok {
				continue // deleted since SMEMBERS
			}
			e, err := decode(s)
			if err != nil {
				return nil, err
			}
			if !e.State.Finished() {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// Entries calls fn with every entry, scanning the keyspace for the
// entries' keys (SCAN, so Redis keeps serving) and reading them 500 at a
// time: the books count the confirmed ones a crash kept out of them.
func (j *Journal) Entries(ctx context.Context, fn func(*settle.Entry) error) error {
	iter := j.rdb.Scan(ctx, 0, globEscape(j.entryKey(""))+"*", 500).Iterator()
	var keys []string
	read := func() error {
		if len(keys) == 0 {
			return nil
		}
		vals, err := j.rdb.MGet(ctx, keys...).Result()
		keys = keys[:0]
		if err != nil {
			return fmt.Errorf("redisjournal: entries: %w", err)
		}
		for _, v := range vals {
			s, ok := v.(string)
			if !ok {
				continue // deleted since the scan
			}
			e, err := decode(s)
			if err != nil {
				return err
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
	for iter.Next(ctx) {
		if keys = append(keys, iter.Val()); len(keys) == 500 {
			if err := read(); err != nil {
				return err
			}
		}
	}
	if err := iter.Err(); err != nil {
		return fmt.Errorf("redisjournal: entries: %w", err)
	}
	return read()
}

// Claim makes owner the taker of the entry name for ttl (SET NX PX), so
// one replica adopts a dead replica's entry.
func (j *Journal) Claim(ctx context.Context, name, owner string, ttl time.Duration) (bool, error) {
	ok, err := j.rdb.SetNX(ctx, j.prefix+"claim:"+name, owner, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("redisjournal: claim: %w", err)
	}
	return ok, nil
}

// globEscape quotes the characters a SCAN pattern reads as wildcards, so
// a prefix holding one matches only itself.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// AddDebt records item in payer's debt hash.
func (j *Journal) AddDebt(ctx context.Context, payer common.Address, item settle.DebtItem) error {
	b, err := json.Marshal(item)
	if err != nil {
		return err
	}
	if err := j.rdb.HSet(ctx, j.debtKey(payer), item.Entry, b).Err(); err != nil {
		return fmt.Errorf("redisjournal: add debt: %w", err)
	}
	return nil
}

// Debts lists payer's debt items.
func (j *Journal) Debts(ctx context.Context, payer common.Address) ([]settle.DebtItem, error) {
	m, err := j.rdb.HGetAll(ctx, j.debtKey(payer)).Result()
	if err != nil {
		return nil, fmt.Errorf("redisjournal: debts: %w", err)
	}
	out := make([]settle.DebtItem, 0, len(m))
	for _, v := range m {
		var d settle.DebtItem
		if err := json.Unmarshal([]byte(v), &d); err != nil {
			return nil, fmt.Errorf("redisjournal: corrupt debt: %w", err)
		}
		out = append(out, d)
	}
	return out, nil
}

// ClearDebts deletes payer's debt hash and returns its items, read and
// deleted in one MULTI so a debt added meanwhile is not lost unseen.
func (j *Journal) ClearDebts(ctx context.Context, payer common.Address) ([]settle.DebtItem, error) {
	var all *goredis.MapStringStringCmd
	_, err := j.rdb.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		all = p.HGetAll(ctx, j.debtKey(payer))
		p.Del(ctx, j.debtKey(payer))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("redisjournal: clear debts: %w", err)
	}
	out := make([]settle.DebtItem, 0, len(all.Val()))
	for _, v := range all.Val() {
		var d settle.DebtItem
		if err := json.Unmarshal([]byte(v), &d); err != nil {
			return nil, fmt.Errorf("redisjournal: corrupt debt: %w", err)
		}
		out = append(out, d)
	}
	return out, nil
}

// Close does nothing: the client belongs to whoever made it.
func (j *Journal) Close() error { return nil }
