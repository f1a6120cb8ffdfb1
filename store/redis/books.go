package redis

import (
	"context"
	"github.com/farebox/farebox/books"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Books keeps the books in Redis, shared by every replica: a hash per
// row, a sorted set indexing the rows by period start, and a key per Once
// mark (expiring after the retention).
type Books struct {
	rdb    goredis.UniversalClient
	prefix string
	// OnceTTL is how long a Once mark is kept (default 40 days).
	OnceTTL time.Duration
}

// NewBooks keeps the books under prefix (e.g. "farebox:books:").
func NewBooks(rdb goredis.UniversalClient, prefix string) *Books {
	return &Books{rdb: rdb, prefix: prefix, OnceTTL: 40 * 24 * time.Hour}
}

func (s *Books) index() string             { return s.prefix + "rows" }
func (s *Books) rowKey(name string) string { return s.prefix + "row:" + name }

// applyScript adds one delta atomically: KEYS = once mark (or "" for
// none), row hash, index; ARGV = once TTL seconds, period start, row
// name, then field/value pairs.
var applyScript = goredis.NewScript(`
if ARGV[1] ~= "0" then
  if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
end
for i = 4, #ARGV, 2 do redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i+1]) end
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
return 1`)

// moveScript moves one delta's fields atomically, at most once: KEYS =
// once mark, row hash, source row hash, index; ARGV = once TTL seconds
// ("0": no mark), period start, row name, source row name, then
// field/value pairs.
var moveScript = goredis.NewScript(`
if ARGV[1] ~= "0" then
  if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
end
for i = 5, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i+1])
  redis.call('HINCRBY', KEYS[3], ARGV[i], -tonumber(ARGV[i+1]))
end
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[4])
return 1`)

// Apply adds the deltas, each atomically, in one round trip.
func (s *Books) Apply(ctx context.Context, ds []books.Delta) error {
	pipe := s.rdb.Pipeline()
	for i := range ds {
		d := &ds[i]
		k := d.Row()
		name := k.String()
		once, ttl := s.prefix+"once:"+d.Once, "0"
		if d.Once != "" {
			ttl = strconv.FormatInt(int64(s.OnceTTL/time.Second), 10)
		}
		if d.Moved {
			src := d.Source().String()
			args := []any{ttl, k.Start.Unix(), name, src}
			for f, v := range d.Fields {
				args = append(args, f, v)
			}
			moveScript.Eval(ctx, pipe, []string{once, s.rowKey(name), s.rowKey(src), s.index()}, args...)
			continue
		}
		args := []any{ttl, k.Start.Unix(), name}
		for f, v := range d.Fields {
			args = append(args, f, v)
		}
		applyScript.Eval(ctx, pipe, []string{once, s.rowKey(name), s.index()}, args...)
	}
	// EVAL, not EVALSHA: a pipeline cannot fall back on a script not loaded yet.
	_, err := pipe.Exec(ctx)
	return err
}

// Rows returns the rows overlapping [from, to).
func (s *Books) Rows(ctx context.Context, from, to time.Time) ([]books.Row, error) {
	names, err := s.rdb.ZRangeByScore(ctx, s.index(), &goredis.ZRangeBy{
		Min: strconv.FormatInt(from.Add(-24*time.Hour).Unix(), 10), Max: "(" + strconv.FormatInt(to.Unix(), 10)}).Result()
	if err != nil {
		return nil, err
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*goredis.MapStringStringCmd, len(names))
	for i, n := range names {
		cmds[i] = pipe.HGetAll(ctx, s.rowKey(n))
	}
	if len(names) > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, err
		}
	}
	var out []books.Row
	for i, n := range names {
		k, err := books.ParseKey(n)
		if err != nil || !books.Overlaps(k, from, to) {
			continue
		}
		f := map[string]int64{}
		for name, v := range cmds[i].Val() {
			f[name], _ = strconv.ParseInt(v, 10, 64)
		}
		out = append(out, books.Row{Key: k, Fields: f})
	}
	books.SortRows(out)
	return out, nil
}

// rollupScript moves one hourly row into its daily row: KEYS = hourly
// hash, daily hash, index; ARGV = hourly name, daily name, day start.
var rollupScript = goredis.NewScript(`
local f = redis.call('HGETALL', KEYS[1])
for i = 1, #f, 2 do redis.call('HINCRBY', KEYS[2], f[i], f[i+1]) end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if #f > 0 then redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2]) end
return 1`)

// Rollup merges the hourly rows before cutoff into daily ones (Once marks
// expire on their own).
func (s *Books) Rollup(ctx context.Context, cutoff time.Time) error {
	names, err := s.rdb.ZRangeByScore(ctx, s.index(), &goredis.ZRangeBy{
		Min: "-inf", Max: "(" + strconv.FormatInt(cutoff.Unix(), 10)}).Result()
	if err != nil {
		return err
	}
	for _, n := range names {
		k, err := books.ParseKey(n)
		if err != nil || k.Day {
			continue
		}
		d := books.DayOf(k)
		if err := rollupScript.Run(ctx, s.rdb, []string{s.rowKey(n), s.rowKey(d.String()), s.index()},
			n, d.String(), d.Start.Unix()).Err(); err != nil {
			return err
		}
	}
	return nil
}
