package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/redistest"
	"github.com/farebox/farebox/x402"
)

// BenchmarkReserveCommit measures the replay-store cost of one paid request
// on loopback Redis: a reservation and its commit (two round trips).
func BenchmarkReserveCommit(b *testing.B) {
	s := New(clientTB(b, redistest.Start(b)), "")
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	k := x402.Key{ChainID: "84532", Asset: x402.BaseSepolia.Asset}
	b.ReportAllocs()
	var i uint64
	for b.Loop() {
		i++
		for j := range 8 {
			k.Nonce[j] = byte(i >> (8 * j))
		}
		if err := s.Reserve(ctx, k, exp); err != nil {
			b.Fatal(err)
		}
		if err := s.Commit(ctx, k, exp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReserveParallel measures reservations from many goroutines, as a
// busy replica makes them.
func BenchmarkReserveParallel(b *testing.B) {
	s := New(clientTB(b, redistest.Start(b)), "")
	ctx := context.Background()
	exp := time.Now().Add(time.Hour)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		k := randomKeyTB(b)
		var i uint64
		for pb.Next() {
			i++
			for j := range 8 {
				k.Nonce[j] = byte(i >> (8 * j))
			}
			if err := s.Reserve(ctx, k, exp); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
