package settle_test

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	goredis "github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/x402/settle"
)

// begin reserves one paid call at e without settling it: a purchase still
// queued for its relayer, as under load.
func (r *replicas) begin(t *testing.T, e *settle.Engine, body string) *settle.Purchase {
	t.Helper()
	p, err := r.signer.Sign(r.req, 2)
	if err != nil {
		t.Fatal(err)
	}
	pu, err := e.Begin(context.Background(), settle.Purchase{Payment: p, Requirement: r.req,
		BodyHash: sha256.Sum256([]byte(body)), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return pu
}

// TestFaultALiveReplicasQueuedPurchaseIsNotAdopted: replica a holds a
// purchase reserved and not yet sent (its relayer is busy) for longer
// than adopt_after, and replica c loses Redis for good (as if killed)
// with its own reserved purchase. Replica b, looking for orphans all
// along, takes over c's purchase once (released: nothing was sent) and
// never a's: a is alive, whatever its entry's age. a then settles its
// purchase, and the chain moves its price once.
func TestFaultALiveReplicasQueuedPurchaseIsNotAdopted(t *testing.T) {
	r := newReplicas(t)
	ctx := context.Background()
	payerBefore, payToBefore := r.balances(t)
	const stale = 600 * time.Millisecond
	adoptions := make(chan string, 16)
	on := func(ev settle.Event) {
		if ev.Kind == settle.EventAdopted && ev.Entry != nil {
			adoptions <- ev.Entry.Name()
		}
	}
	a := r.engine(t, "a", settle.Config{StaleAfter: stale, OnEvent: on})
	b := r.engine(t, "b", settle.Config{StaleAfter: stale, OnEvent: on})
	// c reaches Redis through a client of its own, closed to kill it.
	own := goredis.NewClient(&goredis.Options{Addr: r.rdb.Options().Addr})
	c := r.engineOn(t, "c", settle.Config{StaleAfter: stale, OnEvent: on}, own)
	queued := r.begin(t, a, "queued")
	orphan := r.begin(t, c, "orphan").Entry().Name()
	own.Close()
	adopted := map[string]int{}
	for began := time.Now(); time.Since(began) < 5*stale; {
		if _, err := b.Adopt(ctx); err != nil {
			t.Fatal(err)
		}
		for drained := false; !drained; {
			select {
			case name := <-adoptions:
				adopted[name]++
			default:
				drained = true
			}
		}
		time.Sleep(stale / 10) // adopt_after is a duration: the test lets it pass
	}
	if adopted[queued.Entry().Name()] != 0 || adopted[orphan] != 1 {
		t.Fatalf("adopted the live replica's queued purchase %d times and the dead one's %d; want 0 and 1",
			adopted[queued.Entry().Name()], adopted[orphan])
	}
	rc, err := queued.Settle(ctx)
	if err != nil || !rc.Success {
		t.Fatalf("the live replica's Settle = %+v, %v", rc, err)
	}
	if _, err := r.a.Client.TransactionReceipt(ctx, common.HexToHash(rc.Transaction)); err != nil {
		t.Fatalf("the live replica's transfer is not mined: %v", err)
	}
	payerAfter, payToAfter := r.balances(t)
	if payerBefore-payerAfter != price || payToAfter-payToBefore != price {
		t.Fatalf("on chain the payer lost %d and payTo gained %d, want %d each (the released orphan moves nothing)",
			payerBefore-payerAfter, payToAfter-payToBefore, price)
	}
	a.Close()
	b.Close()
}

// TestFaultAStoppedReplicasPurchasesAreAdoptedAtOnce: a replica that
// stops cleanly ends its beat, so its purchases idle past adopt_after are
// taken over at the next adoption round, not a beat's lifetime later.
func TestFaultAStoppedReplicasPurchasesAreAdoptedAtOnce(t *testing.T) {
	r := newReplicas(t)
	ctx := context.Background()
	const stale = time.Minute
	b := r.engine(t, "b", settle.Config{StaleAfter: stale,
		Now: func() time.Time { return time.Now().Add(stale + time.Second) }})
	a := r.engine(t, "a", settle.Config{StaleAfter: stale})
	r.begin(t, a, "left")
	if n, err := b.Adopt(ctx); err != nil || n != 0 {
		t.Fatalf("Adopt while a runs = %d, %v; want 0", n, err)
	}
	a.Close()
	if n, err := b.Adopt(ctx); err != nil || n != 1 {
		t.Fatalf("Adopt after a stopped = %d, %v; want 1", n, err)
	}
}
