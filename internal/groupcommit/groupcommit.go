// Package groupcommit runs the bbolt write transactions of concurrent
// callers in shared commits. bbolt fsyncs once per commit and runs one
// writer at a time, so a durable write per call caps a busy process at one
// call per fsync; here the callers that arrive while a commit is under way
// wait for it and then go to disk together in the next one, so durability
// costs one commit per batch. A caller alone commits at once: there is no
// timer, unlike bbolt's DB.Batch, so an idle process pays no added delay.
//
// The guarantee is the same as a commit of one's own: Update returns only
// after the commit holding the caller's change reached the disk.
package groupcommit

import (
	"fmt"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// Func is one caller's part of a shared transaction. It returns a refusal
// (a condition it checked, such as a revision that moved) apart from an
// error: the refusal goes back to its caller and the others still commit;
// an error rolls the shared transaction back, after which each part runs
// again alone. A Func may so run more than once, and must make no writes
// before it refuses.
type Func func(tx *bolt.Tx) (refusal, err error)

// Committer shares the commits of one bbolt file. The zero value is not
// usable: call New.
type Committer struct {
	db *bolt.DB

	mu         sync.Mutex
	pending    []*call
	committing bool // a leader is committing: newcomers queue

	commits atomic.Uint64
	calls   atomic.Uint64

	queued func(pending int) // tests: called after a caller queued behind a commit
}

// call is one Update waiting for its commit. done receives once: when its
// commit finished, or when it is to lead the next one.
type call struct {
	fn      Func
	refusal error
	err     error
	lead    bool
	done    chan struct{}
}

// New returns a Committer for db. Everything that writes db through it
// shares commits; other db.Update calls still work, one commit each.
func New(db *bolt.DB) *Committer { return &Committer{db: db} }

// DB is the file the committer writes.
func (c *Committer) DB() *bolt.DB { return c.db }

// Update runs fn in a read-write transaction shared with the callers
// arriving meanwhile and returns once that transaction committed (fn's
// change is on disk): fn's refusal, or the error that kept its change
// from the disk.
func (c *Committer) Update(fn Func) (refusal, err error) {
	cl := &call{fn: fn, done: make(chan struct{}, 1)}
	c.calls.Add(1)
	c.mu.Lock()
	c.pending = append(c.pending, cl)
	lead := !c.committing
	c.committing = true
	n := len(c.pending)
	c.mu.Unlock()
	if !lead {
		if c.queued != nil {
			c.queued(n)
		}
		<-cl.done
		if !cl.lead {
			return cl.result()
		}
	}
	// The leader commits everything queued (itself included), then hands
	// the lead to the first caller that queued meanwhile.
	c.mu.Lock()
	batch := c.pending
	c.pending = nil
	c.mu.Unlock()
	c.commit(batch)
	c.mu.Lock()
	if len(c.pending) > 0 {
		next := c.pending[0]
		next.lead = true
		next.done <- struct{}{}
	} else {
		c.committing = false
	}
	c.mu.Unlock()
	for _, o := range batch {
		if o != cl {
			o.done <- struct{}{}
		}
	}
	return cl.result()
}

func (cl *call) result() (refusal, err error) {
	if cl.err != nil {
		return nil, cl.err
	}
	return cl.refusal, nil
}

// commit runs batch in one transaction; if it fails, each part alone, so
// one caller's error is not everyone's.
func (c *Committer) commit(batch []*call) {
	err := c.run(batch)
	if err == nil || len(batch) == 1 {
		for _, cl := range batch {
			cl.err = err
		}
		return
	}
	for _, cl := range batch {
		cl.err = c.run([]*call{cl})
	}
}

// run commits batch in one transaction. A part that panics fails the
// transaction with an error rather than leaving the others waiting forever.
func (c *Committer) run(batch []*call) error {
	defer c.commits.Add(1)
	return c.db.Update(func(tx *bolt.Tx) (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("groupcommit: panic in a transaction: %v", p)
			}
		}()
		for _, cl := range batch {
			cl.refusal, err = cl.fn(tx)
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// Stats are a committer's counts since New.
type Stats struct {
	Calls   uint64 // Update calls
	Commits uint64 // read-write transactions run (each one fsync'd commit when it succeeds)
}

// Stats returns the counts so far: Commits/Calls is the share of an fsync
// each durable write cost.
func (c *Committer) Stats() Stats {
	return Stats{Calls: c.calls.Load(), Commits: c.commits.Load()}
}
