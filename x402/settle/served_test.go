package settle_test

import (
	"context"
	"fmt"
	storebolt "github.com/farebox/farebox/store/bolt"
	storeredis "github.com/farebox/farebox/store/redis"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/settle"
)

// unconfirmed is the dev chain's settler whose Await waits for release
// (or the follower's end), so that a test acts while a broadcast transfer
// is still unconfirmed in the journal.
type unconfirmed struct {
	*devSettler
	release chan struct{}
}

func (u *unconfirmed) Await(ctx context.Context, tx common.Hash, p *x402.Payment) error {
	select {
	case <-u.release:
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", evm.ErrNotMined, ctx.Err())
	}
	return u.devSettler.Await(ctx, tx, p)
}

// AwaitFee is Await with the fee (the engine prefers it when the settler
// has it, so it must wait for release too).
func (u *unconfirmed) AwaitFee(ctx context.Context, tx common.Hash, p *x402.Payment) (*big.Int, error) {
	select {
	case <-u.release:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", evm.ErrNotMined, ctx.Err())
	}
	return u.devSettler.AwaitFee(ctx, tx, p)
}

func holdConfirmations() *unconfirmed {
	return &unconfirmed{devSettler: settler, release: make(chan struct{})}
}

// attributed lists the EventAttributed events of the entry named name
// ("" any) among those already reported (events are reported
// synchronously); the others are dropped.
func attributed(ev events, name string) []settle.Event {
	var out []settle.Event
	for {
		select {
		case e := <-ev:
			if e.Kind == settle.EventAttributed && (name == "" || e.Entry.Name() == name) {
				out = append(out, e)
			}
		default:
			return out
		}
	}
}

// TestServedNamesTheSupplierWhateverCameFirst: the supplier that served a
// purchase is in its journal entry and reaches the books exactly once,
// whether it was known before the transfer was sent (upto: settled after
// the answer), while the transfer was broadcast and not yet confirmed
// (exact alongside the model), or after it was mined (settle before,
// confirm mined). Memory, bbolt and Redis journals alike.
func TestServedNamesTheSupplierWhateverCameFirst(t *testing.T) {
	ctx := context.Background()
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			b := newBuyer(t, 10*price)
			t.Run("before the transfer", func(t *testing.T) {
				j, h := open(t)
				e, ev := newEngine(t, settle.Config{Journal: j, Holds: h})
				p, err := e.Begin(ctx, b.purchase(b.pay(t), "before"))
				if err != nil {
					t.Fatal(err)
				}
				if err := p.Served(ctx, "alpha"); err != nil {
					t.Fatal(err)
				}
				if _, err := p.Settle(ctx); err != nil {
					t.Fatal(err)
				}
				n := p.Entry().Name()
				if got := ev.await(t, settle.EventConfirmed, n).Entry.Supplier; got != "alpha" {
					t.Errorf("the confirmation names supplier %q, want alpha", got)
				}
				if en, err := j.Get(ctx, p.Payment.Key(chain.Network)); err != nil || en.Supplier != "alpha" || en.State != settle.Confirmed {
					t.Errorf("journal entry %+v, %v; want confirmed, supplier alpha", en, err)
				}
				if a := attributed(ev, n); len(a) != 0 {
					t.Errorf("%d attributions of a confirmation that named its supplier", len(a))
				}
			})

			t.Run("while in flight", func(t *testing.T) {
				j, h := open(t)
				st := holdConfirmations()
				e, ev := newEngine(t, settle.Config{Journal: j, Holds: h, Settler: st})
				p, err := e.Begin(ctx, b.purchase(b.pay(t), "in flight"))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Settle(ctx); err != nil {
					t.Fatal(err)
				}
				n := p.Entry().Name()
				ev.await(t, settle.EventBroadcast, n)
				if err := p.Served(ctx, "beta"); err != nil {
					t.Fatal(err)
				}
				en, err := j.Get(ctx, p.Payment.Key(chain.Network))
				if err != nil || en.State != settle.Broadcast || en.Supplier != "beta" {
					t.Fatalf("journal entry while unconfirmed %+v, %v; want broadcast, supplier beta", en, err)
				}
				close(st.release)
				if got := ev.await(t, settle.EventConfirmed, n).Entry.Supplier; got != "beta" {
					t.Errorf("the confirmation names supplier %q, want beta", got)
				}
				if en, err := j.Get(ctx, p.Payment.Key(chain.Network)); err != nil || en.State != settle.Confirmed || en.Supplier != "beta" {
					t.Errorf("journal entry %+v, %v; want confirmed (the tracker's move was not lost), supplier beta", en, err)
				}
				if a := attributed(ev, n); len(a) != 0 {
					t.Errorf("%d attributions of a confirmation that named its supplier", len(a))
				}
			})

			t.Run("after it was mined", func(t *testing.T) {
				j, h := open(t)
				e, ev := newEngine(t, settle.Config{Journal: j, Holds: h, Confirm: settle.ConfirmMined})
				p, err := e.Begin(ctx, b.purchase(b.pay(t), "after"))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Settle(ctx); err != nil {
					t.Fatal(err)
				}
				n := p.Entry().Name()
				mined := ev.await(t, settle.EventConfirmed, n).Entry
				if mined.Supplier != "" {
					t.Fatalf("the confirmation names supplier %q before anyone knew it", mined.Supplier)
				}
				if err := p.Served(ctx, "gamma"); err != nil {
					t.Fatal(err)
				}
				if err := p.Served(ctx, "gamma"); err != nil { // told twice: still one attribution
					t.Fatal(err)
				}
				a := attributed(ev, n)
				if len(a) != 1 || a[0].Entry.Supplier != "gamma" || a[0].Entry.State != settle.Confirmed ||
					!a[0].Entry.Updated.Equal(mined.Updated) {
					t.Fatalf("attributions %+v; want one, of the confirmed entry (updated %v) to gamma", a, mined.Updated)
				}
				en, err := j.Get(ctx, p.Payment.Key(chain.Network))
				if err != nil || en.State != settle.Confirmed || en.Supplier != "gamma" || en.Receipt == nil || !en.Receipt.Success {
					t.Errorf("journal entry %+v, %v; want confirmed with its receipt, supplier gamma", en, err)
				}
			})

			t.Run("a replay or a release changes nothing", func(t *testing.T) {
				j, h := open(t)
				e, ev := newEngine(t, settle.Config{Journal: j, Holds: h, Confirm: settle.ConfirmMined})
				pay := b.pay(t)
				first, err := e.Begin(ctx, b.purchase(pay, "replayed"))
				if err != nil {
					t.Fatal(err)
				}
				if err := first.Served(ctx, "first"); err != nil {
					t.Fatal(err)
				}
				if _, err := first.Settle(ctx); err != nil {
					t.Fatal(err)
				}
				again, err := e.Begin(ctx, b.purchase(pay, "replayed"))
				if err != nil || !again.Replay() {
					t.Fatalf("Begin again = %v, replay %v", err, again != nil && again.Replay())
				}
				if err := again.Served(ctx, "other"); err != nil {
					t.Fatal(err)
				}
				if en, err := j.Get(ctx, pay.Key(chain.Network)); err != nil || en.Supplier != "first" {
					t.Errorf("after a replay named another supplier the entry is %+v, %v; want supplier first", en, err)
				}
				released, err := e.Begin(ctx, b.purchase(b.pay(t), "released"))
				if err != nil {
					t.Fatal(err)
				}
				if err := released.Release(ctx); err != nil {
					t.Fatal(err)
				}
				if err := released.Served(ctx, "nobody"); err != nil {
					t.Fatal(err)
				}
				if _, err := j.Get(ctx, released.Payment.Key(chain.Network)); err == nil {
					t.Error("naming the supplier of a released purchase brought its entry back")
				}
				if a := attributed(ev, ""); len(a) != 0 {
					t.Errorf("attributions %+v, want none", a)
				}
			})
		})
	}
}

// TestServedSurvivesARestart: a supplier named while the transfer was
// unconfirmed is on disk (bbolt) or in the shared store (Redis): the next
// process, or another replica, reads it and its confirmation after Resume
// carries it.
func TestServedSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var rdb *redis.Client
	reopen := map[string]func(t *testing.T) settle.Journal{
		"bolt": func(t *testing.T) settle.Journal {
			j, err := storebolt.OpenJournal(dir, 0)
			if err != nil {
				t.Fatal(err)
			}
			return j
		},
		"redis": func(t *testing.T) settle.Journal {
			testenv.SkipShort(t, "redis-server")
			if rdb == nil {
				rdb = redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
				t.Cleanup(func() { rdb.Close() })
			}
			return storeredis.NewJournal(rdb, "served:")
		},
	}
	for name, open := range reopen {
		t.Run(name, func(t *testing.T) {
			b := newBuyer(t, 10*price)
			j1 := open(t)
			st := holdConfirmations() // never released: the first process stops unconfirmed
			e1, ev1 := newEngine(t, settle.Config{Journal: j1, Settler: st})
			p, err := e1.Begin(ctx, b.purchase(b.pay(t), "restart"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Settle(ctx); err != nil {
				t.Fatal(err)
			}
			n := p.Entry().Name()
			ev1.await(t, settle.EventBroadcast, n)
			if err := p.Served(ctx, "delta"); err != nil {
				t.Fatal(err)
			}
			if err := e1.Close(); err != nil {
				t.Fatal(err)
			}
			if err := j1.Close(); err != nil {
				t.Fatal(err)
			}

			j2 := open(t)
			defer j2.Close()
			en, err := j2.Get(ctx, p.Payment.Key(chain.Network))
			if err != nil || en.State != settle.Broadcast || en.Supplier != "delta" {
				t.Fatalf("after the restart the entry is %+v, %v; want broadcast, supplier delta", en, err)
			}
			e2, ev2 := newEngine(t, settle.Config{Journal: j2})
			if n, err := e2.Resume(ctx); n != 1 || err != nil {
				t.Fatalf("Resume = %d, %v; want the unconfirmed entry", n, err)
			}
			if got := ev2.await(t, settle.EventConfirmed, n).Entry.Supplier; got != "delta" {
				t.Errorf("the resumed confirmation names supplier %q, want delta", got)
			}
		})
	}
}
