package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/farebox/farebox/internal/wal"
	"github.com/farebox/farebox/store/bolt"
)

const journalUsage = `Usage:
  farebox journal check  --data DIR   report the state of every write-ahead log in DIR
  farebox journal repair --data DIR   drop the bytes of DIR's logs that make no record, so farebox starts again

DIR is the data directory (data_dir in the config, --data of farebox dev).
check exits 1 when a log is corrupt (farebox refuses to start on it).
repair keeps each rewritten segment's original beside it (<segment>.corrupt)
and says what was dropped. Stop farebox before repair.
`

// logMeaning says, per write-ahead log in a data directory, what its
// records are, so a report can say what a dropped one may have held.
var logMeaning = map[string]string{
	bolt.LogName: "the settlement journal: a payment's state (a transfer about to be sent, sent, settled); " +
		"farebox may no longer resume that payment or know its authorization was used, and its transfer may be on chain without farebox knowing: " +
		"look the payers named below up on chain",
	bolt.ChannelLogName: "the payment channels: a channel's latest voucher or claim; farebox may claim less than it was paid: " +
		"check the channels of the payers named below",
}

// errLogCorrupt is check's exit status for a corrupt log.
var errLogCorrupt = errors.New("a write-ahead log is corrupt: farebox will not start on it")

// runJournal runs `farebox journal check|repair --data DIR`.
func runJournal(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "check" && args[0] != "repair") {
		fmt.Fprint(stderr, journalUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return flag.ErrHelp
		}
		return errors.New("journal: want check or repair")
	}
	fs := flag.NewFlagSet("journal "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, journalUsage) }
	dir := fs.String("data", "", "the data directory (data_dir)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("journal " + args[0] + ": --data DIR is required (the data_dir of the config)")
	}
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		return fmt.Errorf("journal %s: --data %s is not a directory", args[0], *dir)
	}
	if args[0] == "check" {
		return checkLogs(*dir, stdout)
	}
	return repairLogs(*dir, stdout)
}

// dataLogs are the write-ahead logs in dir: farebox's own, and any other
// *.wal log found there.
func dataLogs(dir string) ([]string, error) {
	names, err := wal.Logs(dir)
	if err != nil {
		return nil, err
	}
	out := []string{bolt.LogName, bolt.ChannelLogName}
	for _, n := range names {
		if strings.HasSuffix(n, ".wal") && n != out[0] && n != out[1] {
			out = append(out, n)
		}
	}
	return out, nil
}

// checkLogs prints each log's segments and their state.
func checkLogs(dir string, w io.Writer) error {
	names, err := dataLogs(dir)
	if err != nil {
		return err
	}
	corrupt := false
	for _, name := range names {
		segs, err := wal.Check(dir, name)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %s\n", name, logState(segs))
		for _, s := range segs {
			fmt.Fprintf(w, "  %s\n", segmentReport(s))
			corrupt = corrupt || len(s.Corrupt) > 0
		}
	}
	if corrupt {
		fmt.Fprintf(w, "farebox refuses to start on %s: copy the directory, then `farebox journal repair --data %s` drops the corrupt bytes and keeps every record that checks out\n", dir, dir)
		return errLogCorrupt
	}
	return nil
}

func logState(segs []wal.Segment) string {
	switch {
	case len(segs) == 0:
		return "no segments"
	case slicesAny(segs, func(s wal.Segment) bool { return len(s.Corrupt) > 0 }):
		return "CORRUPT"
	case slicesAny(segs, func(s wal.Segment) bool { return s.Torn != nil }):
		return "ok (a torn tail, dropped at start)"
	}
	return "ok"
}

func slicesAny(segs []wal.Segment, f func(wal.Segment) bool) bool {
	for _, s := range segs {
		if f(s) {
			return true
		}
	}
	return false
}

// segmentReport is one line about a segment.
func segmentReport(s wal.Segment) string {
	line := fmt.Sprintf("%s: %d bytes, %d records", filepath.Base(s.Path), s.Size, s.Records)
	for _, c := range s.Corrupt {
		line += fmt.Sprintf("; CORRUPT at offset %d: %d bytes (offsets %d to %d) make no record, with records after them", c.Offset, c.Len(), c.Offset, c.End)
	}
	if t := s.Torn; t != nil {
		line += fmt.Sprintf("; a torn tail at offset %d: %d bytes of a write a crash cut short (never acknowledged; dropped at start)", t.Offset, t.Len())
	}
	return line
}

// repairLogs drops what makes no record from every log, once no farebox
// holds the directory, and says what was dropped.
func repairLogs(dir string, w io.Writer) error {
	if err := notInUse(dir); err != nil {
		return err
	}
	names, err := dataLogs(dir)
	if err != nil {
		return err
	}
	repaired := false
	for _, name := range names {
		segs, err := wal.Repair(dir, name)
		if err != nil {
			return err
		}
		for _, s := range segs {
			if s.OK() {
				continue
			}
			repaired = true
			fmt.Fprintf(w, "%s: rewritten with its %d records; the original is kept as %s.corrupt\n", filepath.Base(s.Path), s.Records, filepath.Base(s.Path))
			if t := s.Torn; t != nil {
				fmt.Fprintf(w, "  dropped a torn tail at offset %d (%d bytes): a write a crash cut short, never acknowledged: nothing is lost\n", t.Offset, t.Len())
			}
			if len(s.Corrupt) > 0 {
				lost(w, s, name)
			}
		}
	}
	if !repaired {
		fmt.Fprintln(w, "nothing to repair: every log checks out")
	}
	return nil
}

// lost says what the corrupt bytes dropped from s may have held.
func lost(w io.Writer, s wal.Segment, name string) {
	b, _ := os.ReadFile(s.Path + ".corrupt")
	for _, c := range s.Corrupt {
		fmt.Fprintf(w, "  dropped offsets %d to %d (%d bytes): at least one acknowledged record, LOST\n", c.Offset, c.End, c.Len())
		if m, ok := logMeaning[name]; ok {
			fmt.Fprintf(w, "  a record of %s\n", m)
		}
		if c.End <= int64(len(b)) {
			if names := namedIn(b[c.Offset:c.End]); names != "" {
				fmt.Fprintf(w, "  the dropped bytes still name: %s\n", names)
			}
		}
	}
}

var hexField = regexp.MustCompile(`"(\w+)":"(0x[0-9a-fA-F]{40,64})"`)

// namedIn lists the addresses and hashes still legible in dropped bytes
// (most of a record survives a flipped byte): what to look up on chain.
func namedIn(b []byte) string {
	var out []string
	seen := map[string]bool{}
	for _, m := range hexField.FindAllSubmatch(b, 12) {
		f := string(m[1]) + " " + string(m[2])
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return strings.Join(out, ", ")
}

// notInUse refuses to repair a directory whose journal a farebox holds
// open (bbolt locks its file).
func notInUse(dir string) error {
	if err := bolt.NotInUse(dir); err != nil {
		return fmt.Errorf("journal repair: %w", err)
	}
	return nil
}

// corruptLogAdvice adds to a start-up failure over a corrupt log what
// the operator can do about it.
func corruptLogAdvice(err error) error {
	var ce *wal.CorruptError
	if err == nil || !errors.As(err, &ce) {
		return err
	}
	dir := filepath.Dir(ce.Path)
	return fmt.Errorf("%w; farebox did not start, so nothing more is lost: `farebox journal check --data %s` reports every log, "+
		"and after copying the directory `farebox journal repair --data %s` drops the corrupt bytes (saying what they held) so farebox starts", err, dir, dir)
}
