package redis

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/x402/settle"
)

// maxExact is 2^53: Lua numbers are doubles, exact below it (9 billion
// USDC in 6-decimal units, far above any price or in-flight sum).
var maxExact = new(big.Int).Lsh(big.NewInt(1), 53)

// holdScript drops the account's expired holds (by the Redis server's clock,
// shared by replicas), returns 1 when the id is already held, else adds it
// if balance - sum(live holds not named in ARGV[5...]) >= amount; the hash
// lives as long as its latest hold.
var holdScript = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all = redis.call('HGETALL', KEYS[1])
local shown = {}
for i = 5, #ARGV do shown[ARGV[i]] = true end
local sum = 0
local last = tonumber(ARGV[4])
for i = 1, #all, 2 do
  local amt, exp = string.match(all[i + 1], '^(%d+)|(%d+)$')
  exp = tonumber(exp)
  if exp == nil or exp <= now then
    redis.call('HDEL', KEYS[1], all[i])
  else
    if all[i] == ARGV[1] then return 1 end
    if not shown[all[i]] then sum = sum + tonumber(amt) end
    if exp > last then last = exp end
  end
end
if tonumber(ARGV[3]) - sum < tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. ARGV[4])
redis.call('PEXPIREAT', KEYS[1], last)
return 1
`)

// Holds is settle.Holds in Redis, shared by replicas: one hash per account,
// checked and changed by one script so concurrent holds never overspend.
type Holds struct {
	rdb    goredis.UniversalClient
	prefix string
}

var _ settle.Holds = (*Holds)(nil)

// NewHolds returns holds on rdb under prefix (DefaultPrefix when empty).
func NewHolds(rdb goredis.UniversalClient, prefix string) *Holds {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Holds{rdb: rdb, prefix: prefix}
}

func (h *Holds) key(a settle.Account) string {
	return h.prefix + "hold:" + a.ChainID + ":" + strings.ToLower(a.Asset.Hex()) + ":" + strings.ToLower(a.Payer.Hex())
}

// Hold adds the hold id if balance minus the live holds (but those in
// shown) covers amount. Amounts of 2^53 or more are refused; a larger
// balance counts as 2^53-1.
func (h *Holds) Hold(ctx context.Context, a settle.Account, id string, amount, balance *big.Int, expires time.Time, shown ...string) error {
	if amount.Sign() < 0 || amount.Cmp(maxExact) >= 0 {
		return fmt.Errorf("redisjournal: hold amount %s out of range", amount)
	}
	bal := balance
	if bal.Cmp(maxExact) >= 0 {
		bal = new(big.Int).Sub(maxExact, big.NewInt(1))
	}
	args := make([]any, 0, 4+len(shown))
	args = append(args, id, amount.String(), bal.String(), max(expires.UnixMilli(), 1))
	for _, s := range shown {
		args = append(args, s)
	}
	n, err := holdScript.Run(ctx, h.rdb, []string{h.key(a)}, args...).Int64()
	if err != nil {
		return fmt.Errorf("redisjournal: hold: %w", err)
	}
	if n == 0 {
		return settle.ErrInsufficientFunds
	}
	return nil
}

// Release removes the hold id.
func (h *Holds) Release(ctx context.Context, a settle.Account, id string) error {
	if err := h.rdb.HDel(ctx, h.key(a), id).Err(); err != nil {
		return fmt.Errorf("redisjournal: release hold: %w", err)
	}
	return nil
}

// Held sums a's live holds by the Redis server's clock.
func (h *Holds) Held(ctx context.Context, a settle.Account) (*big.Int, error) {
	live, err := h.live(ctx, a)
	if err != nil {
		return nil, err
	}
	sum := new(big.Int)
	for _, x := range live {
		sum.Add(sum, x)
	}
	return sum, nil
}

// IDs lists a's live holds by the Redis server's clock.
func (h *Holds) IDs(ctx context.Context, a settle.Account) ([]string, error) {
	live, err := h.live(ctx, a)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(live))
	for id := range live {
		ids = append(ids, id)
	}
	return ids, nil
}

// live is a's live holds by id, by the Redis server's clock.
func (h *Holds) live(ctx context.Context, a settle.Account) (map[string]*big.Int, error) {
	now, err := h.rdb.Time(ctx).Result()
	if err != nil {
		return nil, fmt.Errorf("redisjournal: time: %w", err)
	}
	m, err := h.rdb.HGetAll(ctx, h.key(a)).Result()
	if err != nil {
		return nil, fmt.Errorf("redisjournal: holds: %w", err)
	}
	live := make(map[string]*big.Int, len(m))
	for id, v := range m {
		amt, exp, ok := strings.Cut(v, "|")
		ms, perr := strconv.ParseInt(exp, 10, 64)
		x, xok := new(big.Int).SetString(amt, 10)
		if !ok || perr != nil || !xok {
			return nil, errors.New("redisjournal: corrupt hold " + v)
		}
		if ms > now.UnixMilli() {
			live[id] = x
		}
	}
	return live, nil
}
