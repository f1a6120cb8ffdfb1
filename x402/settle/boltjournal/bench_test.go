package boltjournal_test

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/settle/boltjournal"
	"github.com/farebox/farebox/x402/settle/journaltest"
)

// BenchmarkPurchase is one purchase's journal writes (reserve, settling,
// broadcast, confirmed), each fsynced, from parallel requests.
func BenchmarkPurchase(b *testing.B) {
	j, err := boltjournal.Open(b.TempDir(), 0)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e := journaltest.NewEntry(common.Address{1})
			if _, err := j.Create(ctx, e); err != nil {
				b.Fatal(err)
			}
			for _, s := range []settle.State{settle.Settling, settle.Broadcast, settle.Confirmed} {
				from := e.State
				e.State = s
				if err := j.Update(ctx, e, from); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
