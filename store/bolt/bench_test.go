package bolt_test

import (
	"context"
	"fmt"
	"github.com/farebox/farebox/store/bolt"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/settle/journaltest"
)

// BenchmarkPurchase is one purchase's journal writes (reserve, settling,
// broadcast, confirmed), each durable when it returns (in the write-ahead
// log: one write and fdatasync, shared by concurrent purchases), from
// parallel requests (-cpu 1,2 and SetParallelism set how many).
// commits/purchase is how many bbolt commits (each two fdatasyncs) a
// purchase cost: the flusher's, one per ~250 ms whatever the rate (each
// write once committed itself: 2 to 3 per purchase alone).
func BenchmarkPurchase(b *testing.B) {
	for _, par := range []int{1, 16} {
		b.Run(fmt.Sprintf("parallelism=%d", par), func(b *testing.B) { benchPurchase(b, par) })
	}
}

func benchPurchase(b *testing.B, par int) {
	j, err := bolt.OpenJournal(b.TempDir(), 0)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	ctx := context.Background()
	b.SetParallelism(par)
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
	b.ReportMetric(float64(j.Committer().Stats().Commits)/float64(b.N), "commits/purchase")
}
