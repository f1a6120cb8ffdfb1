package redis_test

import (
	"context"
	"testing"
	"time"

	"github.com/farebox/farebox/store/redis"
)

// TestAReplicasBeatLapsesOrEnds: a beat keeps its instance alive for its
// ttl, another instance is not alive for it, a lapsed beat is not, and
// Gone ends one at once.
func TestAReplicasBeatLapsesOrEnds(t *testing.T) {
	ctx := context.Background()
	j := redis.NewJournal(client(t), prefix(t))
	alive := func(instance string) bool {
		t.Helper()
		v, err := j.Alive(ctx, instance)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if err := j.Beat(ctx, "a:1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := j.Beat(ctx, "b:2", 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if !alive("a:1") || alive("c:3") {
		t.Fatalf("after a's beat: a alive %v, c (never beat) alive %v", alive("a:1"), alive("c:3"))
	}
	for deadline := time.Now().Add(10 * time.Second); alive("b:2"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("b's 50 ms beat has not lapsed in 10 s")
		}
	}
	if err := j.Gone(ctx, "a:1"); err != nil {
		t.Fatal(err)
	}
	if alive("a:1") {
		t.Fatal("a is alive after Gone")
	}
}
