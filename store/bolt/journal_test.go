package bolt_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/farebox/farebox/store/bolt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/settle/journaltest"
)

func TestJournal(t *testing.T) {
	journaltest.Run(t, func(t *testing.T) settle.Journal {
		j, err := bolt.OpenJournal(t.TempDir(), 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		return j
	})
}

// childEnv makes the test binary the crashing process of TestSurvivesSIGKILL.
const childEnv = "FAREBOX_BOLTJOURNAL_CHILD"

var payer = common.HexToAddress("0x00000000000000000000000000000000000000c0")

// crashChild writes entries in every state the way the engine does, reports
// them on stdout and kills itself with SIGKILL: no Close, no shutdown path.
func crashChild(dir string) {
	ctx := context.Background()
	j, err := bolt.OpenJournal(dir, 0)
	if err != nil {
		panic(err)
	}
	var out []*settle.Entry
	for _, s := range []settle.State{settle.Reserved, settle.Settling, settle.Broadcast, settle.Confirmed, settle.Failed} {
		e := journaltest.NewEntry(payer)
		e.PaymentID = "pay_" + string(s) + "_0123456789"
		if _, err := j.Create(ctx, e); err != nil {
			panic(err)
		}
		if s != settle.Reserved {
			next := e.Clone()
			next.State, next.Tx = s, common.Hash{byte(len(out) + 1)}
			if s != settle.Settling {
				next.Receipt = &x402.Receipt{Success: true, Transaction: next.Tx.Hex(), Payer: payer.Hex(), Network: e.Network}
			}
			if err := j.Update(ctx, next, settle.Reserved); err != nil {
				panic(err)
			}
			e = next
		}
		out = append(out, e)
	}
	if err := j.AddDebt(ctx, payer, settle.DebtItem{Entry: out[4].Name(), Amount: big.NewInt(10_000),
		Reason: "insufficient_funds", At: time.Now()}); err != nil {
		panic(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		crashChild(dir)
	}
	os.Exit(m.Run())
}

// A process killed right after its writes leaves every entry past
// Reserved, its state, its payment id and the payer's debt on disk for the
// next process. A Reserved entry is in memory only (nothing was sent for
// it; Resume would release it): it is gone, and so is its payment id.
func TestSurvivesSIGKILL(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	stdout, err := cmd.Output()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child did not die by SIGKILL: %v (%v)", cmd.ProcessState, err)
	}
	var written []*settle.Entry
	if err := json.Unmarshal(stdout, &written); err != nil || len(written) != 5 {
		t.Fatalf("child output %q: %v", stdout, err)
	}
	j, err := bolt.OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j.Path() != filepath.Join(dir, bolt.FileName) {
		t.Fatalf("Path = %s", j.Path())
	}
	for _, w := range written {
		if w.State == settle.Reserved {
			if _, err := j.Get(ctx, w.Key()); !errors.Is(err, settle.ErrNotFound) {
				t.Fatalf("a reserved entry after the crash: %v, want ErrNotFound", err)
			}
			other := journaltest.NewEntry(payer)
			other.PaymentID = w.PaymentID
			if _, err := j.Create(ctx, other); err != nil {
				t.Fatalf("the payment id of a reserved entry after the crash: Create = %v, want free", err)
			}
			continue
		}
		got, err := j.Get(ctx, w.Key())
		if err != nil {
			t.Fatalf("entry %s (%s) lost: %v", w.Name(), w.State, err)
		}
		if got.State != w.State || got.Tx != w.Tx || (w.Receipt != nil) != (got.Receipt != nil) || got.BodyHash != w.BodyHash {
			t.Fatalf("entry after the crash = %+v, want %+v", got, w)
		}
		// The payment id survived too: another authorization cannot take it.
		other := journaltest.NewEntry(payer)
		other.PaymentID = w.PaymentID
		if _, err := j.Create(ctx, other); !errors.Is(err, settle.ErrIDTaken) {
			t.Fatalf("payment id %s after the crash: Create = %v, want ErrIDTaken", w.PaymentID, err)
		}
	}
	open, err := j.Unfinished(ctx)
	if err != nil || len(open) != 3 {
		t.Fatalf("Unfinished = %d entries, %v; want settling and broadcast, and the reserved one created since", len(open), err)
	}
	if d, err := j.Debts(ctx, payer); err != nil || len(d) != 1 || d[0].Entry != written[4].Name() {
		t.Fatalf("Debts after the crash = %+v, %v", d, err)
	}
}

// The file is the process's own: a second Open waits, then gives up.
func TestOneProcessAtATime(t *testing.T) {
	dir := t.TempDir()
	j, err := bolt.OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if j2, err := bolt.OpenJournal(dir, 50*time.Millisecond); err == nil {
		j2.Close()
		t.Fatal("a second Open of a journal in use succeeded")
	}
}

// UpdateSoon's change is seen at once and reaches the disk without another
// write: a journal opened after Close finds it.
func TestUpdateSoonReachesTheDisk(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	j, err := bolt.OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	e := journaltest.NewEntry(payer)
	e.PaymentID = "pay_soon_0123456789abcdef"
	if _, err := j.Create(ctx, e); err != nil {
		t.Fatal(err)
	}
	settling := e.Clone()
	settling.State, settling.Tx = settle.Settling, common.Hash{7}
	if err := j.UpdateSoon(ctx, settling, settle.Reserved); err != nil {
		t.Fatal(err)
	}
	broadcast := settling.Clone()
	broadcast.State, broadcast.Receipt = settle.Broadcast, &x402.Receipt{Success: true, Transaction: settling.Tx.Hex()}
	if err := j.UpdateSoon(ctx, broadcast, settle.Reserved); !errors.Is(err, settle.ErrStateChanged) {
		t.Fatalf("UpdateSoon from a state already left = %v, want ErrStateChanged", err)
	}
	if err := j.UpdateSoon(ctx, broadcast, settle.Settling); err != nil {
		t.Fatal(err)
	}
	if got, err := j.Get(ctx, e.Key()); err != nil || got.State != settle.Broadcast || got.Receipt == nil {
		t.Fatalf("Get right after UpdateSoon = %+v, %v; want the broadcast entry", got, err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j, err = bolt.OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if got, err := j.Get(ctx, e.Key()); err != nil || got.State != settle.Broadcast || got.Tx != settling.Tx {
		t.Fatalf("after reopening = %+v, %v; want the broadcast entry", got, err)
	}
	other := journaltest.NewEntry(payer)
	other.PaymentID = e.PaymentID
	if _, err := j.Create(ctx, other); !errors.Is(err, settle.ErrIDTaken) {
		t.Fatalf("the payment id after reopening: Create = %v, want ErrIDTaken", err)
	}
}
