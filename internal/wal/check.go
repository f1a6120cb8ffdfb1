package wal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
)

// Span is a byte range [Offset, End) of a segment file.
type Span struct{ Offset, End int64 }

// Len is the span's size in bytes.
func (s Span) Len() int64 { return s.End - s.Offset }

// Segment is what one segment file holds, as Check reads it.
type Segment struct {
	// Path is the segment file.
	Path string
	// Size is its size in bytes.
	Size int64
	// Records is how many records in it check out.
	Records int
	// Torn is the bytes after its last record that make no record, in the
	// last segment holding a byte: a write a crash cut short, never
	// acknowledged, and dropped when the log is replayed.
	Torn *Span
	// Corrupt are the bytes that make no record and have a record after
	// them (or, before the last segment, end it): a crash only cuts a log's
	// end short, so they held records that were acknowledged.
	Corrupt []Span

	recs []Span // the records' payloads
}

// OK reports a segment that Replay reads whole.
func (s Segment) OK() bool { return s.Torn == nil && len(s.Corrupt) == 0 }

// CorruptError is Replay's and Open's refusal of a log with corrupt bytes:
// the first such span, in which file, and how many records follow it.
type CorruptError struct {
	Path  string
	Span  Span
	After int // records that check out after the span, in the same file
}

// Error names the file, the offset and the span, for an operator.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("wal: %s is corrupt at offset %d: %d bytes (offsets %d to %d) make no record and %d records follow them "+
		"(a crash only cuts a log's end short: these bytes held acknowledged records)",
		e.Path, e.Span.Offset, e.Span.Len(), e.Span.Offset, e.Span.End, e.After)
}

// frame returns the payload of the record at the start of b, or false
// when b does not start with one that checks out.
func frame(b []byte) ([]byte, bool) {
	if len(b) < 8 {
		return nil, false
	}
	n := binary.LittleEndian.Uint32(b)
	if n > MaxRecord || int(n) > len(b)-8 || crc32.Checksum(b[8:8+n], castagnoli) != binary.LittleEndian.Uint32(b[4:]) {
		return nil, false
	}
	return b[8 : 8+n], true
}

// resync finds the next offset from which a non-empty record checks out,
// or -1. Empty records are not looked for: zeroed bytes read as them.
func resync(b []byte, from int) int {
	for i := from; i+8 < len(b); i++ {
		if n := binary.LittleEndian.Uint32(b[i:]); n == 0 || n > MaxRecord || int(n) > len(b)-i-8 {
			continue
		}
		if _, ok := frame(b[i:]); ok {
			return i
		}
	}
	return -1
}

// scan reads one segment's bytes: its records, then either the end, a
// tail that makes no record (torn), or bad bytes followed by records
// again (corrupt).
func scan(path string, b []byte) Segment {
	s := Segment{Path: path, Size: int64(len(b))}
	for off := 0; off < len(b); {
		if p, ok := frame(b[off:]); ok {
			s.recs = append(s.recs, Span{int64(off + 8), int64(off + 8 + len(p))})
			off += 8 + len(p)
			continue
		}
		next := resync(b, off+1)
		if next < 0 {
			s.Torn = &Span{int64(off), int64(len(b))}
			break
		}
		s.Corrupt = append(s.Corrupt, Span{int64(off), int64(next)})
		off = next
	}
	s.Records = len(s.recs)
	return s
}

// examine reads the given segment files, oldest first, and judges them as
// one log: a torn tail is the log's end only in the last file holding a
// byte (later ones can only be empty segments started by opens that died
// too); anywhere else it is corruption. It returns each file's bytes.
func examine(paths []string) ([]Segment, [][]byte, error) {
	segs := make([]Segment, len(paths))
	files := make([][]byte, len(paths))
	last := -1
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, fmt.Errorf("wal: %w", err)
		}
		files[i], segs[i] = b, scan(p, b)
		if len(b) > 0 {
			last = i
		}
	}
	for i := range segs {
		if t := segs[i].Torn; t != nil && i != last {
			segs[i].Corrupt, segs[i].Torn = append(segs[i].Corrupt, *t), nil
		}
	}
	return segs, files, nil
}

// corruption is the CorruptError of the first corrupt span, nil for none.
func corruption(segs []Segment) error {
	for _, s := range segs {
		if len(s.Corrupt) > 0 {
			sp := s.Corrupt[0]
			after := 0
			for _, r := range s.recs {
				if r.Offset > sp.Offset {
					after++
				}
			}
			return &CorruptError{Path: s.Path, Span: sp, After: after}
		}
	}
	return nil
}

var segmentName = regexp.MustCompile(`^(.+)\.([0-9]+)$`)

// Logs lists the names of the logs with a segment in dir (name.<n> files),
// sorted.
func Logs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range ents {
		if m := segmentName.FindStringSubmatch(e.Name()); m != nil && e.Type().IsRegular() && !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out, nil
}

// segmentPaths lists the segment files of log name in dir, oldest first.
func segmentPaths(dir, name string) ([]string, error) {
	l := &Log{dir: dir, name: name}
	nums, err := l.segments()
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(nums))
	for i, n := range nums {
		paths[i] = l.path(n)
	}
	return paths, nil
}

// Check reads every segment of the log name in dir, as Replay would judge
// them, without opening the log: nothing is created, changed or removed.
func Check(dir, name string) ([]Segment, error) {
	paths, err := segmentPaths(dir, name)
	if err != nil {
		return nil, err
	}
	segs, _, err := examine(paths)
	return segs, err
}

// Repair rewrites each segment of the log name in dir that holds torn or
// corrupt bytes with only the records that check out, so that the log
// replays again: it returns every segment as Check saw it before (the
// bytes dropped are their Torn and Corrupt spans). The original of each
// rewritten segment is kept beside it as <segment>.corrupt (or
// .corrupt-<n>), which the log never reads. No process may have the log
// open.
func Repair(dir, name string) ([]Segment, error) {
	paths, err := segmentPaths(dir, name)
	if err != nil {
		return nil, err
	}
	segs, files, err := examine(paths)
	if err != nil {
		return nil, err
	}
	for i, s := range segs {
		if s.OK() {
			continue
		}
		var out []byte
		for _, r := range s.recs {
			out = append(out, files[i][r.Offset-8:r.End]...)
		}
		if err := rewrite(s.Path, out); err != nil {
			return nil, err
		}
	}
	return segs, nil
}

// rewrite keeps path's bytes as path.corrupt (a hard link) and replaces
// path with b, durably and atomically.
func rewrite(path string, b []byte) error {
	keep := path + ".corrupt"
	for n := 1; ; n++ {
		err := os.Link(path, keep)
		if err == nil {
			break
		}
		if !os.IsExist(err) {
			return fmt.Errorf("wal: keeping the original of %s: %w", path, err)
		}
		keep = path + ".corrupt-" + strconv.Itoa(n+1)
	}
	tmp := path + ".repair"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("wal: rewriting %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}
