package bolt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/store"
	"github.com/farebox/farebox/store/memory"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/settle"
)

// Prefix is the setting of a data directory: "bolt:DIR".
const Prefix = "bolt:"

// ChannelLogName names the channel store's write-ahead log segments in the
// data directory, beside the journal's (LogName).
const ChannelLogName = "channels.wal"

// defaultWait is how long opening waits for a file another farebox holds.
const defaultWait = 5 * time.Second

func init() {
	store.Register(Prefix, Open)
	store.RegisterCheck(Prefix, Check)
}

// Check says what is wrong with a "bolt:DIR" setting, before anything is
// opened.
func Check(location string) error {
	if strings.TrimPrefix(location, Prefix) == "" {
		return errors.New("want bolt:DIR, the directory farebox keeps its state in")
	}
	return nil
}

// Open is the stores of one process in one bbolt file under the directory
// the location names (dir/journal.db, the file data_dir always had), with
// the channels' write-ahead log beside it. The file is opened when a
// store that lives in it is first asked for; the circuits stay in the
// process.
func Open(location string, opts store.Options) (store.Set, error) {
	if err := Check(location); err != nil {
		return nil, err
	}
	wait := opts.Wait
	if wait == 0 {
		wait = defaultWait
	}
	return &Set{dir: strings.TrimPrefix(location, Prefix), wait: wait, mem: memory.New(opts.Logger())}, nil
}

// Set is every store in the data directory's bbolt file.
type Set struct {
	dir  string
	wait time.Duration
	mem  *memory.Set // the circuits, which are the process's own

	mu       sync.Mutex
	journal  *Journal
	channels *Channels
	books    *Books
}

// Dir is the data directory.
func (s *Set) Dir() string { return s.dir }

// open opens the journal's file once; a failure is tried again on the next call.
func (s *Set) open() (*Journal, error) {
	if s.journal == nil {
		j, err := OpenJournal(s.dir, s.wait)
		if err != nil {
			return nil, err
		}
		s.journal = j
	}
	return s.journal, nil
}

// Journal is the bbolt journal.
func (s *Set) Journal() (settle.Journal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open()
}

// Holds is nil: one process holds the file, so the engine's own holds do.
func (s *Set) Holds() settle.Holds { return nil }

// Answers are the process's: an answer is kept for a retry within the
// process's life, as in memory.
func (s *Set) Answers(maxBytes, perPayer int64) settle.AnswerStore {
	return s.mem.Answers(maxBytes, perPayer)
}

// Channels live in the journal's file and share its commits (unused
// buckets when no batch-settlement is offered), with a write-ahead log of
// their own beside it.
func (s *Set) Channels() (service.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.channels != nil {
		return s.channels, nil
	}
	j, err := s.open()
	if err != nil {
		return nil, err
	}
	c, err := NewChannelsLogged(j.Committer(), s.dir, ChannelLogName)
	if err != nil {
		return nil, err
	}
	s.channels = c
	return c, nil
}

// Books live in the journal's file, committing with it.
func (s *Set) Books() (books.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.books != nil {
		return s.books, nil
	}
	j, err := s.open()
	if err != nil {
		return nil, err
	}
	b, err := NewBooks(j.Committer())
	if err != nil {
		return nil, err
	}
	s.books = b
	return b, nil
}

// Circuits are the process's: one process uses the file.
func (s *Set) Circuits() pool.Circuits { return s.mem.Circuits() }

// Ready is nil: a local file does not go away.
func (s *Set) Ready(context.Context) error { return nil }

// Instance is "": the file is one process's.
func (s *Set) Instance() string { return "" }

// Close flushes the channels' log into the file, then closes the file.
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	if s.channels != nil {
		errs = append(errs, s.channels.Close())
		s.channels = nil
	}
	if s.journal != nil {
		errs = append(errs, s.journal.Close())
		s.journal = nil
	}
	s.books = nil
	return errors.Join(errs...)
}

// NotInUse refuses a data directory whose journal a farebox holds open
// (bbolt locks its file), for tools that rewrite the directory's logs.
func NotInUse(dir string) error {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if errors.Is(err, berrors.ErrTimeout) {
		return fmt.Errorf("%s is in use: stop the farebox that holds it first", path)
	}
	if err != nil {
		return err
	}
	return db.Close()
}
