package redisjournal_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/settle/redisjournal"
)

// A paid answer stored by one replica is read by another sharing the
// prefix, until its authorization expires.
func TestAnswersAreSharedByReplicas(t *testing.T) {
	ctx := context.Background()
	rdb := client(t)
	p := prefix(t)
	a, b := redisjournal.New(rdb, p), redisjournal.New(rdb, p)
	answer := []byte("j{\"id\":\"resp_1\"}")
	if err := a.PutAnswer(ctx, "k", answer, time.Now().Add(time.Minute)); err != nil {
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
