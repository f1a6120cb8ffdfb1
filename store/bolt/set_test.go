package bolt_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/internal/testkit/channelstoretest"
	"github.com/farebox/farebox/store"
	"github.com/farebox/farebox/store/bolt"
	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/settle/journaltest"
)

// bolt:DIR keeps the journal, the channels and the books in the file
// data_dir always had (journal.db, the channels' log beside it), so a data
// directory written before the setting existed is read as it is.
func TestSettingKeepsTheDataDirectoryLayout(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old, err := bolt.OpenJournal(dir, 0) // as data_dir opened it
	if err != nil {
		t.Fatal(err)
	}
	e := journaltest.NewEntry(common.Address{1})
	if _, err := old.Create(ctx, e); err != nil {
		t.Fatal(err)
	}
	e.State, e.Tx = settle.Settling, common.Hash{7} // durable from here
	if err := old.Update(ctx, e, settle.Reserved); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	set, err := store.Open(bolt.Prefix+dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	j, err := set.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := j.Get(ctx, e.Key()); err != nil || got == nil {
		t.Fatalf("the entry written before: %v %v", got, err)
	}
	ch, err := set.Channels()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Put(ctx, channelstoretest.Record(3, 40), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := set.Books(); err != nil {
		t.Fatal(err)
	}
	if set.Instance() != "" || set.Holds() != nil {
		t.Errorf("instance %q, holds %v: want one process's durable file", set.Instance(), set.Holds())
	}
	if _, err := os.Stat(filepath.Join(dir, bolt.FileName)); err != nil {
		t.Errorf("the journal's file: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, bolt.ChannelLogName+".*")); len(m) == 0 {
		t.Errorf("no %s segment beside the file", bolt.ChannelLogName)
	}
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := store.Open(bolt.Prefix+dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	ch, err = again.Channels()
	if err != nil {
		t.Fatal(err)
	}
	if r, err := ch.Get(ctx, [32]byte{3}); err != nil || r == nil || r.State.Charged.Int64() != 40 {
		t.Fatalf("the channel after reopening: %+v %v", r, err)
	}
}

// The circuits are the process's: asking for them opens no file.
func TestCircuitsOpenNoFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	set, err := store.Open(bolt.Prefix+dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Circuits() == nil {
		t.Fatal("no circuits")
	}
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the data directory was created for the circuits: %v", err)
	}
}

// bolt: without a directory is refused before anything is opened.
func TestSettingWithoutADirectoryIsRefused(t *testing.T) {
	if err := store.Check(bolt.Prefix); err == nil {
		t.Error("bolt: without a directory passed the check")
	}
	if err := store.Check(bolt.Prefix + t.TempDir()); err != nil {
		t.Error(err)
	}
}

// A directory a farebox holds open is not to be rewritten.
func TestNotInUseRefusesAnOpenJournal(t *testing.T) {
	dir := t.TempDir()
	if err := bolt.NotInUse(dir); err != nil {
		t.Fatalf("an empty directory: %v", err)
	}
	j, err := bolt.OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := bolt.NotInUse(dir); err == nil {
		t.Error("a journal held open is not in use")
	}
	j.Close()
	if err := bolt.NotInUse(dir); err != nil {
		t.Errorf("after closing: %v", err)
	}
}
