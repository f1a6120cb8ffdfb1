package settle_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	goredis "github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/redistest"
	storeredis "github.com/farebox/farebox/store/redis"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/settle"
)

// replicas is one anvil and one Redis shared by settlement engines, each
// a replica with its own instance name, relayer and log.
type replicas struct {
	a       *chaintest.Anvil
	rdb     *goredis.Client
	journal *storeredis.Journal
	req     *x402.Requirement
	signer  *payer.Signer
	from    common.Address
	logs    lockedBuffer
}

// lockedBuffer is a log every replica writes to at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newReplicas(t *testing.T) *replicas {
	t.Helper()
	a := chaintest.StartAnvil(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: redistest.Start(t)})
	t.Cleanup(func() { rdb.Close() })
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	payTo, _ := crypto.GenerateKey()
	r := &replicas{a: a, rdb: rdb, journal: storeredis.NewJournal(rdb, ""), signer: payer.NewSigner(key),
		from: crypto.PubkeyToAddress(key.PublicKey),
		req: &x402.Requirement{Scheme: "exact", Network: a.Network, Amount: big.NewInt(price),
			PayTo: crypto.PubkeyToAddress(payTo.PublicKey), MaxTimeoutSeconds: 600, Resource: "http://farebox.test/v1/responses"}}
	if err := a.Fund(context.Background(), r.from, 10*price); err != nil {
		t.Fatal(err)
	}
	return r
}

// engine is the replica named instance: onEvent gets its events.
func (r *replicas) engine(t *testing.T, instance string, cfg settle.Config) *settle.Engine {
	t.Helper()
	return r.engineOn(t, instance, cfg, r.rdb)
}

// engineOn is engine reaching Redis through rdb.
func (r *replicas) engineOn(t *testing.T, instance string, cfg settle.Config, rdb *goredis.Client) *settle.Engine {
	t.Helper()
	return r.engineVia(t, instance, cfg, rdb, r.a.Client)
}

// engineVia is engine reaching Redis through rdb and the chain through
// node.
func (r *replicas) engineVia(t *testing.T, instance string, cfg settle.Config, rdb *goredis.Client, node evm.Backend) *settle.Engine {
	t.Helper()
	ctx := context.Background()
	key, err := r.a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := evm.NewSettler(ctx, node, key)
	if err != nil {
		t.Fatal(err)
	}
	s.PollInterval = 20 * time.Millisecond
	reg, err := x402.NewRegistry(r.a.Network)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Journal, cfg.Holds, cfg.Settler, cfg.Networks, cfg.Instance = storeredis.NewJournal(rdb, ""), storeredis.NewHolds(rdb, ""), s, reg, instance
	cfg.Logger = slog.New(slog.NewJSONHandler(&r.logs, nil)).With("replica", instance)
	e, err := settle.NewEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// buy is one paid call at e, settled (broadcast): its entry's name.
func (r *replicas) buy(t *testing.T, e *settle.Engine, body string) string {
	t.Helper()
	p, err := r.signer.Sign(r.req, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x402.EncodePayment(p, r.req); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pu, err := e.Begin(ctx, settle.Purchase{Payment: p, Requirement: r.req, BodyHash: sha256.Sum256([]byte(body)), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if rc, err := pu.Settle(ctx); err != nil || !rc.Success {
		t.Fatalf("Settle = %+v, %v", rc, err)
	}
	return pu.Entry().Name()
}

// automine turns anvil's mining of each transaction on or off.
func (r *replicas) automine(t *testing.T, on bool) {
	t.Helper()
	if err := r.a.Client.Client().CallContext(context.Background(), nil, "evm_setAutomine", on); err != nil {
		t.Fatal(err)
	}
}

// balances reads (payer, payTo) on chain.
func (r *replicas) balances(t *testing.T) (int64, int64) {
	t.Helper()
	ctx := context.Background()
	read := func(who common.Address) int64 {
		asset := r.a.Network.Asset
		out, err := r.a.Client.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: tok.PackBalanceOf(who)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		v, err := tok.UnpackBalanceOf(out)
		if err != nil {
			t.Fatal(err)
		}
		return v.Int64()
	}
	return read(r.from), read(r.req.PayTo)
}

// TestFaultBooksAtASurvivorCountWhatADeadReplicaConfirmed: replica a
// confirms one purchase and leaves another broadcast, then dies with
// the books' writes of its events (SIGKILL between the journal step and
// the books' flush); replica b, whose books were running all along,
// adopts the orphan. b's books count both purchases once each (calls,
// paid, charged, settled), as the chain moved them, and a second adoption
// round changes nothing.
func TestFaultBooksAtASurvivorCountWhatADeadReplicaConfirmed(t *testing.T) {
	r := newReplicas(t)
	ctx := context.Background()
	payerBefore, payToBefore := r.balances(t)
	store := storeredis.NewBooks(r.rdb, "farebox:books:")
	bk := books.New(books.Config{Store: store, Journal: r.journal, ReconcileAfter: 50 * time.Millisecond})
	defer bk.Close()
	const stale = time.Minute
	// b's clock runs past adopt_after, so a's entries are idle at once.
	b := r.engine(t, "b", settle.Config{StaleAfter: stale, OnEvent: bk.Event,
		Now: func() time.Time { return time.Now().Add(stale + time.Second) }})
	confirmed := make(chan string, 4)
	a := r.engine(t, "a", settle.Config{StaleAfter: stale, OnEvent: func(ev settle.Event) {
		if ev.Kind == settle.EventConfirmed {
			confirmed <- ev.Entry.Name()
		}
	}})
	first := r.buy(t, a, "first")
	if got := <-confirmed; got != first {
		t.Fatalf("confirmed %s, want %s", got, first)
	}
	r.automine(t, false)
	orphan := r.buy(t, a, "orphan")
	a.Close() // killed: its follower stops, its books' writes are lost
	r.automine(t, true)
	if err := r.a.Client.Client().CallContext(ctx, nil, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Adopt(ctx); err != nil || n != 1 {
		t.Fatalf("Adopt = %d, %v; want the orphan %s", n, err, orphan)
	}
	want := map[string]int64{books.FCalls: 2, books.FPaid: 2, books.FCharged: 2 * price, books.FSettled: 2 * price, books.FSettledN: 2}
	awaitBooks(t, store, want)
	if n, err := b.Adopt(ctx); err != nil || n != 0 {
		t.Fatalf("Adopt again = %d, %v; want nothing left", n, err)
	}
	bk.Flush()
	if got := bookSums(t, store); !sameFields(got, want) {
		t.Fatalf("after another adoption round the books say %v, want %v", got, want)
	}
	payerAfter, payToAfter := r.balances(t)
	if payerBefore-payerAfter != 2*price || payToAfter-payToBefore != 2*price {
		t.Fatalf("on chain the payer lost %d and payTo gained %d, want %d each", payerBefore-payerAfter, payToAfter-payToBefore, 2*price)
	}
	if strings.Contains(r.logs.String(), `"level":"ERROR"`) {
		t.Fatalf("an ERROR was logged:\n%s", r.logs.String())
	}
}

// awaitBooks waits (10 s at most) until the books' sums hold want.
func awaitBooks(t *testing.T, store books.Store, want map[string]int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := bookSums(t, store)
		if sameFields(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the books say %v, want %v", got, want)
		}
	}
}

func sameFields(got, want map[string]int64) bool {
	for f, v := range want {
		if got[f] != v {
			return false
		}
	}
	return true
}

// bookSums adds up every row's fields from a day ago to a day ahead.
func bookSums(t *testing.T, store books.Store) map[string]int64 {
	t.Helper()
	now := time.Now()
	rows, err := store.Rows(context.Background(), now.Add(-24*time.Hour), now.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, row := range rows {
		for f, v := range row.Fields {
			out[f] += v
		}
	}
	return out
}

// TestFaultALiveReplicasUnminedTransferIsNotAdopted: with mining stopped
// for longer than adopt_after, replica a's transfer stays unmined while a
// follows it, and replica c dies with its own transfer unmined. Replica b,
// looking for orphans all along, adopts c's purchase once and never a's
// (a's follower keeps its entry fresh); once blocks come, a confirms its
// own and b the orphan, the chain moves each price once, and no replica
// logs an ERROR (two followers of one entry: "journaling a confirmed
// transfer ... changed state").
func TestFaultALiveReplicasUnminedTransferIsNotAdopted(t *testing.T) {
	r := newReplicas(t)
	ctx := context.Background()
	payerBefore, payToBefore := r.balances(t)
	const stale = 600 * time.Millisecond
	type seen struct {
		kind  settle.EventKind
		entry string
	}
	evs := make(chan seen, 64)
	on := func(ev settle.Event) {
		if ev.Entry != nil && (ev.Kind == settle.EventAdopted || ev.Kind == settle.EventConfirmed) {
			evs <- seen{ev.Kind, ev.Entry.Name()}
		}
	}
	a := r.engine(t, "a", settle.Config{StaleAfter: stale, OnEvent: on})
	b := r.engine(t, "b", settle.Config{StaleAfter: stale, OnEvent: on})
	c := r.engine(t, "c", settle.Config{StaleAfter: stale, OnEvent: on})
	r.automine(t, false)
	live := r.buy(t, a, "live")
	orphan := r.buy(t, c, "orphan")
	c.Close() // killed with its transfer unmined
	began := time.Now()
	adopted := map[string]int{}
	for time.Since(began) < 4*stale {
		if _, err := b.Adopt(ctx); err != nil {
			t.Fatal(err)
		}
		for drained := false; !drained; {
			select {
			case s := <-evs:
				if s.kind == settle.EventAdopted {
					adopted[s.entry]++
				}
			default:
				drained = true
			}
		}
		time.Sleep(stale / 10) // adopt_after is a duration: the test lets it pass
	}
	if adopted[live] != 0 || adopted[orphan] != 1 {
		t.Fatalf("adopted the live replica's purchase %d times and the dead one's %d; want 0 and 1", adopted[live], adopted[orphan])
	}
	r.automine(t, true)
	if err := r.a.Client.Client().CallContext(ctx, nil, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	for pending := map[string]bool{live: true, orphan: true}; len(pending) > 0; {
		select {
		case s := <-evs:
			if s.kind == settle.EventAdopted {
				t.Fatalf("adopted %s after the blocks came", s.entry)
			}
			delete(pending, s.entry)
		case <-time.After(time.Minute):
			t.Fatalf("not confirmed within a minute: %v", pending)
		}
	}
	payerAfter, payToAfter := r.balances(t)
	if payerBefore-payerAfter != 2*price || payToAfter-payToBefore != 2*price {
		t.Fatalf("on chain the payer lost %d and payTo gained %d, want %d each", payerBefore-payerAfter, payToAfter-payToBefore, 2*price)
	}
	a.Close()
	b.Close()
	if logs := r.logs.String(); strings.Contains(logs, `"level":"ERROR"`) {
		t.Fatalf("an ERROR was logged:\n%s", logs)
	}
}
