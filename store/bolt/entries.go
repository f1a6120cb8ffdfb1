package bolt

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// Every write to the tree stores the version in memory at the time its
// bbolt transaction runs, and the memory version is dropped only once a
// commit stored it: bbolt runs one writer at a time, so the last commit
// always holds the newest version, whatever order the writers came in. The
// log may hold older versions than the tree: each version has a sequence,
// and replay skips what the tree has newer (see replay).

// Create keeps e in memory unless its key or payment id is taken, in
// memory or on disk.
func (j *Journal) Create(ctx context.Context, e *settle.Entry) (*settle.Entry, error) {
	name := e.Name()
	j.mu.Lock()
	defer j.mu.Unlock()
	if cur, ok := j.mem[name]; ok {
		return cur.e.Clone(), settle.ErrExists
	}
	var id string
	if e.PaymentID != "" {
		id = settle.IDName(e.Payer, e.PaymentID)
		if other, ok := j.ids[id]; ok {
			return j.mem[other].e.Clone(), settle.ErrIDTaken
		}
	}
	var in *settle.Entry
	var refusal error
	err := j.db.View(func(tx *bbolt.Tx) error {
		entries := tx.Bucket(bucketEntries)
		b := entries.Get([]byte(name))
		refusal = settle.ErrExists
		if b == nil && id != "" {
			if other := tx.Bucket(bucketIDs).Get([]byte(id)); other != nil {
				b, refusal = entries.Get(other), settle.ErrIDTaken
			}
		}
		if b == nil {
			refusal = nil
			return nil
		}
		var err error
		in, err = decode(b)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("boltjournal: %w", err)
	}
	if refusal != nil {
		return in, refusal
	}
	j.mem[name] = &memEntry{e: e.Clone()}
	if id != "" {
		j.ids[id] = name
	}
	return nil, nil
}

// current is the newest version of name, from memory or disk; caller holds mu.
func (j *Journal) current(name string) (*settle.Entry, error) {
	if m, ok := j.mem[name]; ok {
		return m.e, nil
	}
	var out *settle.Entry
	err := j.db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketEntries).Get([]byte(name))
		if b == nil {
			return settle.ErrNotFound
		}
		var err error
		out, err = decode(b)
		return err
	})
	return out, err
}

// Get returns the entry of k.
func (j *Journal) Get(ctx context.Context, k x402.Key) (*settle.Entry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, err := j.current(settle.KeyName(k))
	if err != nil {
		return nil, err
	}
	return e.Clone(), nil
}

// stage makes e the newest version of its entry if that is still in state
// from; caller holds mu.
func (j *Journal) stage(e *settle.Entry, from settle.State) (*memEntry, error) {
	name := e.Name()
	prev, inMem := j.mem[name]
	cur, err := j.current(name)
	if err != nil {
		return nil, err
	}
	if cur.State != from {
		return nil, settle.ErrStateChanged
	}
	j.seq++
	m := &memEntry{e: e.Clone(), seq: j.seq, dirty: true, onDisk: !inMem || prev.onDisk}
	j.mem[name] = m
	if e.PaymentID != "" {
		j.ids[settle.IDName(e.Payer, e.PaymentID)] = name
	}
	return m, nil
}

// Update replaces the entry if it is still in state from, on disk when it
// returns: in the log, and in the tree with the next flush (which may come
// first).
func (j *Journal) Update(ctx context.Context, e *settle.Entry, from settle.State) error {
	j.mu.Lock()
	m, err := j.stage(e, from)
	if err != nil {
		j.mu.Unlock()
		return err
	}
	// Due before logged: a flush that begins after the log segment holding
	// this record was rotated out must write the entry (see flush).
	j.dueLocked(e.Name())
	j.mu.Unlock()
	rec, err := logRecord(m.seq, m.e)
	if err != nil {
		return err
	}
	return j.log.Append(rec)
}

// UpdateSoon replaces the entry if it is still in state from: readers see
// it at once, the disk within a few milliseconds (settle.SoonJournal). It is
// for the steps after the write-ahead one, which a crash may lose: Resume
// finds their outcome on chain.
func (j *Journal) UpdateSoon(ctx context.Context, e *settle.Entry, from settle.State) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.stage(e, from); err != nil {
		return err
	}
	j.dueLocked(e.Name())
	return nil
}

// dueLocked has the flusher write name's memory version; caller holds mu.
func (j *Journal) dueLocked(name string) {
	j.due[name] = struct{}{}
	if !j.flushing {
		j.flushing = true
		j.flushed.Add(1)
		go j.flush()
	}
}

// soonDelay is how long UpdateSoon's changes wait for company before the
// flusher writes them, so a busy journal writes many in one commit; it is
// also the most a crash can lose of them.
const soonDelay = 250 * time.Millisecond

// flush writes what Update and UpdateSoon staged until nothing is left,
// sharing commits with the other writers; a failed write is tried again.
// It also keeps the log short: past rotateBytes it starts a new segment,
// and removes the old one after its next write, which holds every entry
// the old segment logged (each was due before it was logged). A failure
// to trim only leaves the log longer: Open replays what the tree has.
func (j *Journal) flush() {
	defer j.flushed.Done()
	for {
		if !j.closing.Load() {
			time.Sleep(soonDelay)
		}
		mark := j.log.Mark()
		j.mu.Lock()
		names := make([]string, 0, len(j.due))
		for n := range j.due {
			names = append(names, n)
		}
		clear(j.due)
		if len(names) == 0 {
			j.flushing = false
			j.mu.Unlock()
			return
		}
		j.mu.Unlock()
		if err := j.persist(names); err != nil {
			j.mu.Lock()
			for _, n := range names {
				j.due[n] = struct{}{}
			}
			j.mu.Unlock()
			time.Sleep(50 * time.Millisecond)
			continue
		}
		_ = j.log.Covered(mark, j.rotateAt)
	}
}

// persist writes the memory versions of names to disk and drops those no
// newer version replaced meanwhile.
func (j *Journal) persist(names []string) error {
	written := make([]*memEntry, len(names))
	err := j.write(func(tx *bbolt.Tx) (error, error) {
		j.mu.Lock()
		for i, n := range names {
			written[i] = nil
			if m := j.mem[n]; m != nil && m.dirty {
				written[i] = m
			}
		}
		seq := j.seq
		j.mu.Unlock()
		for _, m := range written {
			if m != nil {
				if err := put(tx, m.e, m.seq); err != nil {
					return nil, err
				}
			}
		}
		return nil, putSeq(tx, seq)
	})
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for i, n := range names {
		m := written[i]
		if m == nil || j.mem[n] != m {
			continue // a newer version is staged: its own write follows
		}
		if m.e.State.Finished() {
			j.forget(n, m.e)
		} else {
			m.dirty, m.onDisk = false, true
		}
	}
	return nil
}

// forget drops name's memory version; caller holds mu.
func (j *Journal) forget(name string, e *settle.Entry) {
	delete(j.mem, name)
	if e.PaymentID != "" {
		if id := settle.IDName(e.Payer, e.PaymentID); j.ids[id] == name {
			delete(j.ids, id)
		}
	}
}

// Delete removes the entry of k and its payment id if it is in state from.
func (j *Journal) Delete(ctx context.Context, k x402.Key, from settle.State) error {
	name := settle.KeyName(k)
	j.mu.Lock()
	cur, err := j.current(name)
	switch {
	case errors.Is(err, settle.ErrNotFound):
		j.mu.Unlock()
		return nil
	case err != nil:
		j.mu.Unlock()
		return err
	case cur.State != from:
		j.mu.Unlock()
		return settle.ErrStateChanged
	}
	m, inMem := j.mem[name]
	if inMem {
		j.forget(name, m.e)
	}
	j.seq++
	seq := j.seq
	j.mu.Unlock()
	if inMem && !m.onDisk && !m.dirty {
		return nil // only ever in memory (a dirty one may be being written: delete it on disk too)
	}
	return j.write(func(tx *bbolt.Tx) (error, error) {
		// The sequence stays: a logged version older than the deletion
		// must not bring the entry back on replay.
		if err := tx.Bucket(bucketRevs).Put([]byte(name), binary.BigEndian.AppendUint64(nil, seq)); err != nil {
			return nil, err
		}
		if err := putSeq(tx, seq); err != nil {
			return nil, err
		}
		if cur.PaymentID != "" {
			ids := tx.Bucket(bucketIDs)
			id := []byte(settle.IDName(cur.Payer, cur.PaymentID))
			if string(ids.Get(id)) == name {
				if err := ids.Delete(id); err != nil {
					return nil, err
				}
			}
		}
		if err := tx.Bucket(bucketOpen).Delete([]byte(name)); err != nil {
			return nil, err
		}
		return nil, tx.Bucket(bucketEntries).Delete([]byte(name))
	})
}

// Unfinished lists the unfinished entries, in memory and on disk.
func (j *Journal) Unfinished(ctx context.Context) ([]*settle.Entry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []*settle.Entry
	for _, m := range j.mem {
		if !m.e.State.Finished() {
			out = append(out, m.e.Clone())
		}
	}
	err := j.db.View(func(tx *bbolt.Tx) error {
		entries := tx.Bucket(bucketEntries)
		return tx.Bucket(bucketOpen).ForEach(func(name, _ []byte) error {
			if _, ok := j.mem[string(name)]; ok {
				return nil // its newer version is listed (or finished)
			}
			b := entries.Get(name)
			if b == nil {
				return nil
			}
			e, err := decode(b)
			if err != nil {
				return err
			}
			out = append(out, e)
			return nil
		})
	})
	return out, err
}

// putSeq records seq as handed out, unless a later one is recorded: Open
// starts counting after it.
func putSeq(tx *bbolt.Tx, seq uint64) error {
	meta := tx.Bucket(bucketMeta)
	if v := meta.Get(keySeq); len(v) == 8 && binary.BigEndian.Uint64(v) >= seq {
		return nil
	}
	return meta.Put(keySeq, binary.BigEndian.AppendUint64(nil, seq))
}

// Entries calls fn with every entry: the versions in memory, then those
// on disk that memory holds no newer version of, read outside the
// journal's lock (the books count the confirmed ones a crash kept out of
// them, on start, while calls are served).
func (j *Journal) Entries(ctx context.Context, fn func(*settle.Entry) error) error {
	j.mu.Lock()
	mem := make([]*settle.Entry, 0, len(j.mem))
	seen := make(map[string]struct{}, len(j.mem))
	for name, m := range j.mem {
		mem = append(mem, m.e.Clone())
		seen[name] = struct{}{}
	}
	j.mu.Unlock()
	for _, e := range mem {
		if err := fn(e); err != nil {
			return err
		}
	}
	return j.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketEntries).ForEach(func(name, b []byte) error {
			if _, ok := seen[string(name)]; ok {
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			e, err := decode(b)
			if err != nil {
				return err
			}
			return fn(e)
		})
	})
}
