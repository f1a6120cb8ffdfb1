package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// crashRig is `farebox serve` as a process settling on anvil mining every
// 2 s, with its settlement journal in a data directory that outlives the
// process.
type crashRig struct {
	a       *chaintest.Anvil
	config  string
	base    string
	env     []string
	payTo   common.Address
	proc    *exec.Cmd
	crashed chan struct{}
}

func newCrashRig(t *testing.T, confirm string) *crashRig {
	a := chaintest.StartAnvil(t, chaintest.BlockTime(2*time.Second))
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
		env: []string{"CRASH_RELAYER_KEY=" + hexutil.Encode(crypto.FromECDSA(relayer))}}
	dir := t.TempDir()
	r.config = filepath.Join(dir, "farebox.yaml")
	yaml := fmt.Sprintf(`addr: %s
log_level: warn
data_dir: %s
payments:
  pay_to: %q
  networks: ["eip155:84532"]
  settler: chain
  confirm: %s
  chain:
    rpc_url: %q
    relayer_key_env: CRASH_RELAYER_KEY
  custom_networks:
    - {caip2: "eip155:84532", v1_name: base-sepolia, chain_id: 84532, asset: %q, name: USDC, version: "2"}
models:
  - {name: paced, upstream: scripted, price: "0.001", pace: 100ms}
`, addr, filepath.Join(dir, "data"), r.payTo.Hex(), confirm, a.RPCURL, a.Network.Asset.Hex())
	if err := os.WriteFile(r.config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.kill)
	return r
}

// start runs farebox serve and waits until it answers /healthz.
func (r *crashRig) start(t *testing.T) {
	t.Helper()
	r.proc = exec.Command(os.Args[0], "serve", "--config", r.config)
	r.proc.Env = append(append(os.Environ(), "FAREBOX_TEST_AS_MAIN=1"), r.env...)
	var logs syncBuffer
	r.proc.Stdout, r.proc.Stderr = &logs, &logs
	if err := r.proc.Start(); err != nil {
		t.Fatal(err)
	}
	r.crashed = make(chan struct{})
	go func() { r.proc.Wait(); close(r.crashed) }()
	health := strings.TrimSuffix(r.base, "/v1") + "/healthz"
	for deadline := time.Now().Add(time.Minute); ; {
		if res, err := http.Get(health); err == nil {
			res.Body.Close()
			return
		}
		select {
		case <-r.crashed:
			t.Fatalf("farebox serve exited: %s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("farebox serve never answered /healthz: %s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill ends the process with SIGKILL: no shutdown, no flush, nothing.
func (r *crashRig) kill() {
	if r.proc != nil && r.proc.Process != nil {
		r.proc.Process.Signal(syscall.SIGKILL)
		<-r.crashed
		r.proc = nil
	}
}

// offer reads the 402 for the paced model.
func (r *crashRig) offer(t *testing.T) *x402.Requirement {
	t.Helper()
	res, err := http.Post(r.base+"/responses", "application/json", strings.NewReader(`{"model":"paced","input":"price?"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	offers, err := x402.DecodePaymentRequired(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil || len(offers) == 0 {
		t.Fatalf("402 offers: %v", err)
	}
	reg, _ := x402.NewRegistry(r.a.Network)
	req, err := offers[0].Requirement(reg)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func (r *crashRig) post(ctx context.Context, body, name, value string) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.base+"/responses", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(name, value)
	return http.DefaultClient.Do(req)
}

func (r *crashRig) balance(t *testing.T, who common.Address) *big.Int {
	t.Helper()
	data := append(common.FromHex("0x70a08231"), common.LeftPadBytes(who.Bytes(), 32)...)
	out, err := r.a.Client.CallContract(context.Background(), ethereum.CallMsg{To: &r.a.Network.Asset, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// pendingTransactions is how many transactions anvil holds unmined.
func (r *crashRig) pendingTransactions(t *testing.T) int {
	var status struct{ Pending hexutil.Uint64 }
	if err := r.a.Client.Client().CallContext(context.Background(), &status, "txpool_status"); err != nil {
		t.Fatal(err)
	}
	return int(status.Pending)
}

// TestSIGKILLAtEveryStepLosesNothing kills farebox at each step of a paid
// call on anvil with 2 s blocks, restarts it on the same data directory,
// and retries the very same request (same authorization, same body): each
// time the client is served, charged exactly once, and given a receipt
// naming the mined transaction that charged it.
func TestSIGKILLAtEveryStepLosesNothing(t *testing.T) {
	for _, tc := range []struct {
		step    string
		confirm string
		stream  bool
		crash   func(t *testing.T, r *crashRig, body, name, value string)
	}{
		{"before the request", "broadcast", false, func(t *testing.T, r *crashRig, body, name, value string) {}},
		{"mid-stream, after the journal write", "broadcast", true, func(t *testing.T, r *crashRig, body, name, value string) {
			res, err := r.post(context.Background(), body, name, value)
			if err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(res.Body).ReadString('\n') // the stream has started: the purchase is journaled
			if err != nil || !strings.HasPrefix(line, "event: ") {
				t.Fatalf("stream start %q: %v", line, err)
			}
			r.kill()
			res.Body.Close()
		}},
		{"after broadcast, before the block", "mined", false, func(t *testing.T, r *crashRig, body, name, value string) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				if res, err := r.post(ctx, body, name, value); err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
			}()
			for deadline := time.Now().Add(time.Minute); r.pendingTransactions(t) == 0; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the settlement never reached the node's pool")
				}
			}
			r.kill()
		}},
		{"after the answer", "broadcast", false, func(t *testing.T, r *crashRig, body, name, value string) {
			res, err := r.post(context.Background(), body, name, value)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("first answer: %d", res.StatusCode)
			}
			r.kill()
		}},
	} {
		t.Run(tc.step, func(t *testing.T) {
			r := newCrashRig(t, tc.confirm)
			r.start(t)
			key, _ := crypto.GenerateKey()
			from := crypto.PubkeyToAddress(key.PublicKey)
			if err := r.a.Fund(context.Background(), from, 10_000); err != nil {
				t.Fatal(err)
			}
			name, value, err := payer.NewSigner(key).PaymentHeader(r.offer(t), 2)
			if err != nil {
				t.Fatal(err)
			}
			body := fmt.Sprintf(`{"model":"paced","input":"survive %s","stream":%v}`, tc.step, tc.stream)
			tc.crash(t, r, body, name, value)
			r.kill()
			r.start(t)
			// The retry, as the SDKs make it: a 409 payment_in_progress (the
			// resumed transfer is still being followed) is retried.
			var res *http.Response
			var answer []byte
			for attempt := 0; ; attempt++ {
				var err error
				if res, err = r.post(context.Background(), body, name, value); err != nil {
					t.Fatal(err)
				}
				answer, _ = io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusConflict || attempt == 60 {
					break
				}
				time.Sleep(500 * time.Millisecond)
			}
			if res.StatusCode != 200 || !strings.Contains(string(answer), "survive") {
				t.Fatalf("the retry after the crash: %d %s", res.StatusCode, answer)
			}
			rc := receiptOf(t, res, answer)
			if !rc.Success || rc.Transaction == "" {
				t.Fatalf("the retry's receipt: %+v", rc)
			}
			mined := waitMined(t, r, common.HexToHash(rc.Transaction))
			if mined.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("the receipt's transaction %s reverted", rc.Transaction)
			}
			waitBalance(t, r, from, 10_000-1_000)
			if got := r.balance(t, r.payTo); got.Int64() != 1_000 {
				t.Errorf("payTo received %s, want exactly one price", got)
			}
		})
	}
}

// receiptOf reads the receipt of an answer: the header, or the stream's
// in-band x402 field.
func receiptOf(t *testing.T, res *http.Response, body []byte) *x402.Receipt {
	t.Helper()
	if h := res.Header.Get(x402.HeaderPaymentResponse); h != "" {
		rc, err := x402.DecodeReceipt(h)
		if err != nil {
			t.Fatal(err)
		}
		return rc
	}
	for _, line := range strings.Split(string(body), "\n") {
		d, ok := strings.CutPrefix(line, "data: ")
		if raw := gjson.Get(d, "response.x402"); ok && raw.IsObject() {
			var rc x402.Receipt
			if err := json.Unmarshal([]byte(raw.Raw), &rc); err != nil {
				t.Fatal(err)
			}
			return &rc
		}
	}
	t.Fatalf("no receipt in the answer: %s", body)
	return nil
}

func waitMined(t *testing.T, r *crashRig, tx common.Hash) *types.Receipt {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if rc, err := r.a.Client.TransactionReceipt(context.Background(), tx); err == nil {
			return rc
		}
		if time.Now().After(deadline) {
			t.Fatalf("transaction %s never mined", tx.Hex())
		}
	}
}

// waitBalance waits for from's balance to reach want, then watches two
// more blocks: a second charge (a resubmission, a double settlement) would
// take it below.
func waitBalance(t *testing.T, r *crashRig, from common.Address, want int64) {
	t.Helper()
	ctx := context.Background()
	var settledAt uint64
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		got := r.balance(t, from).Int64()
		if got < want {
			t.Fatalf("payer holds %d, less than %d: charged twice", got, want)
		}
		head, err := r.a.Client.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case got == want && settledAt == 0:
			settledAt = head
		case got != want && settledAt != 0:
			t.Fatalf("payer balance moved again to %d", got)
		case settledAt != 0 && head >= settledAt+2:
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("payer holds %d, want %d", got, want)
		}
	}
}
