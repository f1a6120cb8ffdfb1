package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/x402/payer"
)

// booksAdminToken opens the books' admin API in the fault test.
const booksAdminToken = "books-fault-admin-token-0123456789"

// newBooksRig is a crashRig whose farebox keeps its journal and books in
// store (a data directory's bbolt file, or Redis), with the admin API open.
func newBooksRig(t *testing.T, storeLine string) *crashRig {
	t.Helper()
	a := chaintest.StartAnvil(t, chaintest.BlockTime(time.Second))
	relayer, err := a.NewRelayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	payToKey, _ := crypto.GenerateKey()
	r := &crashRig{a: a, base: "http://" + addr + "/v1", payTo: crypto.PubkeyToAddress(payToKey.PublicKey),
		env: []string{"BOOKS_RELAYER_KEY=" + hexutil.Encode(crypto.FromECDSA(relayer)), "BOOKS_ADMIN_TOKEN=" + booksAdminToken}}
	r.config = filepath.Join(t.TempDir(), "farebox.yaml")
	yaml := fmt.Sprintf(`addr: %s
log_level: warn
%s
admin: {token_env: BOOKS_ADMIN_TOKEN}
payments:
  pay_to: %q
  networks: ["eip155:84532"]
  settler: chain
  confirm: broadcast
  adopt_after: 3s
  chain:
    rpc_url: %q
    relayer_key_env: BOOKS_RELAYER_KEY
  custom_networks:
    - {caip2: "eip155:84532", v1_name: base-sepolia, chain_id: 84532, asset: %q, name: USDC, version: "2"}
models:
  - {name: paced, upstream: scripted, price: "0.001", pace: 20ms}
`, addr, storeLine, r.payTo.Hex(), a.RPCURL, a.Network.Asset.Hex())
	if err := os.WriteFile(r.config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.kill)
	return r
}

// TestFaultBooksCountEveryCallAfterKill9: N paid calls answered, farebox
// killed with SIGKILL right after the last answer (inside the books' write
// interval), started again on the same store: the books count exactly N
// paid calls, charged and settled exactly what the payer lost on chain and
// payTo gained; killed and started once more, they still do (nothing is
// counted twice). With the journal and books in a bbolt data directory,
// and in Redis.
func TestFaultBooksCountEveryCallAfterKill9(t *testing.T) {
	for _, tc := range []struct{ name, store string }{
		{"bbolt", "data_dir: " + filepath.Join(t.TempDir(), "data")},
		{"redis", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storeLine := tc.store
			if storeLine == "" {
				storeLine = fmt.Sprintf("store: %q", "redis://"+redistest.Start(t)+"/0")
			}
			booksSurviveKill9(t, newBooksRig(t, storeLine))
		})
	}
}

func booksSurviveKill9(t *testing.T, r *crashRig) {
	const n = 8
	r.start(t)
	root := strings.TrimSuffix(r.base, "/v1")
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	const funded = 100 * price
	if err := r.a.Fund(context.Background(), from, funded); err != nil {
		t.Fatal(err)
	}
	signer := payer.NewSigner(key)
	offer := r.offer(t)
	for i := range n {
		name, value, err := signer.PaymentHeader(offer, 2)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.post(context.Background(), fmt.Sprintf(`{"model":"paced","input":"booked call %d"}`, i), name, value)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(body), fmt.Sprintf("booked call %d", i)) {
			t.Fatalf("paid call %d: %d %s", i, res.StatusCode, body)
		}
	}
	r.kill() // right after the last answer: its row is at most queued
	r.start(t)

	want := books.USDC(n * price)
	got := awaitBooked(t, root, want)
	waitBalance(t, r, from, funded-n*price)
	if gain := r.balance(t, r.payTo).Int64(); gain != n*price {
		t.Errorf("payTo gained %d on chain, want %d", gain, n*price)
	}
	if f := got["paced"]; f.Calls != n || f.PaidCalls != n || f.Charged != want || f.Settled != want {
		t.Errorf("after kill -9 and a restart the books say %+v, want %d paid calls, charged and settled %s", f, n, want)
	}
	t.Logf("%d calls answered; after kill -9 the books count %d calls, %d paid, charged %s, settled %s",
		n, got["paced"].Calls, got["paced"].PaidCalls, got["paced"].Charged, got["paced"].Settled)

	// Killed and started again: the journal is read again, and every
	// purchase still counts once.
	r.kill()
	r.start(t)
	deadline := time.Now().Add(5 * time.Second)
	for {
		again := summaryOf(t, root, booksAdminToken)["paced"]
		if again != got["paced"] {
			t.Fatalf("after a second kill -9 the books say %+v, before %+v", again, got["paced"])
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// awaitBooked reads the summary until the paced model's paid calls and
// settled total are want (the restarted farebox confirms what was in
// flight and reads its journal), or fails after a minute.
func awaitBooked(t *testing.T, root, want string) map[string]modelFigures {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		s := summaryOf(t, root, booksAdminToken)
		if f := s["paced"]; f.Settled == want && f.Charged == want {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after the restart the books say %+v, want charged and settled %s", s["paced"], want)
		}
	}
}
