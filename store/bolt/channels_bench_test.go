package bolt_test

import (
	"context"
	"fmt"
	"github.com/farebox/farebox/internal/testkit/channelstoretest"
	"github.com/farebox/farebox/store/bolt"
	"math/big"
	"path/filepath"
	"sync/atomic"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/farebox/farebox/internal/groupcommit"
)

// BenchmarkBoltStoreVoucher is one voucher's state write (Put with the
// revision read before it) per call, on as many channels as there are
// parallel callers. commits/op is how many bbolt commits (each two
// fdatasyncs) a voucher cost: 1 alone, less as channels share commits.
func BenchmarkBoltStoreVoucher(b *testing.B) {
	for _, par := range []int{1, 16} {
		b.Run(fmt.Sprintf("parallelism=%d", par), func(b *testing.B) {
			db, err := bbolt.Open(filepath.Join(b.TempDir(), "channels.db"), 0o600, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			c := groupcommit.New(db)
			s, err := bolt.NewChannelsSharing(c)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			var channels atomic.Int32
			b.SetParallelism(par)
			b.RunParallel(func(pb *testing.PB) {
				rec := channelstoretest.Record(byte(channels.Add(1)), 0)
				for pb.Next() {
					rec.State.Charged.Add(rec.State.Charged, big.NewInt(1))
					if err := s.Put(ctx, rec, rec.Rev); err != nil {
						b.Error(err)
						return
					}
				}
			})
			st := c.Stats()
			b.ReportMetric(float64(st.Commits)/float64(b.N), "commits/op")
		})
	}
}
