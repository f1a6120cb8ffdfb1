package redis_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/internal/testkit/redistest"
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

// A replica that started on the emptied Redis (it wrote the new epoch and
// saw no loss) learns the loss from the first create of a replica that
// lived through it; and one that never created still knows the epoch it
// read at the engine's start, so a create after the loss reports it.
func TestFaultStoreEpochLossReachesEveryReplica(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	p := prefix(t)
	payer := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	old, idle := redis.NewJournal(rdb, p), redis.NewJournal(rdb, p)
	if _, err := old.Create(ctx, journaltest.NewEntry(payer)); err != nil {
		t.Fatal(err)
	}
	if err := idle.CheckLoss(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	late := redis.NewJournal(rdb, p)
	if _, err := late.Create(ctx, journaltest.NewEntry(payer)); err != nil {
		t.Fatal(err)
	}
	if !late.LostAt().IsZero() {
		t.Fatal("a replica that started on the empty Redis saw a loss before anyone who lived through it")
	}
	if _, err := old.Create(ctx, journaltest.NewEntry(payer)); err != nil {
		t.Fatal(err)
	}
	if old.LostAt().IsZero() {
		t.Fatal("the replica that wrote before the flush did not see the loss")
	}
	if _, err := late.Create(ctx, journaltest.NewEntry(payer)); err != nil {
		t.Fatal(err)
	}
	if late.LostAt().IsZero() {
		t.Error("the replica that started after the loss did not learn it from the store")
	}
	if _, err := idle.Create(ctx, journaltest.NewEntry(payer)); err != nil {
		t.Fatal(err)
	}
	if idle.LostAt().IsZero() {
		t.Error("a replica that read the epoch at start but never created did not see the loss")
	}
}

// A Redis restarted with its data is no loss; restarted empty, it is seen
// on the reconnection itself (the connect hook), before any create.
func TestFaultStoreEpochSeenOnReconnect(t *testing.T) {
	ctx := context.Background()
	for _, persist := range []bool{true, false} {
		srv := redistest.StartServer(t, redistest.Options{Persist: persist})
		set, err := store.Open("redis://"+srv.Addr(), store.Options{Key: "store"})
		if err != nil {
			t.Fatal(err)
		}
		defer set.Close()
		if err := set.Ready(ctx); err != nil {
			t.Fatal(err)
		}
		j, _ := set.Journal()
		srv.Restart()
		if err := set.(*redis.Set).Client().Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		lost := !j.(*redis.Journal).LostAt().IsZero()
		if lost == persist {
			t.Errorf("Redis restarted (persistence %v): loss reported %v", persist, lost)
		}
	}
}
