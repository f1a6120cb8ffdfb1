package bolt

import (
	"github.com/farebox/farebox/x402/channel/service"

	"context"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/x402/channel"
)

func logTestRecord(id byte, charged int64) *service.Record {
	st := channel.NewState([32]byte{id}, channel.Config{Payer: common.Address{1}, WithdrawDelay: 900},
		channel.Onchain{Balance: big.NewInt(10_000)}, time.UnixMilli(1_700_000_000_000))
	st.Charged = big.NewInt(charged)
	return &service.Record{State: st}
}

// crash closes s's files without flushing, as a killed process leaves them.
func crash(t *testing.T, s *Channels) {
	t.Helper()
	if err := s.logged.log.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Close(); err != nil {
		t.Fatal(err)
	}
}

// stopFlusher keeps s's log from reaching the file (a process about to die).
func stopFlusher(s *Channels) {
	s.logged.mu.Lock()
	s.logged.flushing = true
	s.logged.mu.Unlock()
}

// A write is durable in the log alone: a store whose file never got it
// (the process died before the flush) reads it after reopening, at its
// revision, and a write against that revision goes on from it.
func TestALoggedWriteSurvivesACrashBeforeTheFlush(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "channels.db")
	s, err := OpenChannels(path)
	if err != nil {
		t.Fatal(err)
	}
	stopFlusher(s)
	if err := s.Put(ctx, logTestRecord(1, 100), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, logTestRecord(1, 200), 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, logTestRecord(2, 50), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, [32]byte{2}, 1); err != nil {
		t.Fatal(err)
	}
	if recs, err := s.List(ctx); err != nil || len(recs) != 1 || recs[0].State.Charged.Int64() != 200 {
		t.Fatalf("List before the flush = %d records, %v; want channel 1 at 200", len(recs), err)
	}
	crash(t, s)

	s, err = OpenChannels(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Get(ctx, [32]byte{1})
	if err != nil || got == nil || got.Rev != 2 || got.State.Charged.Int64() != 200 {
		t.Fatalf("channel 1 after the crash = %+v, %v; want rev 2, charged 200", got, err)
	}
	if got, err := s.Get(ctx, [32]byte{2}); got != nil || err != nil {
		t.Fatalf("deleted channel 2 after the crash = %+v, %v", got, err)
	}
	if err := s.Put(ctx, logTestRecord(1, 300), 1); err != service.ErrConflict {
		t.Fatalf("a write against the revision before the crash = %v, want service.ErrConflict", err)
	}
	if err := s.Put(ctx, logTestRecord(1, 300), 2); err != nil {
		t.Fatalf("the next write: %v", err)
	}
}

// Replay skips what the file holds newer: an old record still in the log
// (a crash between the flush and the log's trim) neither rolls a channel
// back nor brings a deleted one back.
func TestReplaySkipsWhatTheFileHoldsNewer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "channels.db")
	s, err := OpenChannels(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, logTestRecord(1, 100), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, logTestRecord(2, 10), 0); err != nil {
		t.Fatal(err)
	}
	// The records as logged, before the next writes.
	old1, _ := service.EncodeRecord(&service.Record{State: logTestRecord(1, 100).State, Rev: 1})
	old2, _ := service.EncodeRecord(&service.Record{State: logTestRecord(2, 10).State, Rev: 1})
	if err := s.Put(ctx, logTestRecord(1, 900), 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, [32]byte{2}, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // flushed: the file holds all of it
		t.Fatal(err)
	}
	// Put the old records back in a log, with their old sequences (1, 2).
	s2, err := OpenChannels(path)
	if err != nil {
		t.Fatal(err)
	}
	stopFlusher(s2)
	for _, r := range []struct {
		id  byte
		seq uint64
		v   []byte
	}{{1, 1, old1}, {2, 2, old2}} {
		if err := s2.logged.log.Append(channelLogRecord([32]byte{r.id}, &pendingWrite{seq: r.seq, rev: 1, value: r.v})); err != nil {
			t.Fatal(err)
		}
	}
	crash(t, s2)

	s3, err := OpenChannels(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	if got, err := s3.Get(ctx, [32]byte{1}); err != nil || got == nil || got.State.Charged.Int64() != 900 || got.Rev != 2 {
		t.Fatalf("channel 1 after replaying its older record = %+v, %v; want charged 900 at rev 2", got, err)
	}
	if got, err := s3.Get(ctx, [32]byte{2}); got != nil || err != nil {
		t.Fatalf("deleted channel 2 came back: %+v, %v", got, err)
	}
	if segs, _ := filepath.Glob(path + ".wal.*"); len(segs) != 1 {
		t.Fatalf("log segments after the replay: %v, want only the new one", segs)
	}
}
