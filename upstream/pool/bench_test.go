package pool_test

import (
	"context"
	"testing"

	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/chat"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/upstream/upstreamhttp"
)

// The pool's overhead on the happy path: one call through a single chat
// upstream against the same call through a two-supplier pool whose first
// supplier answers, both against the zero-delay fake upstream over HTTP.
// Compare the two with benchstat; the pool should be within noise.
func BenchmarkHappyPath(b *testing.B) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer up.Close()
	single := func() responses.Model {
		m, err := chat.New(chat.Config{BaseURL: up.URL(), Model: "anything", Timeouts: upstreamhttp.Timeouts{}})
		if err != nil {
			b.Fatal(err)
		}
		return m
	}
	p, err := pool.New(pool.Config{Model: "m", Suppliers: []pool.Supplier{{Name: "a", Model: single()}, {Name: "b", Model: single()}}})
	if err != nil {
		b.Fatal(err)
	}
	req, perr := responses.Parse([]byte(`{"model":"m","input":"Say hello.","stream":true}`))
	if perr != nil {
		b.Fatal(perr)
	}
	for _, arm := range []struct {
		name string
		m    responses.Model
	}{{"single", single()}, {"pool-of-two", p}} {
		b.Run(arm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				em := responses.NewEmitter(req, upstreamtest.Discard{}, upstreamtest.EmitterOptions("m"))
				if err := arm.m.Respond(context.Background(), req, em); err != nil {
					b.Fatal(err)
				}
				em.Complete(nil)
			}
		})
	}
}
