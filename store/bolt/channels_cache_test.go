package bolt_test

import (
	"context"
	"errors"
	"github.com/farebox/farebox/internal/testkit/channelstoretest"
	"github.com/farebox/farebox/store/bolt"
	"math/big"
	"path/filepath"
	"sync"
	"testing"

	"github.com/farebox/farebox/x402/channel/service"
)

// The BoltStore's in-memory records are the file's: a record read is the
// caller's own copy, a refused or deleted write leaves no trace, and
// concurrent compare-and-swap writers end where a fresh store reading the
// file ends.
func TestBoltStoreMemoryIsTheFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "channels.db")
	s, err := bolt.OpenChannels(path)
	if err != nil {
		t.Fatal(err)
	}
	id := [32]byte{7}
	a := channelstoretest.Record(7, 100)
	if err := s.Put(ctx, a, 0); err != nil {
		t.Fatal(err)
	}
	a.State.Charged.SetInt64(1) // the writer's record is not the store's
	got, err := s.Get(ctx, id)
	if err != nil || got.State.Charged.Int64() != 100 || got.Rev != 1 {
		t.Fatalf("read %+v %v", got, err)
	}
	got.State.Charged.SetInt64(2) // nor is the reader's
	got.State.Balance.SetInt64(3)
	if again, _ := s.Get(ctx, id); again.State.Charged.Int64() != 100 || again.State.Balance.Int64() != 10_000 {
		t.Fatalf("a reader's change reached the store: %+v", again.State)
	}
	if err := s.Put(ctx, channelstoretest.Record(7, 555), 0); !errors.Is(err, service.ErrConflict) {
		t.Fatalf("stale write: %v", err)
	}
	if again, _ := s.Get(ctx, id); again.State.Charged.Int64() != 100 || again.Rev != 1 {
		t.Fatalf("a refused write changed the record: %+v", again)
	}
	if err := s.Delete(ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Get(ctx, id); r != nil || err != nil {
		t.Fatalf("deleted record read back: %+v %v", r, err)
	}

	// Writers racing on one channel, each reading, adding one and writing
	// with the revision it read (the service's save), retrying on conflicts.
	if err := s.Put(ctx, channelstoretest.Record(7, 0), 0); err != nil {
		t.Fatal(err)
	}
	const writers, adds = 4, 25
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < adds; {
				r, err := s.Get(ctx, id)
				if err != nil {
					t.Error(err)
					return
				}
				r.State.Charged = new(big.Int).Add(r.State.Charged, big.NewInt(1))
				switch err := s.Put(ctx, r, r.Rev); {
				case err == nil:
					done++
				case !errors.Is(err, service.ErrConflict):
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	mem, _ := s.Get(ctx, id)
	s.Close()
	fresh, err := bolt.OpenChannels(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	file, _ := fresh.Get(ctx, id)
	if mem.State.Charged.Int64() != writers*adds || file.State.Charged.Int64() != writers*adds || mem.Rev != file.Rev || file.Rev != writers*adds+1 {
		t.Fatalf("memory charged %s rev %d, file charged %s rev %d, want %d", mem.State.Charged, mem.Rev, file.State.Charged, file.Rev, writers*adds)
	}
}
