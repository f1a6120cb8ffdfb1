package books_test

import (
	"testing"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/internal/testkit/bookstest"
)

// Every store adds deltas into hourly rows, counts a delta with a Once mark
// at most once, rolls old hours into days and moves fields once: the
// memory store here, the others beside their code under store/.
func TestMemoryStore(t *testing.T) {
	bookstest.Run(t, func(t *testing.T) books.Store { return books.NewMemoryStore() })
}
