package wal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

func replayAll(t *testing.T, dir string) [][]byte {
	t.Helper()
	l, err := Open(dir, "log")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var out [][]byte
	if err := l.Replay(func(rec []byte) error {
		out = append(out, bytes.Clone(rec))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAppendedRecordsAreReplayedInOrder(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, "log")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := l.Append(fmt.Appendf(nil, "record %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Append(nil); err != nil { // an empty record is a record
		t.Fatal(err)
	}
	// No Close: a killed process closes nothing.
	got := replayAll(t, dir)
	if len(got) != 101 {
		t.Fatalf("replayed %d records, want 101", len(got))
	}
	for i := range 100 {
		if want := fmt.Sprintf("record %d", i); string(got[i]) != want {
			t.Fatalf("record %d = %q, want %q", i, got[i], want)
		}
	}
	if len(got[100]) != 0 {
		t.Fatalf("the empty record came back as %q", got[100])
	}
}

// Concurrent appends share writes and each returns only once its own
// record is on disk: every acknowledged record is replayed.
func TestConcurrentAppendsAllLand(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, "log")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if err := l.Append(fmt.Appendf(nil, "%d/%d", g, i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	l.mu.Lock()
	batches := l.done
	l.mu.Unlock()
	got := replayAll(t, dir)
	seen := map[string]bool{}
	for _, r := range got {
		seen[string(r)] = true
	}
	if len(got) != 400 || len(seen) != 400 {
		t.Fatalf("replayed %d records (%d distinct), want 400", len(got), len(seen))
	}
	t.Logf("400 appends in %d writes", batches)
}

// A write cut short by a crash leaves a torn record at the end: Replay
// returns everything before it, and the log appends after it in a new segment.
func TestATornTailEndsTheSegment(t *testing.T) {
	for _, cut := range []int{1, 5, 9, 12} {
		dir := t.TempDir()
		l, _ := Open(dir, "log")
		_ = l.Append([]byte("first"))
		_ = l.Append([]byte("second record"))
		seg := l.seg
		l.Close()
		p := l.path(seg)
		st, _ := os.Stat(p)
		if err := os.Truncate(p, st.Size()-int64(cut)); err != nil {
			t.Fatal(err)
		}
		got := replayAll(t, dir)
		if len(got) != 1 || string(got[0]) != "first" {
			t.Fatalf("cut %d: replayed %q, want [first]", cut, got)
		}
	}
	// A flipped byte fails the checksum: the record and what follows are not returned.
	dir := t.TempDir()
	l, _ := Open(dir, "log")
	_ = l.Append([]byte("good"))
	_ = l.Append([]byte("flipped"))
	l.Close()
	b, _ := os.ReadFile(l.path(1))
	b[len(b)-1] ^= 1
	_ = os.WriteFile(l.path(1), b, 0o600)
	if got := replayAll(t, dir); len(got) != 1 || string(got[0]) != "good" {
		t.Fatalf("replayed %q, want [good]", got)
	}
}

// Rotate starts a new segment; Remove drops the closed ones and never the
// current one; a reopened log replays what is left, oldest first.
func TestRotateAndRemove(t *testing.T) {
	dir := t.TempDir()
	l, _ := Open(dir, "log")
	_ = l.Append([]byte("a"))
	first, err := l.Rotate()
	if err != nil {
		t.Fatal(err)
	}
	_ = l.Append([]byte("b"))
	if l.Size() != 9 {
		t.Fatalf("Size = %d after one record of 1 byte in the new segment, want 9", l.Size())
	}
	second, _ := l.Rotate()
	_ = l.Append([]byte("c"))
	if err := l.Remove(first); err != nil {
		t.Fatal(err)
	}
	if err := l.Remove(1 << 40); err != nil { // past the current segment: it stays
		t.Fatal(err)
	}
	l.Close()
	if got := replayAll(t, dir); len(got) != 1 || string(got[0]) != "c" {
		t.Fatalf("after removing up to %d and %d: replayed %q, want [c]", first, second, got)
	}
}

func TestAfterAFailedWriteEveryAppendFails(t *testing.T) {
	dir := t.TempDir()
	l, _ := Open(dir, "log")
	l.f.Close() // the next write fails
	if err := l.Append([]byte("x")); err != ErrFailed {
		t.Fatalf("Append on a broken file = %v, want ErrFailed", err)
	}
	if err := l.Append([]byte("y")); err != ErrFailed {
		t.Fatalf("the next Append = %v, want ErrFailed", err)
	}
}

// Covered removes the segments before the mark and rotates a long one, so
// the segment a mark names goes only with a later Covered.
func TestCoveredRemovesWhatCameBeforeTheMark(t *testing.T) {
	dir := t.TempDir()
	l, _ := Open(dir, "log")
	_ = l.Append([]byte("a"))
	mark := l.Mark()
	if err := l.Covered(mark, 1<<20); err != nil { // short: no rotation
		t.Fatal(err)
	}
	if l.Mark() != mark {
		t.Fatal("a short segment was rotated")
	}
	_ = l.Append([]byte("b"))
	if err := l.Covered(mark, 1); err != nil { // long: rotated, the marked segment stays
		t.Fatal(err)
	}
	next := l.Mark()
	if next != mark+1 {
		t.Fatalf("Mark after rotation = %d, want %d", next, mark+1)
	}
	if _, err := os.Stat(l.path(mark)); err != nil {
		t.Fatalf("the marked segment went before a write after the rotation: %v", err)
	}
	_ = l.Append([]byte("c"))
	if err := l.Covered(next, 1<<20); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.path(mark)); !os.IsNotExist(err) {
		t.Fatalf("the segment before the mark is still there: %v", err)
	}
	l.Close()
	if got := replayAll(t, dir); len(got) != 1 || string(got[0]) != "c" {
		t.Fatalf("replayed %q, want [c]", got)
	}
}

// A torn tail is the end of the log only in the last segment holding a
// byte (empty segments after it are those of a process that died while
// opening the log); in an earlier segment, synced and closed before the
// next began, a record that does not check out is corruption: Replay
// fails rather than skip the acknowledged records after it.
func TestABadRecordBeforeTheLastSegmentIsCorruption(t *testing.T) {
	dir := t.TempDir()
	l, _ := Open(dir, "log")
	_ = l.Append([]byte("first"))
	_ = l.Append([]byte("second"))
	if _, err := l.Rotate(); err != nil {
		t.Fatal(err)
	}
	_ = l.Append([]byte("third"))
	l.Close()
	b, _ := os.ReadFile(l.path(1))
	b[9] ^= 1 // inside "first"
	_ = os.WriteFile(l.path(1), b, 0o600)
	l2, err := Open(dir, "log")
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	var got []string
	err = l2.Replay(func(rec []byte) error { got = append(got, string(rec)); return nil })
	if err == nil {
		t.Fatalf("Replay over a corrupt first segment returned %q and no error", got)
	}

	// The same damage in the last segment with bytes, followed only by the
	// empty segments of opens that died: a torn tail.
	dir = t.TempDir()
	l, _ = Open(dir, "log")
	_ = l.Append([]byte("kept"))
	_ = l.Append([]byte("torn"))
	l.Close()
	st, _ := os.Stat(l.path(1))
	_ = os.Truncate(l.path(1), st.Size()-2)
	for range 2 { // two opens that died before replaying: two empty segments
		dead, err := Open(dir, "log")
		if err != nil {
			t.Fatal(err)
		}
		dead.Close()
	}
	if got := replayAll(t, dir); len(got) != 1 || string(got[0]) != "kept" {
		t.Fatalf("replayed %q, want [kept]", got)
	}
}

// One byte flipped in the middle of the last segment, with records after
// it, is not a torn tail: Replay refuses, naming the file and the offset,
// and calls fn with nothing; Check reports it; Repair drops those bytes
// only, keeps the original beside the segment, and the log replays again.
func TestACorruptRecordMidLogIsRefusedReportedAndRepaired(t *testing.T) {
	dir := t.TempDir()
	l, _ := Open(dir, "log")
	for _, r := range []string{"first record, long enough to hold offset 40", "second", "third"} {
		if err := l.Append([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	seg := l.path(1)
	b, _ := os.ReadFile(seg)
	b[40] ^= 1
	_ = os.WriteFile(seg, b, 0o600)
	firstEnd := int64(8 + len("first record, long enough to hold offset 40"))

	l2, err := Open(dir, "log")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = l2.Replay(func(rec []byte) error { got = append(got, string(rec)); return nil })
	l2.Close()
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Path != seg || ce.Span != (Span{0, firstEnd}) || ce.After != 2 || len(got) != 0 {
		t.Fatalf("Replay = %v (records %q), want a CorruptError at %s offset 0", err, got, seg)
	}
	if !strings.Contains(err.Error(), seg) || !strings.Contains(err.Error(), "offset 0") {
		t.Errorf("the error does not name the file and offset: %v", err)
	}

	segs, err := Check(dir, "log")
	if err != nil || len(segs) != 2 || len(segs[0].Corrupt) != 1 || segs[0].Records != 2 || !segs[1].OK() {
		t.Fatalf("Check = %+v, %v", segs, err)
	}
	if _, err := Repair(dir, "log"); err != nil {
		t.Fatal(err)
	}
	if orig, _ := os.ReadFile(seg + ".corrupt"); !bytes.Equal(orig, b) {
		t.Error("the original segment is not kept beside it")
	}
	if segs, _ := Check(dir, "log"); !segs[0].OK() || segs[0].Records != 2 {
		t.Errorf("after Repair, Check = %+v", segs)
	}
	if got := replayAll(t, dir); len(got) != 2 || string(got[0]) != "second" || string(got[1]) != "third" {
		t.Fatalf("after Repair, replayed %q, want [second third]", got)
	}
	if logs, _ := Logs(dir); len(logs) != 1 || logs[0] != "log" {
		t.Errorf("Logs = %q, want [log]", logs)
	}
}

// A torn tail (the last write cut short, nothing after it) is still the
// log's end: Check calls it torn, not corrupt, and Replay drops it.
func TestATornTailIsTrimmedNotCorrupt(t *testing.T) {
	dir := t.TempDir()
	l, _ := Open(dir, "log")
	_ = l.Append([]byte("kept"))
	_ = l.Append([]byte("cut short by a crash"))
	l.Close()
	st, _ := os.Stat(l.path(1))
	_ = os.Truncate(l.path(1), st.Size()-5)
	segs, err := Check(dir, "log")
	if err != nil || segs[0].Torn == nil || len(segs[0].Corrupt) != 0 || segs[0].Records != 1 {
		t.Fatalf("Check = %+v, %v", segs, err)
	}
	if got := replayAll(t, dir); len(got) != 1 || string(got[0]) != "kept" {
		t.Fatalf("replayed %q, want [kept]", got)
	}
}
