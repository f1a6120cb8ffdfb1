package bolt

import (
	"github.com/farebox/farebox/x402/channel/service"

	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/farebox/farebox/internal/wal"
)

// A logged Channels makes a channel write durable in a write-ahead log
// (internal/wal: one write and one fdatasync, shared by concurrent writes)
// and writes the bbolt file later, every pending write in one commit. A
// voucher's state write is on every paid request's path, and a bbolt commit
// costs two fdatasyncs and rewrites pages. Each write has a sequence, kept
// per channel in the file (bucket channel_revs): replaying the log on open
// skips what the file holds newer, deletions included.

var (
	bucketChannelRevs = []byte("channel_revs")
	bucketChannelMeta = []byte("channel_meta")
	keyChannelSeq     = []byte("seq")
)

// Timing of the flusher (as the settlement journal's): how long a write
// waits for company before the file gets it, and the log segment size past
// which a new segment starts.
const (
	flushDelay      = 200 * time.Millisecond
	logRotateAt     = 8 << 20
	flushRetryAfter = 50 * time.Millisecond
)

// pendingWrite is a channel's newest version that the file may not hold
// yet: its record's JSON, or a deletion.
type pendingWrite struct {
	seq     uint64
	rev     uint64 // the record's revision; 0 deleted
	value   []byte
	deleted bool
}

// channelLog is a Channels's write-ahead log and what it holds that the
// file may not.
type channelLog struct {
	log *wal.Log

	mu       sync.Mutex
	seq      uint64
	pending  map[[32]byte]*pendingWrite
	flushing bool
	flushed  sync.WaitGroup
	closing  atomic.Bool
}

// channelLogRecord frames a write: sequence (8 bytes), channel id (32), 1 for a
// deletion else 0, then the record's JSON.
func channelLogRecord(id [32]byte, w *pendingWrite) []byte {
	b := make([]byte, 0, 41+len(w.value))
	b = binary.BigEndian.AppendUint64(b, w.seq)
	b = append(b, id[:]...)
	if w.deleted {
		return append(b, 1)
	}
	return append(append(b, 0), w.value...)
}

// openLog opens the store's log in dir and replays it into the file.
func (s *Channels) openLog(dir, name string) error {
	err := s.db.Update(func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{bucketChannelRevs, bucketChannelMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	l, err := wal.Open(dir, name)
	if err != nil {
		return err
	}
	cl := &channelLog{log: l, pending: map[[32]byte]*pendingWrite{}}
	if err := s.replay(cl); err != nil {
		_ = l.Close()
		return err
	}
	s.logged = cl
	return nil
}

// replay writes the log's records into the file, each unless the file holds
// that channel at a later sequence, in one commit; the replayed segments go.
func (s *Channels) replay(cl *channelLog) error {
	type rec struct {
		id [32]byte
		w  pendingWrite
	}
	var recs []rec
	err := cl.log.Replay(func(b []byte) error {
		if len(b) < 41 || b[40] > 1 {
			return errors.New("channel store: unreadable log record")
		}
		r := rec{w: pendingWrite{seq: binary.BigEndian.Uint64(b), deleted: b[40] == 1}}
		copy(r.id[:], b[8:40])
		if !r.w.deleted {
			r.w.value = append([]byte(nil), b[41:]...)
		}
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		return err
	}
	err = s.db.Update(func(tx *bbolt.Tx) error {
		if v := tx.Bucket(bucketChannelMeta).Get(keyChannelSeq); len(v) == 8 {
			cl.seq = binary.BigEndian.Uint64(v)
		}
		for _, r := range recs {
			cl.seq = max(cl.seq, r.w.seq)
			if v := tx.Bucket(bucketChannelRevs).Get(r.id[:]); len(v) == 8 && binary.BigEndian.Uint64(v) >= r.w.seq {
				continue
			}
			if err := writeChannel(tx, r.id, &r.w); err != nil {
				return err
			}
		}
		return putChannelSeq(tx, cl.seq)
	})
	if err != nil {
		return fmt.Errorf("channel store: replaying its log: %w", err)
	}
	return cl.log.Remove(^uint64(0))
}

// writeChannel writes w to the file with its sequence.
func writeChannel(tx *bbolt.Tx, id [32]byte, w *pendingWrite) error {
	var err error
	if w.deleted {
		err = tx.Bucket(bucketChannels).Delete(id[:])
	} else {
		err = tx.Bucket(bucketChannels).Put(id[:], w.value)
	}
	if err != nil {
		return err
	}
	return tx.Bucket(bucketChannelRevs).Put(id[:], binary.BigEndian.AppendUint64(nil, w.seq))
}

func putChannelSeq(tx *bbolt.Tx, seq uint64) error {
	meta := tx.Bucket(bucketChannelMeta)
	if v := meta.Get(keyChannelSeq); len(v) == 8 && binary.BigEndian.Uint64(v) >= seq {
		return nil
	}
	return meta.Put(keyChannelSeq, binary.BigEndian.AppendUint64(nil, seq))
}

// write stages a channel's next version if the current revision is still
// prev, then logs it: durable when it returns nil.
func (s *Channels) write(id [32]byte, prev uint64, value []byte) error {
	cl := s.logged
	cl.mu.Lock()
	cur, err := s.currentRev(id)
	if err != nil {
		cl.mu.Unlock()
		return err
	}
	if cur != prev {
		cl.mu.Unlock()
		return service.ErrConflict
	}
	cl.seq++
	w := &pendingWrite{seq: cl.seq, value: value, deleted: value == nil}
	if !w.deleted {
		w.rev = prev + 1
	}
	// Pending before logged: a flush that begins after the segment holding
	// this record was rotated out writes it (wal.Log.Covered).
	cl.pending[id] = w
	if !cl.flushing {
		cl.flushing = true
		cl.flushed.Add(1)
		go s.flush()
	}
	cl.mu.Unlock()
	return cl.log.Append(channelLogRecord(id, w))
}

// currentRev is the channel's revision, pending or in the file; caller
// holds the log's mu.
func (s *Channels) currentRev(id [32]byte) (uint64, error) {
	if w, ok := s.logged.pending[id]; ok {
		return w.rev, nil
	}
	var rev uint64
	err := s.db.View(func(tx *bbolt.Tx) error {
		var err error
		rev, err = storedRev(tx.Bucket(bucketChannels), id[:])
		return err
	})
	return rev, err
}

// pendingRecord is the channel's version the file may not hold yet: found
// reports one, rec nil for a deletion.
func (s *Channels) pendingRecord(id [32]byte) (rec *service.Record, found bool, err error) {
	cl := s.logged
	cl.mu.Lock()
	w, ok := cl.pending[id]
	cl.mu.Unlock()
	if !ok || w.deleted {
		return nil, ok, nil
	}
	rec, err = service.DecodeRecord(w.value)
	return rec, true, err
}

// flush writes the pending versions to the file until none is left, then
// trims the log.
func (s *Channels) flush() {
	cl := s.logged
	defer cl.flushed.Done()
	for {
		if !cl.closing.Load() {
			time.Sleep(flushDelay)
		}
		mark := cl.log.Mark()
		cl.mu.Lock()
		batch := make(map[[32]byte]*pendingWrite, len(cl.pending))
		for id, w := range cl.pending {
			batch[id] = w
		}
		seq := cl.seq
		if len(batch) == 0 {
			cl.flushing = false
			cl.mu.Unlock()
			return
		}
		cl.mu.Unlock()
		err := s.update(func(tx *bbolt.Tx) (error, error) {
			for id, w := range batch {
				if err := writeChannel(tx, id, w); err != nil {
					return nil, err
				}
			}
			return nil, putChannelSeq(tx, seq)
		})
		if err != nil {
			time.Sleep(flushRetryAfter)
			continue
		}
		cl.mu.Lock()
		for id, w := range batch {
			if cl.pending[id] == w {
				delete(cl.pending, id)
			}
		}
		cl.mu.Unlock()
		_ = cl.log.Covered(mark, logRotateAt) // a failure leaves the log longer; open replays it
	}
}

// close writes what is pending to the file and closes the log.
func (cl *channelLog) close() error {
	cl.closing.Store(true)
	cl.flushed.Wait()
	return cl.log.Close()
}
