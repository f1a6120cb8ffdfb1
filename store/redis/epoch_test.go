package redis_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/store"
	"github.com/farebox/farebox/store/redis"
	"github.com/farebox/farebox/x402/settle/journaltest"
)

// A Redis that lost its data is told from one that is new: two replicas
// that wrote before the loss both report it on their next create, a
// replica that starts on the empty Redis and one that only wrote after do
// not report a loss they did not live through, and a flush seen first by
// the readiness check is reported too.
func TestFaultStoreEpochTellsALostRedis(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	p := prefix(t)
	a, b := redis.NewJournal(rdb, p), redis.NewJournal(rdb, p)
	payer := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	for _, j := range []*redis.Journal{a, b} {
		if _, err := j.Create(ctx, journaltest.NewEntry(payer)); err != nil {
			t.Fatal(err)
		}
		if !j.LostAt().IsZero() {
			t.Fatal("a new Redis reported as lost")
		}
	}
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Create(ctx, journaltest.NewEntry(payer)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Create(ctx, journaltest.NewEntry(payer)); err != nil {
		t.Fatal(err)
	}
	if a.LostAt().IsZero() || b.LostAt().IsZero() {
		t.Fatalf("the loss went unseen: %v %v", a.LostAt(), b.LostAt())
	}
	late := redis.NewJournal(rdb, p)
	if _, err := late.Create(ctx, journaltest.NewEntry(payer)); err != nil {
		t.Fatal(err)
	}
	if !late.LostAt().Equal(a.LostAt()) {
		t.Errorf("a replica started after the loss sees it at %v, want %v", late.LostAt(), a.LostAt())
	}

	set, err := store.Open("redis://"+rdb.Options().Addr+"/1", store.Options{Key: "store"})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if err := set.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	j, _ := set.Journal()
	if !j.(*redis.Journal).LostAt().IsZero() {
		t.Fatal("a new Redis reported as lost by Ready")
	}
	if err := set.(*redis.Set).Client().FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := set.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if j.(*redis.Journal).LostAt().IsZero() {
		t.Error("Ready did not notice the flushed Redis")
	}
}
