package gateway_test

import (
	"context"
	"fmt"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/upstream/scripted"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
)

// redisDataBytes is what a Redis server holds beside its clients'
// buffers (which come and go with the commands in flight).
func redisDataBytes(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	info, err := rdb.Info(context.Background(), "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	field := func(name string) int64 {
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				return n
			}
		}
		t.Fatalf("no %s in INFO memory", name)
		return 0
	}
	return field("used_memory") - field("mem_clients_normal")
}

// A payer flooding the stored answers (40 paid calls with a 1 MB
// instructions, streamed, each answer also 50 KB of the model's own text) cannot push another payer's paid answer out, in memory or in
// Redis, and in Redis the answers grow its memory by no more than
// stored_answers.max_bytes: the echoed instructions are not stored, and
// the flooder's own oldest answers make room. Replays of the answers kept
// are byte for byte the answers first written, without a model run.
func TestHostileAnswerFloodKeepsOtherPayersAnswers(t *testing.T) {
	for _, store := range []string{"memory", "redis"} {
		t.Run(store, func(t *testing.T) {
			c := devChain(t)
			st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
			if err != nil {
				t.Fatal(err)
			}
			m := &countingModel{inner: scripted.New(scripted.Options{ChunkSize: 4096})}
			cfg := paidConfig(c, "after")
			cfg.Models[0].Upstream, cfg.Models[0].UpstreamConfig = inprocess.Kind, inprocess.Use(m)
			// The flood's 1 MB instructions and 50 KB answers are over the default
			// limits of a per-call model: this operator raised them.
			cfg.Models[0].Limits = &gateway.ModelLimits{MaxInputTokens: 1 << 20, MaxOutputTokens: 1 << 20}
			const bound = 2 << 20
			cfg.StoredAnswers = gateway.StoredAnswersConfig{MaxBytes: bound, MaxBytesPerPayer: 1 << 20}
			var rdb *redis.Client
			if store == "redis" {
				addr := redistest.Start(t)
				cfg.Payments.RedisURL = "redis://" + addr
				rdb = redis.NewClient(&redis.Options{Addr: addr})
				t.Cleanup(func() { rdb.Close() })
			}
			ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready})
			offer := offerFor(t, ts, c)
			newPayer := func(calls int64) *payer.Signer {
				key, _ := crypto.GenerateKey()
				if err := c.Fund(context.Background(), crypto.PubkeyToAddress(key.PublicKey), big.NewInt(calls*atomics)); err != nil {
					t.Fatal(err)
				}
				return payer.NewSigner(key)
			}
			instructions := strings.Repeat("Be thorough. ", 1<<20/13)
			call := func(s *payer.Signer, input string) (body, h, v string, a answer) {
				h, v, err := s.PaymentHeader(offer, 2)
				if err != nil {
					t.Fatal(err)
				}
				body = fmt.Sprintf(`{"model":%q,"instructions":%q,"input":%q,"stream":true}`, paid, instructions, input)
				a = postAnswer(ts.URL+"/responses", body, h, v)
				if a.status != 200 || !strings.Contains(a.body, "response.completed") {
					t.Fatalf("a paid call (%s): %d %.300s", input[:min(len(input), 12)], a.status, a.body)
				}
				return body, h, v, a
			}

			victimBody, vh, vv, victim := call(newPayer(1), "the victim's question")
			var before int64
			if rdb != nil {
				before = redisDataBytes(t, rdb)
			}
			flooder := newPayer(40) // exactly its calls
			var last answer
			var lastBody, lh, lv string
			for i := range 40 {
				lastBody, lh, lv, last = call(flooder, fmt.Sprintf("flood %d %s", i, strings.Repeat("y", 50<<10)))
			}
			if rdb != nil {
				if grew := redisDataBytes(t, rdb) - before; grew > bound {
					t.Errorf("40 flooding calls grew Redis by %d bytes, more than stored_answers.max_bytes %d", grew, bound)
				}
			}
			runs := m.calls.Load()
			if again := postAnswer(ts.URL+"/responses", victimBody, vh, vv); again != victim {
				t.Errorf("the victim's retry after the flood: %d, the same answer: %v", again.status, again.body == victim.body)
			}
			if again := postAnswer(ts.URL+"/responses", lastBody, lh, lv); again != last {
				t.Errorf("the flooder's last retry: %d, the same answer: %v", again.status, again.body == last.body)
			}
			if got := m.calls.Load() - runs; got != 0 {
				t.Errorf("the retries ran the model %d times: their answers were not kept", got)
			}
		})
	}
}

// A Redis that may evict keys (an allkeys or volatile maxmemory-policy)
// could drop replay protection under pressure: farebox says so at start,
// naming the setting to use; under noeviction it says nothing.
func TestARedisThatMayEvictIsWarnedAbout(t *testing.T) {
	c := devChain(t)
	addr := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, policy := range []string{"noeviction", "allkeys-lru"} {
		if err := rdb.ConfigSet(context.Background(), "maxmemory-policy", policy).Err(); err != nil {
			t.Fatal(err)
		}
		cfg := paidConfig(c, "after")
		cfg.Payments.RedisURL = "redis://" + addr
		ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready})
		warned := strings.Contains(ts.logs.String(), "maxmemory-policy noeviction")
		if warned != (policy != "noeviction") {
			t.Errorf("maxmemory-policy %s: warned %v\n%s", policy, warned, ts.logs.String())
		}
	}
}
