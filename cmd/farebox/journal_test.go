package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402/payer"
)

// The repro through the real binary: farebox serve settles two
// paid calls into its data directory and is killed; one byte flipped at
// offset 40 of journal.wal.1 (records after it) stops the next start with
// one line naming the file, the offset and the commands to run; `journal
// check` reports it and exits 1; `journal repair` says what was lost
// (naming the payer still legible in the dropped bytes); then farebox
// starts, and a torn tail alone would not have stopped it.
func TestACorruptJournalRecordStopsFareboxUntilRepaired(t *testing.T) {
	r := newCrashRig(t, "broadcast")
	r.start(t)
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	if err := r.a.Fund(context.Background(), from, 10_000); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		name, value, err := payer.NewSigner(key).PaymentHeader(r.offer(t), 2)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.post(context.Background(), fmt.Sprintf(`{"model":"paced","input":"call %d"}`, i), name, value)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("paid call %d: %d", i, res.StatusCode)
		}
	}
	r.kill()
	data := filepath.Join(filepath.Dir(r.config), "data")
	seg := filepath.Join(data, "journal.wal.1")
	b, err := os.ReadFile(seg)
	if err != nil || len(b) < 200 {
		t.Fatalf("journal.wal.1 after two paid calls: %d bytes, %v", len(b), err)
	}
	b[40] ^= 0x20
	if err := os.WriteFile(seg, b, 0o600); err != nil {
		t.Fatal(err)
	}

	env := append([]string{"FAREBOX_TEST_AS_MAIN=1"}, r.env...)
	code, _, stderr := farebox(t, env, "serve", "--config", r.config)
	assertOneLineFailure(t, code, stderr, seg, "corrupt at offset 0", "farebox journal check --data "+data, "farebox journal repair --data "+data)

	code, stdout, _ := farebox(t, nil, "journal", "check", "--data", data)
	if code != 1 || !strings.Contains(stdout, "journal.wal: CORRUPT") || !strings.Contains(stdout, "journal.wal.1:") ||
		!strings.Contains(stdout, "CORRUPT at offset 0") {
		t.Fatalf("journal check: exit %d:\n%s", code, stdout)
	}

	code, stdout, stderr = farebox(t, nil, "journal", "repair", "--data", data)
	if code != 0 || !strings.Contains(stdout, "LOST") || !strings.Contains(stdout, "journal.wal.1.corrupt") ||
		!strings.Contains(strings.ToLower(stdout), strings.ToLower(from.Hex())) {
		t.Fatalf("journal repair: exit %d:\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := farebox(t, nil, "journal", "check", "--data", data); code != 0 || strings.Contains(stdout, "CORRUPT") {
		t.Fatalf("journal check after repair: exit %d:\n%s", code, stdout)
	}
	r.start(t) // fails the test if farebox does not answer
}
