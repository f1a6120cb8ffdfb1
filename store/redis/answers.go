package redis

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/settle"
	goredis "github.com/redis/go-redis/v9"
)

// Answers is the AnswerStore in Redis, shared by replicas, bounded by its
// own accounting rather than by Redis eviction: every answer's footprint
// (its bytes as Redis allocates them, plus its bookkeeping) is counted
// against a total and a per-payer bound by one script, which makes room
// as settle.MemoryAnswers does (expired answers, then the payer's own
// oldest, then the oldest of the payer holding the most). So the answers
// never take more than their bound of Redis's memory, and the journal's
// and replay protection's keys, which must never be evicted (run Redis
// with maxmemory-policy noeviction), keep the rest.
type Answers struct {
	rdb           goredis.UniversalClient
	prefix        string
	max, perPayer int64
}

var _ settle.AnswerStore = (*Answers)(nil)

// NewAnswers keeps at most maxBytes of answers on rdb under prefix
// (DefaultPrefix when empty), at most perPayer of them one payer's
// (0: settle.DefaultAnswerBytesPerPayer, at most maxBytes).
func NewAnswers(rdb goredis.UniversalClient, prefix string, maxBytes, perPayer int64) *Answers {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if perPayer <= 0 {
		perPayer = settle.DefaultAnswerBytesPerPayer
	}
	// Part of the bound is left to Redis's own working memory around the
	// answers (script and expiry tables, the allocator's partly used
	// runs), measured at a few hundred KiB: the answers' footprints fill
	// the rest.
	data := maxBytes - min(maxBytes/8, 1<<20)
	return &Answers{rdb: rdb, prefix: prefix, max: data, perPayer: min(perPayer, data)}
}

// putAnswerScript makes room for one answer under the bounds and counts
// it; the answer's bytes are SET beside it in the same transaction (not
// passed through the script, whose arguments Lua would hold until its
// next collection). KEYS: the answers' meta hash (name -> "payer size"),
// their expiry zset, the payers zset (by bytes held), the total; ARGV: the
// key prefix, name, payer, footprint, expiry (unix ms), total bound,
// per-payer bound. Each payer's answers, oldest first, are a zset of their
// own (prefix answers:payer:). The caller keeps answers over a payer's
// share out.
const putAnswerScript = `
local meta, exp, payers, total = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local prefix, name, payer = ARGV[1], ARGV[2], ARGV[3]
local size, expires, max, share = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function drop(n)
  local m = redis.call('HGET', meta, n)
  redis.call('ZREM', exp, n)
  if not m then return end
  local p, sz = string.match(m, '^(%S+) (%d+)$')
  sz = tonumber(sz)
  redis.call('DEL', prefix .. 'answer:' .. n)
  redis.call('HDEL', meta, n)
  redis.call('ZREM', prefix .. 'answers:payer:' .. p, n)
  if tonumber(redis.call('ZINCRBY', payers, -sz, p)) <= 0 then redis.call('ZREM', payers, p) end
  redis.call('DECRBY', total, sz)
end
local function dropOldest(p)
  local n = redis.call('ZRANGE', prefix .. 'answers:payer:' .. p, 0, 0)
  if #n == 0 then
    redis.call('ZREM', payers, p)
    return false
  end
  drop(n[1])
  return true
end
for _, n in ipairs(redis.call('ZRANGEBYSCORE', exp, '-inf', now, 'LIMIT', 0, 100)) do drop(n) end
drop(name)
while (tonumber(redis.call('ZSCORE', payers, payer)) or 0) + size > share do
  if not dropOldest(payer) then break end
end
while (tonumber(redis.call('GET', total)) or 0) + size > max do
  local top = redis.call('ZREVRANGE', payers, 0, 0)
  if #top == 0 then redis.call('SET', total, 0) else dropOldest(top[1]) end
end
local seq = redis.call('INCR', prefix .. 'answers:seq')
redis.call('HSET', meta, name, payer .. ' ' .. size)
redis.call('ZADD', exp, expires, name)
redis.call('ZADD', prefix .. 'answers:payer:' .. payer, seq, name)
redis.call('ZINCRBY', payers, size, payer)
redis.call('INCRBY', total, size)
return 1
`

func (a *Answers) keys() []string {
	return []string{a.prefix + "answers:meta", a.prefix + "answers:expiry", a.prefix + "answers:payers", a.prefix + "answers:bytes"}
}

func (a *Answers) answerKey(name string) string { return a.prefix + "answer:" + name }

// footprint is what an answer counts against the bounds: its bytes as
// the allocator rounds them (jemalloc's size classes are a quarter of a
// power of two apart) and its bookkeeping, in which the name is written
// four times (its key, the meta hash, the expiry and the payer's zset).
func footprint(name string, n int) int64 {
	const bookkeeping = 512
	return roundClass(int64(n)+16) + 4*int64(len(name)) + bookkeeping
}

// roundClass rounds n up to the next size class of an allocator whose
// classes are a quarter of a power of two apart.
func roundClass(n int64) int64 {
	if n <= 64 {
		return 64
	}
	step := int64(1)
	for step*8 < n {
		step <<= 1
	}
	return (n + step - 1) / step * step
}

// PutAnswer stores payer's answer under <prefix>answer:<name> until its
// authorization expires, within the bounds, so every replica answers a
// paid retry with it.
func (a *Answers) PutAnswer(ctx context.Context, name string, payer common.Address, answer []byte, expires time.Time) error {
	size := footprint(name, len(answer))
	if !expires.After(time.Now()) || size > a.perPayer {
		return nil
	}
	_, err := a.rdb.TxPipelined(ctx, func(tx goredis.Pipeliner) error {
		tx.Eval(ctx, putAnswerScript, a.keys(), a.prefix, name, strings.ToLower(payer.Hex()),
			size, expires.UnixMilli(), a.max, a.perPayer)
		tx.Set(ctx, a.answerKey(name), answer, 0)
		tx.PExpireAt(ctx, a.answerKey(name), expires)
		return nil
	})
	return err
}

// Answer returns the stored answer of name, or settle.ErrNotFound.
func (a *Answers) Answer(ctx context.Context, name string) ([]byte, error) {
	b, err := a.rdb.Get(ctx, a.answerKey(name)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, settle.ErrNotFound
	}
	return b, err
}

// Bytes is what the stored answers count against the bounds, in total.
func (a *Answers) Bytes(ctx context.Context) (int64, error) {
	n, err := a.rdb.Get(ctx, a.prefix+"answers:bytes").Int64()
	if errors.Is(err, goredis.Nil) {
		return 0, nil
	}
	return n, err
}

var _ settle.AnswerStore = (*Journal)(nil)

// PutAnswer stores an answer in the journal's Answers with the default
// bounds (an engine given its own Answers does not use these).
func (j *Journal) PutAnswer(ctx context.Context, name string, payer common.Address, answer []byte, expires time.Time) error {
	return j.answers().PutAnswer(ctx, name, payer, answer, expires)
}

// Answer reads an answer of the journal's Answers.
func (j *Journal) Answer(ctx context.Context, name string) ([]byte, error) {
	return j.answers().Answer(ctx, name)
}

func (j *Journal) answers() *Answers {
	return NewAnswers(j.rdb, j.prefix, settle.DefaultAnswerBytes, settle.DefaultAnswerBytesPerPayer)
}
