package redis_test

import (
	"context"
	"testing"

	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/store"
	"github.com/farebox/farebox/x402/channel/service"
)

// The channel store tells a Redis that came back empty by the journal's
// store epoch on the same Redis: every replica that used it before the
// restart sees the loss at its next look, one that starts on the emptied
// Redis learns it from them, and a new Redis is no loss.
func TestFaultChannelStoreTellsARedisRestartedEmpty(t *testing.T) {
	ctx := context.Background()
	srv := redistest.StartServer(t, redistest.Options{})
	replica := func() service.StoreLoss {
		t.Helper()
		set, err := store.Open("redis://"+srv.Addr(), store.Options{Key: "payments.redis_url"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { set.Close() })
		cs, err := set.Channels()
		if err != nil {
			t.Fatal(err)
		}
		return cs.(service.StoreLoss)
	}
	a, b := replica(), replica()
	for _, s := range []service.StoreLoss{a, b} {
		if at, err := s.LostAt(ctx); err != nil || !at.IsZero() {
			t.Fatalf("a new Redis: lost at %v, %v", at, err)
		}
	}
	srv.Restart() // without persistence: empty
	at, err := a.LostAt(ctx)
	if err != nil || at.IsZero() {
		t.Fatalf("after the empty restart: lost at %v, %v", at, err)
	}
	late := replica()
	for name, s := range map[string]service.StoreLoss{"the other replica": b, "a replica started after the loss": late} {
		if got, err := s.LostAt(ctx); err != nil || !got.Equal(at) {
			t.Errorf("%s: lost at %v, %v; want %v", name, got, err, at)
		}
	}
}
