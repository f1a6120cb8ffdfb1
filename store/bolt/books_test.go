package bolt_test

import (
	"path/filepath"
	"testing"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/internal/groupcommit"
	"github.com/farebox/farebox/internal/testkit/bookstest"
	"github.com/farebox/farebox/store/bolt"
	bbolt "go.etcd.io/bbolt"
)

func TestBooks(t *testing.T) {
	bookstest.Run(t, func(t *testing.T) books.Store {
		db, err := bbolt.Open(filepath.Join(t.TempDir(), "books.db"), 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		s, err := bolt.NewBooks(groupcommit.New(db))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
