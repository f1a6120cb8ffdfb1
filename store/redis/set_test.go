package redis_test

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/internal/testkit/channelstoretest"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/store"
	"github.com/farebox/farebox/store/redis"
	"github.com/farebox/farebox/x402/settle/journaltest"
	goredis "github.com/redis/go-redis/v9"
)

// A Redis URL opens every store on one client, under the key prefixes
// payments.redis_url always used, so an existing deployment's data is read
// where it is; the set names this replica.
func TestSettingKeepsTheKeyPrefixes(t *testing.T) {
	ctx := context.Background()
	addr := redistest.Start(t)
	set, err := store.Open("redis://"+addr, store.Options{Key: "store"})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if err := set.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if set.Instance() == "" || set.Holds() == nil {
		t.Errorf("instance %q, holds %v: want stores shared by replicas", set.Instance(), set.Holds())
	}
	j, err := set.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Create(ctx, journaltest.NewEntry(common.Address{1})); err != nil {
		t.Fatal(err)
	}
	ch, err := set.Channels()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Put(ctx, channelstoretest.Record(3, 40), 0); err != nil {
		t.Fatal(err)
	}
	bs, err := set.Books()
	if err != nil {
		t.Fatal(err)
	}
	if err := bs.Apply(ctx, []books.Delta{{At: time.Now(), Model: "m", Fields: map[string]int64{books.FCalls: 1}}}); err != nil {
		t.Fatal(err)
	}
	set.Circuits().Failure(ctx, "m/s", time.Now(), 3, time.Minute)
	if err := set.Answers(1<<20, 1<<16).PutAnswer(ctx, "a", common.Address{1}, []byte("answer"), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	rdb := goredis.NewClient(&goredis.Options{Addr: addr})
	defer rdb.Close()
	for _, prefix := range []string{"farebox:settle:e:", "farebox:settle:answer:", "farebox:channels:c:", "farebox:books:", "farebox:pool:"} {
		if keys, err := rdb.Keys(ctx, prefix+"*").Result(); err != nil || len(keys) == 0 {
			t.Errorf("no key under %s: %v %v", prefix, keys, err)
		}
	}
	if redis.JournalPrefix != "farebox:settle:" {
		t.Errorf("journal prefix %q", redis.JournalPrefix)
	}
}

// What is not a Redis URL is refused before anything is dialled.
func TestSettingIsChecked(t *testing.T) {
	for _, bad := range []string{"redis://", "rediss://:6379/x"} {
		if err := store.Check(bad); err == nil {
			t.Errorf("%q passed the check", bad)
		}
	}
	if err := store.Check("rediss://user:pw@cache.internal:6380/2"); err != nil {
		t.Error(err)
	}
}
