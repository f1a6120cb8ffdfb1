package groupcommit

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

var bucket = []byte("b")

func openDB(tb testing.TB) *bolt.DB {
	tb.Helper()
	db, err := bolt.Open(filepath.Join(tb.TempDir(), "t.db"), 0o600, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucket); return err }); err != nil {
		tb.Fatal(err)
	}
	return db
}

func put(k string) Func {
	return func(tx *bolt.Tx) (error, error) {
		return nil, tx.Bucket(bucket).Put([]byte(k), []byte(k))
	}
}

func count(t *testing.T, db *bolt.DB) int {
	t.Helper()
	n := 0
	if err := db.View(func(tx *bolt.Tx) error { n = tx.Bucket(bucket).Stats().KeyN; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func join(refusal, err error) error { return errors.Join(refusal, err) }

// heldLeader starts a commit whose part blocks until release is closed, and
// n callers that queue behind it; it returns once all n queued.
func heldLeader(t *testing.T, c *Committer, n int, part func(i int) Func) (release chan struct{}, results chan error) {
	t.Helper()
	entered, release := make(chan struct{}), make(chan struct{})
	allQueued := make(chan struct{})
	c.queued = func(pending int) {
		if pending == n {
			close(allQueued)
		}
	}
	results = make(chan error, n+1)
	go func() {
		results <- join(c.Update(func(tx *bolt.Tx) (error, error) {
			close(entered)
			<-release
			return nil, tx.Bucket(bucket).Put([]byte("leader"), nil)
		}))
	}()
	<-entered
	for i := range n {
		go func() { results <- join(c.Update(part(i))) }()
	}
	<-allQueued
	return release, results
}

// N callers arriving while a commit is under way go to disk in one commit.
func TestConcurrentUpdatesShareOneCommit(t *testing.T) {
	db := openDB(t)
	c := New(db)
	const n = 50
	release, results := heldLeader(t, c, n, func(i int) Func { return put(fmt.Sprint(i)) })
	close(release)
	for range n + 1 {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
	if got, want := c.Stats(), (Stats{Calls: n + 1, Commits: 2}); got != want {
		t.Fatalf("stats = %+v, want %+v (the held commit, then one for all who queued)", got, want)
	}
	if got, want := count(t, db), n+1; got != want {
		t.Fatalf("keys on disk = %d, want %d", got, want)
	}
}

// A refusal goes back to its caller only; the others in its commit stay.
func TestRefusalDoesNotRollBackOthers(t *testing.T) {
	db := openDB(t)
	c := New(db)
	refused := errors.New("revision moved")
	release, results := heldLeader(t, c, 3, func(i int) Func {
		if i == 1 {
			return func(*bolt.Tx) (error, error) { return refused, nil }
		}
		return put(fmt.Sprint(i))
	})
	close(release)
	var refusals int
	for range 4 {
		if err := <-results; errors.Is(err, refused) {
			refusals++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if refusals != 1 || count(t, db) != 3 {
		t.Fatalf("refusals = %d, keys = %d; want 1 and 3", refusals, count(t, db))
	}
}

// An error (or a panic) in one part fails only its caller: the shared
// transaction rolls back and the other parts commit alone.
func TestErrorFailsOnlyItsCaller(t *testing.T) {
	db := openDB(t)
	c := New(db)
	broken := errors.New("disk says no")
	release, results := heldLeader(t, c, 4, func(i int) Func {
		switch i {
		case 1:
			return func(tx *bolt.Tx) (error, error) {
				_ = tx.Bucket(bucket).Put([]byte("half"), nil)
				return nil, broken
			}
		case 2:
			return func(*bolt.Tx) (error, error) { panic("bug") }
		}
		return put(fmt.Sprint(i))
	})
	close(release)
	var failed int
	for range 5 {
		if err := <-results; err != nil {
			failed++
		}
	}
	if got, want := count(t, db), 3; failed != 2 || got != want {
		t.Fatalf("failed = %d, keys = %d; want 2 and %d (the leader, 0 and 3; not the broken one's half write)", failed, got, want)
	}
}

// BenchmarkUpdate is one durable write per call from parallel callers,
// through a Committer and, for comparison, bbolt's own DB.Update (a commit
// per call) and DB.Batch (shared commits after a timer). commits/op is the
// share of a commit (two fdatasyncs in bbolt) each call cost.
func BenchmarkUpdate(b *testing.B) {
	for _, par := range []int{1, 8, 64} {
		callers := par * runtime.GOMAXPROCS(0)
		b.Run(fmt.Sprintf("groupcommit/callers=%d", callers), func(b *testing.B) {
			c := New(openDB(b))
			benchWrites(b, par, func(k string) error { _, err := c.Update(put(k)); return err })
			s := c.Stats()
			b.ReportMetric(float64(s.Commits)/float64(s.Calls), "commits/op")
		})
		for _, how := range []string{"Update", "Batch"} {
			b.Run(fmt.Sprintf("bolt.%s/callers=%d", how, callers), func(b *testing.B) {
				db := openDB(b)
				commit := db.Update
				if how == "Batch" {
					commit = db.Batch
				}
				var mu sync.Mutex
				txs := map[int]bool{} // a write transaction's id is its commit's
				benchWrites(b, par, func(k string) error {
					return commit(func(tx *bolt.Tx) error {
						mu.Lock()
						txs[tx.ID()] = true
						mu.Unlock()
						return tx.Bucket(bucket).Put([]byte(k), []byte(k))
					})
				})
				b.ReportMetric(float64(len(txs))/float64(b.N), "commits/op")
			})
		}
	}
}

func benchWrites(b *testing.B, par int, write func(k string) error) {
	var mu sync.Mutex
	i := 0
	b.SetParallelism(par)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			i++
			k := fmt.Sprint(i)
			mu.Unlock()
			if err := write(k); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
