package redis_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/farebox/farebox/store/redis"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	goredis "github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/x402/settle"
)

// A paid answer stored by one replica is read by another sharing the
// prefix, until its authorization expires.
func TestAnswersAreSharedByReplicas(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	p := prefix(t)
	a, b := redis.NewJournal(rdb, p), redis.NewJournal(rdb, p)
	answer := []byte("j{\"id\":\"resp_1\"}")
	if err := a.PutAnswer(ctx, "k", common.Address{1}, answer, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Answer(ctx, "k"); err != nil || !bytes.Equal(got, answer) {
		t.Fatalf("the other replica reads %q, %v", got, err)
	}
	if _, err := b.Answer(ctx, "other"); !errors.Is(err, settle.ErrNotFound) {
		t.Errorf("a missing answer: %v", err)
	}
	if ttl := rdb.PTTL(ctx, p+"answer:k").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("the answer lives %s, want until the authorization expires", ttl)
	}
}

// usedMemory is the Redis server's used_memory.
func usedMemory(t *testing.T, rdb *goredis.Client) int64 {
	t.Helper()
	info, err := rdb.Info(context.Background(), "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatal("no used_memory in INFO memory")
	return 0
}

// Answers in Redis have a bound of their own, whatever Redis's maxmemory:
// 40 answers of 1 MiB from one payer grow Redis by no more than the bound,
// the payer's own oldest answers go first, and another payer's answer
// survives the flood (and a flood from many wallets, which evicts the
// payers holding the most).
func TestRedisAnswersAreBoundedPerPayerAndInTotal(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	writer := goredis.NewClient(&goredis.Options{Addr: rdb.Options().Addr})
	const bound, share = 8 << 20, 3 << 20
	a := redis.NewAnswers(writer, prefix(t), bound, share)
	exp := time.Now().Add(time.Minute)
	victim, flooder := common.Address{1}, common.Address{2}
	// The baseline is a Redis that has carried a large command: the
	// working memory that leaves behind is not the answers'.
	mib := bytes.Repeat([]byte("x"), 1<<20)
	rdb.Set(ctx, "warm-up", mib, 0)
	rdb.Del(ctx, "warm-up")
	before := usedMemory(t, rdb)
	if err := a.PutAnswer(ctx, "victim", victim, []byte("a small paid answer"), exp); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if err := a.PutAnswer(ctx, fmt.Sprintf("flood-%d", i), flooder, mib, exp); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Answer(ctx, "flood-39"); err != nil {
		t.Errorf("the newest answer of the flood: %v", err)
	}
	if _, err := a.Answer(ctx, "flood-0"); !errors.Is(err, settle.ErrNotFound) {
		t.Errorf("the flooder's oldest answer outlived its share: %v", err)
	}
	for w := range 8 { // more wallets than the bound holds shares
		for i := range 4 {
			if err := a.PutAnswer(ctx, fmt.Sprintf("wallet-%d-%d", w, i), common.Address{byte(10 + w)}, mib, exp); err != nil {
				t.Fatal(err)
			}
		}
	}
	writer.Close()
	if grew := usedMemory(t, rdb) - before; grew > bound {
		t.Errorf("Redis grew by %d bytes, more than the answers' bound %d", grew, bound)
	}
	if n, _ := redis.NewAnswers(rdb, prefix(t), bound, share).Bytes(ctx); n > bound {
		t.Errorf("the answers count %d bytes, more than the bound %d", n, bound)
	}
	if got, err := redis.NewAnswers(rdb, prefix(t), bound, share).Answer(ctx, "victim"); err != nil || string(got) != "a small paid answer" {
		t.Errorf("the other payer's answer after the flood: %q, %v", got, err)
	}
}
