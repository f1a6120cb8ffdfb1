package settle_test

import (
	"context"
	"errors"
	"fmt"
	storebolt "github.com/farebox/farebox/store/bolt"
	storeredis "github.com/farebox/farebox/store/redis"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402/settle"
)

// stores are the journal and holds implementations the engine runs on; the
// Redis server lives as long as the calling test.
func stores(parent *testing.T) map[string]func(t *testing.T) (settle.Journal, settle.Holds) {
	var rdb *redis.Client
	return map[string]func(t *testing.T) (settle.Journal, settle.Holds){
		"memory": func(t *testing.T) (settle.Journal, settle.Holds) {
			return settle.NewMemoryJournal(10_000), settle.NewMemoryHolds()
		},
		"bolt": func(t *testing.T) (settle.Journal, settle.Holds) {
			j, err := storebolt.OpenJournal(t.TempDir(), 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { j.Close() })
			return j, settle.NewMemoryHolds()
		},
		"redis": func(t *testing.T) (settle.Journal, settle.Holds) {
			testenv.SkipShort(t, "redis-server") // here: the server below belongs to the parent
			if rdb == nil {
				rdb = redis.NewClient(&redis.Options{Addr: redistest.Start(parent), PoolSize: 64})
				parent.Cleanup(func() { rdb.Close() })
			}
			prefix := "test:" + t.Name() + ":"
			return storeredis.NewJournal(rdb, prefix), storeredis.NewHolds(rdb, prefix)
		},
	}
}

// begins runs Begin for every purchase at once and sorts the outcomes.
func begins(e *settle.Engine, pus []settle.Purchase) (ok []*settle.Purchase, refused map[error]int, other []error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	refused = make(map[error]int)
	start := make(chan struct{})
	for _, pu := range pus {
		wg.Go(func() {
			<-start
			p, err := e.Begin(context.Background(), pu)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok = append(ok, p)
			case errors.Is(err, settle.ErrInProgress), errors.Is(err, settle.ErrInsufficientFunds):
				refused[err]++
			default:
				if len(other) < 3 {
					other = append(other, err)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	return ok, refused, other
}

// One authorization sent 100 times at once: exactly one purchase, 99 told
// it is in progress; on every journal.
func TestOneAuthorizationAHundredTimes(t *testing.T) {
	b := newBuyer(t, 10*price)
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			j, h := open(t)
			e, _ := newEngine(t, settle.Config{Journal: j, Holds: h})
			p := b.pay(t)
			pus := make([]settle.Purchase, 100)
			for i := range pus {
				pus[i] = b.purchase(p, "same body")
			}
			ok, refused, other := begins(e, pus)
			if len(ok) != 1 || refused[settle.ErrInProgress] != 99 || len(other) != 0 {
				t.Fatalf("%d purchases, %d in progress, other errors %v; want 1 and 99", len(ok), refused[settle.ErrInProgress], other)
			}
			if err := ok[0].Release(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A payer funded for one call signs 20 (and 200) distinct authorizations
// and sends them at once: exactly one is held and served, the others are
// refused before any output, and the chain charges exactly once.
func TestPayerFundedForOneCall(t *testing.T) {
	for name, open := range stores(t) {
		if name == "bolt" {
			continue // holds are memory or Redis; the journal does not count
		}
		for _, n := range []int{20, 200} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				ctx := context.Background()
				b := newBuyer(t, price)
				j, h := open(t)
				e, ev := newEngine(t, settle.Config{Journal: j, Holds: h})
				pus := make([]settle.Purchase, n)
				for i := range pus {
					pus[i] = b.purchase(b.pay(t), fmt.Sprint("body ", i))
				}
				ok, refused, other := begins(e, pus)
				if len(ok) != 1 || refused[settle.ErrInsufficientFunds] != n-1 || len(other) != 0 {
					t.Fatalf("%d purchases, %d insufficient funds, other errors %v; want 1 and %d",
						len(ok), refused[settle.ErrInsufficientFunds], other, n-1)
				}
				for _, pu := range pus {
					if pu.Payment == ok[0].Payment {
						continue
					}
					if _, err := j.Get(ctx, pu.Payment.Key(chain.Network)); !errors.Is(err, settle.ErrNotFound) {
						t.Fatalf("a refused authorization stayed in the journal: %v", err)
					}
				}
				rc, err := ok[0].Settle(ctx)
				if err != nil || !rc.Success {
					t.Fatalf("Settle = %+v, %v", rc, err)
				}
				ev.await(t, settle.EventConfirmed, ok[0].Entry().Name())
				if from, to := b.balancesAfter(t, rc.Transaction); from != 0 || to != price {
					t.Fatalf("payer %d, payee %d; want 0 and %d", from, to, price)
				}
				acct := settle.Account{ChainID: chain.Network.ChainID.String(), Asset: chain.Network.Asset, Payer: b.addr}
				if held, err := h.Held(ctx, acct); err != nil || held.Sign() != 0 {
					t.Fatalf("held %v, %v after confirmation", held, err)
				}
			})
		}
	}
}
