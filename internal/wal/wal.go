// Package wal is an append-only write-ahead log in numbered segment files:
// a record is on disk when Append returns, and callers that append while a
// write is under way share the next write and its fdatasync (group commit).
//
// It exists because a bbolt commit costs two fdatasyncs (the pages, then
// the meta page) and rewrites B+tree pages: a store that must make one small
// change durable before it answers (the settlement journal's write-ahead
// step) logs it here with one write and one fdatasync, and writes its B+tree
// later, many changes in one commit. Such a store replays the log when it
// opens (records of segments it already holds may come again: it keeps a
// sequence per key to skip those) and removes the segments its B+tree
// covers (Rotate, then Remove).
//
// A record is framed as its length and CRC-32C, both little-endian uint32,
// then its bytes. A process killed during a write leaves at most a torn
// last record in the last segment: Replay stops there; bytes that make no
// record anywhere else (valid records after them) are corruption, and
// Replay says so (Check reports, Repair drops them). After a
// failed write or fdatasync the log refuses every later Append (what
// reached the disk is unknown, and a retried fsync may report success for
// lost pages): the process must restart and replay.
package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// MaxRecord bounds a record, so a corrupt length cannot make Replay
// allocate without limit.
const MaxRecord = 16 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrFailed is returned by every Append after a write or sync failed.
var ErrFailed = errors.New("wal: an earlier write failed; restart to replay the log")

// Log is an open write-ahead log. It is safe for concurrent use.
type Log struct {
	dir, name string

	mu      sync.Mutex
	cond    sync.Cond
	f       *os.File
	seg     uint64 // the segment f is
	size    int64  // bytes in f, written or queued
	buf     []byte // records queued for the next write
	open    uint64 // the batch buf fills
	done    uint64 // the last batch on disk
	syncing bool   // a caller is writing and syncing a batch
	failed  error
	closed  bool
}

// Open opens the log name in dir (segments dir/name.<n>), creating dir when
// missing. Appends go to a new segment after the existing ones: Replay reads
// those first.
func Open(dir, name string) (*Log, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	l := &Log{dir: dir, name: name, open: 1}
	l.cond.L = &l.mu
	segs, err := l.segments()
	if err != nil {
		return nil, err
	}
	next := uint64(1)
	if len(segs) > 0 {
		next = segs[len(segs)-1] + 1
	}
	if err := l.startSegment(next); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) path(seg uint64) string {
	return filepath.Join(l.dir, l.name+"."+strconv.FormatUint(seg, 10))
}

// segments lists the segment numbers on disk, oldest first.
func (l *Log) segments() ([]uint64, error) {
	ents, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	var out []uint64
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), l.name+".")
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(rest, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// startSegment creates segment seg and makes it the one appended to; the
// directory is synced so the file itself survives a power loss.
func (l *Log) startSegment(seg uint64) error {
	f, err := os.OpenFile(l.path(seg), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	if err := syncDir(l.dir); err != nil {
		_ = f.Close()
		return err
	}
	l.f, l.seg, l.size = f, seg, 0
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("wal: syncing %s: %w", dir, err)
	}
	return nil
}

// Replay calls fn with every record of the segments that existed before
// Open, oldest first, in the order they were appended. Bytes that make no
// record at the end of the last segment holding any byte end the replay:
// a crash cut that write short, so it was never acknowledged (segments
// after it can only be empty ones that a process opening the log started
// before it too died). Bytes that make no record anywhere else (records
// after them, or an earlier segment, which was synced and closed before
// the next began) are corruption: Replay returns a *CorruptError before
// calling fn at all, rather than skip acknowledged records. fn's error
// stops Replay.
func (l *Log) Replay(fn func(rec []byte) error) error {
	nums, err := l.segments()
	if err != nil {
		return err
	}
	cur := l.currentSegment()
	var paths []string
	for _, s := range nums {
		if s < cur {
			paths = append(paths, l.path(s))
		}
	}
	segs, files, err := examine(paths)
	if err != nil {
		return err
	}
	if err := corruption(segs); err != nil {
		return err
	}
	for i, s := range segs {
		for _, r := range s.recs {
			if err := fn(files[i][r.Offset:r.End]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *Log) currentSegment() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seg
}

// Append writes rec and returns once it is on disk (written and
// fdatasynced), or the error that kept it from the disk.
func (l *Log) Append(rec []byte) error {
	if len(rec) > MaxRecord {
		return fmt.Errorf("wal: a record of %d bytes (at most %d)", len(rec), MaxRecord)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errors.New("wal: closed")
	}
	if l.failed != nil {
		return ErrFailed
	}
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(len(rec)))
	binary.LittleEndian.PutUint32(hdr[4:], crc32.Checksum(rec, castagnoli))
	l.buf = append(append(l.buf, hdr[:]...), rec...)
	l.size += int64(len(hdr) + len(rec))
	my := l.open
	for l.done < my && l.failed == nil && !l.closed {
		if l.syncing {
			l.cond.Wait()
			continue
		}
		l.flush()
	}
	switch {
	case l.done >= my:
		return nil
	case l.failed != nil:
		return ErrFailed
	default:
		return errors.New("wal: closed before the record was written")
	}
}

// flush writes and syncs the queued batch; caller holds mu, which is
// released during the I/O so that others queue the next batch meanwhile.
func (l *Log) flush() {
	batch, buf, f := l.open, l.buf, l.f
	l.open++
	l.buf = nil
	l.syncing = true
	l.mu.Unlock()
	_, err := f.Write(buf)
	if err == nil {
		err = fdatasync(f)
	}
	l.mu.Lock()
	l.syncing = false
	if err != nil {
		l.failed = fmt.Errorf("wal: %w", err)
	} else {
		l.done = batch
	}
	l.cond.Broadcast()
}

// Size is the current segment's size, queued records included.
func (l *Log) Size() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.size
}

// Rotate closes the current segment once what was appended to it is on
// disk and starts the next: it returns the closed segment's number, for
// Remove once the caller's own store holds everything appended before.
func (l *Log) Rotate() (uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.syncing {
		l.cond.Wait()
	}
	if l.failed != nil {
		return 0, ErrFailed
	}
	if l.closed {
		return 0, errors.New("wal: closed")
	}
	// Records still queued are not yet written: they go to the next
	// segment with the next batch.
	old, oldSeg, queued := l.f, l.seg, int64(len(l.buf))
	if err := l.startSegment(oldSeg + 1); err != nil {
		return 0, err
	}
	l.size = queued
	if err := old.Close(); err != nil {
		return 0, fmt.Errorf("wal: %w", err)
	}
	return oldSeg, nil
}

// Mark is the segment being appended to. A store that writes its own
// copy of what it logged takes a mark before it collects what to write,
// and passes it to Covered once that write is durable: every record in an
// earlier segment was logged before the mark, so (when the store marks a
// change due before logging it) the write held it.
func (l *Log) Mark() uint64 { return l.currentSegment() }

// Covered removes the segments before mark, which the caller's store now
// holds, and starts a new segment when the current one passed rotateAt
// bytes, so that the next Covered can remove it.
func (l *Log) Covered(mark uint64, rotateAt int64) error {
	if mark > 1 {
		if err := l.Remove(mark - 1); err != nil {
			return err
		}
	}
	if l.Size() > rotateAt {
		_, err := l.Rotate()
		return err
	}
	return nil
}

// Remove deletes the segments numbered up to upTo (never the current one).
func (l *Log) Remove(upTo uint64) error {
	segs, err := l.segments()
	if err != nil {
		return err
	}
	cur := l.currentSegment()
	for _, s := range segs {
		if s > upTo || s >= cur {
			break
		}
		if err := os.Remove(l.path(s)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("wal: %w", err)
		}
	}
	return nil
}

// Close waits for a write under way and closes the current segment;
// records still queued were not acknowledged and are dropped.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.syncing {
		l.cond.Wait()
	}
	if l.closed {
		return nil
	}
	l.closed = true
	l.cond.Broadcast()
	return l.f.Close()
}

var _ io.Closer = (*Log)(nil)
