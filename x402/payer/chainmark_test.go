package payer

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestChainMarkTellsChainsApart: another deployment is another chain;
// another genesis too, but only when both marks know theirs (a record made
// without --rpc-url is not set aside just because the next call has one).
func TestChainMarkTellsChainsApart(t *testing.T) {
	t.Parallel()
	dep := "1337/0x4020074e9df2ce1dee5a9c1b5c3f541d02a10003/0x663f3ad617193148711d28f5334ee4ed07016602"
	for _, c := range []struct {
		a, b  *ChainMark
		other bool
	}{
		{&ChainMark{Deployment: dep}, &ChainMark{Deployment: dep}, false},
		{&ChainMark{Deployment: dep}, &ChainMark{Deployment: dep, Genesis: "0x22"}, false},
		{&ChainMark{Deployment: dep, Genesis: "0x22"}, &ChainMark{Deployment: dep, Genesis: "0x22"}, false},
		{&ChainMark{Deployment: dep, Genesis: "0x22"}, &ChainMark{Deployment: dep, Genesis: "0x77"}, true},
		{&ChainMark{Deployment: dep}, &ChainMark{Deployment: "8453" + dep[4:]}, true},
		{nil, &ChainMark{Deployment: dep}, false}, // a record from before marks: kept, and marked now
	} {
		if got := c.a.differs(c.b); got != c.other {
			t.Errorf("%+v vs %+v: differs = %v, want %v", c.a, c.b, got, c.other)
		}
	}
}

// TestFileChannelsSetAsideKeepsTheRecord: a record set aside leaves the
// live records and stays on disk, whole, under set-aside/.
func TestFileChannelsSetAsideKeepsTheRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, _ := NewFileChannels(dir)
	k := ChannelKey{Payer: common.HexToAddress("0x01"), Network: "eip155:1337", Receiver: common.HexToAddress("0x02")}
	rec := &ChannelRecord{ChannelID: common.HexToHash("0xc4"), Balance: big.NewInt(50_000), Charged: big.NewInt(10),
		Signed: big.NewInt(10_010), Chain: &ChainMark{Deployment: "1337/0xa/0xb", Genesis: "0x22"}}
	other := &ChannelRecord{ChannelID: common.HexToHash("0xc5"), Balance: big.NewInt(1), Charged: big.NewInt(0), Signed: big.NewInt(0)}
	unlock, err := f.Lock(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, r := range []*ChannelRecord{rec, other} {
		if err := f.Put(k, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.SetAside(k, rec); err != nil {
		t.Fatal(err)
	}
	if got, err := f.Get(k, rec.ChannelID); err != nil || got != nil {
		t.Fatalf("the set-aside record is still live: %+v, %v", got, err)
	}
	if got, _ := f.Get(k, other.ChannelID); got == nil {
		t.Fatal("setting one record aside lost another")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*", "set-aside", "*.json"))
	if len(files) != 1 || !strings.Contains(files[0], strings.ToLower(rec.ChannelID.Hex())) {
		t.Fatalf("set-aside files: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var kept ChannelRecord
	if err := json.Unmarshal(b, &kept); err != nil || kept.Balance.Cmp(rec.Balance) != 0 || kept.Charged.Cmp(rec.Charged) != 0 ||
		kept.Chain == nil || kept.Chain.Genesis != "0x22" {
		t.Fatalf("kept record %s: %v", b, err)
	}

	m := NewMemoryChannels()
	m.Put(k, rec)
	m.SetAside(k, rec)
	if got, _ := m.Get(k, rec.ChannelID); got != nil || len(m.SetAsideRecords()) != 1 {
		t.Fatalf("memory store: live %+v, set aside %d", got, len(m.SetAsideRecords()))
	}
}
