package bolt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/internal/wal"
	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/settle/journaltest"
)

var logPayer = common.HexToAddress("0x00000000000000000000000000000000000000d0")

// settling creates e in j and moves it to Settling (the logged step).
func settling(t *testing.T, j *Journal, e *settle.Entry) *settle.Entry {
	t.Helper()
	ctx := context.Background()
	if _, err := j.Create(ctx, e); err != nil {
		t.Fatal(err)
	}
	next := e.Clone()
	next.State, next.Tx = settle.Settling, common.Hash{7}
	if err := j.Update(ctx, next, settle.Reserved); err != nil {
		t.Fatal(err)
	}
	return next
}

// appendLog adds records to dir's log as a process that died before its
// flush would have left them.
func appendLog(t *testing.T, dir string, recs map[uint64]*settle.Entry, order []uint64) {
	t.Helper()
	l, err := wal.Open(dir, LogName)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, seq := range order {
		rec, err := logRecord(seq, recs[seq])
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
}

// Open replays the log into the tree: a record newer than the tree's
// version of its entry wins, an older one is skipped, an entry only the log
// holds appears; the sequence goes on after the highest one seen; the log's
// segments are gone once replayed.
func TestReplayAppliesNewerRecordsOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	j, err := OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := settling(t, j, journaltest.NewEntry(logPayer))
	treeSeq := j.seq
	if err := j.Close(); err != nil { // flushes a to the tree
		t.Fatal(err)
	}
	broadcast, older := a.Clone(), a.Clone()
	broadcast.State = settle.Broadcast
	older.State, older.Tx = settle.Reserved, common.Hash{}
	b := journaltest.NewEntry(logPayer)
	b.State, b.Tx = settle.Settling, common.Hash{9}
	appendLog(t, dir, map[uint64]*settle.Entry{treeSeq + 5: broadcast, 1: older, treeSeq + 100: b},
		[]uint64{treeSeq + 5, 1, treeSeq + 100})

	j, err = OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if got, err := j.Get(ctx, a.Key()); err != nil || got.State != settle.Broadcast {
		t.Fatalf("a after replay = %+v, %v; want the newer Broadcast record, not the older Reserved one", got, err)
	}
	if got, err := j.Get(ctx, b.Key()); err != nil || got.State != settle.Settling || got.Tx != b.Tx {
		t.Fatalf("b, only in the log, after replay = %+v, %v", got, err)
	}
	if j.seq < treeSeq+100 {
		t.Fatalf("sequence after replay = %d, want at least %d", j.seq, treeSeq+100)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, LogName+".*"))
	if len(segs) != 1 {
		t.Fatalf("log segments after replay: %v, want only the new one", segs)
	}
	if st, err := os.Stat(segs[0]); err != nil || st.Size() != 0 {
		t.Fatalf("the new segment: %v, %v; want empty", st, err)
	}
}

// A deleted entry stays deleted though its logged version is replayed.
func TestReplayDoesNotBringBackADeletedEntry(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	j, err := OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := settling(t, j, journaltest.NewEntry(logPayer))
	logged := j.seq
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if j, err = OpenJournal(dir, 0); err != nil {
		t.Fatal(err)
	}
	if err := j.Delete(ctx, c.Key(), settle.Settling); err != nil {
		t.Fatal(err)
	}
	j.Close()
	appendLog(t, dir, map[uint64]*settle.Entry{logged: c}, []uint64{logged})
	if j, err = OpenJournal(dir, 0); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if got, err := j.Get(ctx, c.Key()); !errors.Is(err, settle.ErrNotFound) {
		t.Fatalf("deleted entry after replaying its older version = %+v, %v; want ErrNotFound", got, err)
	}
}

// Update is durable through the log alone: a journal whose tree never got
// the entry (the process died before its flush) has it after Open.
func TestUpdateIsDurableBeforeTheFlush(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	j, err := OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	j.mu.Lock()
	j.flushing = true // no flusher starts: the tree is never written
	j.mu.Unlock()
	e := settling(t, j, journaltest.NewEntry(logPayer))
	if err := j.log.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.db.Close(); err != nil { // a crash: nothing flushed, nothing closed in order
		t.Fatal(err)
	}
	j2, err := OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if got, err := j2.Get(ctx, e.Key()); err != nil || got.State != settle.Settling || got.Tx != e.Tx {
		t.Fatalf("entry after a crash before the flush = %+v, %v", got, err)
	}
	if open, err := j2.Unfinished(ctx); err != nil || len(open) != 1 {
		t.Fatalf("Unfinished = %d, %v; want the replayed entry", len(open), err)
	}
}

// The flusher rotates a long log and removes a rotated segment only after
// a write that began after the rotation: what is left still replays
// everything the tree might lack.
func TestTheLogIsTrimmedAfterTheTreeHoldsIt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	j, err := OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	j.mu.Lock()
	j.flushing = true // this test flushes by hand, as flush does
	j.mu.Unlock()
	exists := func(seg int) bool {
		_, err := os.Stat(filepath.Join(dir, LogName+"."+string(rune('0'+seg))))
		return err == nil
	}
	flush := func(e *settle.Entry) {
		t.Helper()
		mark := j.log.Mark()
		if err := j.persist([]string{e.Name()}); err != nil {
			t.Fatal(err)
		}
		if err := j.log.Covered(mark, 1); err != nil {
			t.Fatal(err)
		}
	}
	first := j.log.Size()
	e1 := settling(t, j, journaltest.NewEntry(logPayer))
	if j.log.Size() <= first {
		t.Fatal("Update logged nothing")
	}
	flush(e1) // rotates: segment 1 goes after the next write
	if !exists(1) || !exists(2) {
		t.Fatalf("after the first rotation: segment 1 %v, 2 %v", exists(1), exists(2))
	}
	e2 := settling(t, j, journaltest.NewEntry(logPayer))
	flush(e2)
	if exists(1) || !exists(2) || !exists(3) {
		t.Fatalf("after the second write: segment 1 %v (want gone), 2 %v, 3 %v", exists(1), exists(2), exists(3))
	}
	e3 := settling(t, j, journaltest.NewEntry(logPayer)) // logged, never written to the tree
	j.log.Close()
	j.db.Close()
	if j, err = OpenJournal(dir, 0); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, e := range []*settle.Entry{e1, e2, e3} {
		if got, err := j.Get(ctx, e.Key()); err != nil || got.State != settle.Settling {
			t.Fatalf("entry after the crash = %+v, %v", got, err)
		}
	}
}
