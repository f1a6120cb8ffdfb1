package gateway_test

import (
	"bufio"
	"context"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// The hostile payers of Responses on the Chat Completions and Messages
// wires: a payment replayed, funds moved away while the model runs. The
// chain and the model's own count judge.

// wireOffer is the requirement a wire's 402 offers for body (its
// resource is the wire's URL).
func wireOffer(t *testing.T, url, body string, n *x402.Network) *x402.Requirement {
	t.Helper()
	res, b := clientPost(t, http.DefaultClient, url, body)
	offers, err := x402.DecodePaymentRequired(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil || len(offers) != 1 {
		t.Fatalf("%s offers %v %v: %d %s", url, offers, err, res.StatusCode, b)
	}
	reg, err := x402.NewRegistry(n)
	if err != nil {
		t.Fatal(err)
	}
	req, err := offers[0].Requirement(reg)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// withoutKeepAlives is a stream's body without the frames that depend on
// time (chat's keep-alive comments, Anthropic's pings).
func withoutKeepAlives(b []byte) string {
	var kept []string
	for _, ev := range strings.SplitAfter(string(b), "\n\n") {
		if !strings.HasPrefix(ev, ": keep-alive") && !strings.HasPrefix(ev, "event: ping") {
			kept = append(kept, ev)
		}
	}
	return strings.Join(kept, "")
}

// A used payment on each wire: retried with the same body it gets the
// answer it paid for, byte for byte, streamed or not, the model run once;
// with another body, or on the other wire, it is a 402 in the wire's
// shape that runs nothing. The payer paid one price per purchase.
func TestWireHostileReplaysOfAUsedPayment(t *testing.T) {
	ts, c, m := startPaidCounting(t)
	signer := payer.NewSigner(c.PayerKey)
	for i, w := range hostileWires {
		other := hostileWires[1-i]
		t.Run(w.name, func(t *testing.T) {
			runs := m.calls.Load()
			before := tokenBalance(t, c, c.Payer)
			for _, extra := range []string{"", `,"stream":true`} {
				body := w.body(paid, "one payment, one run on "+w.name, extra)
				h, v, err := signer.PaymentHeader(wireOffer(t, ts.URL+w.path, body, c.Network), 2)
				if err != nil {
					t.Fatal(err)
				}
				var first string
				for n := range 3 {
					res, b := clientPost(t, http.DefaultClient, ts.URL+w.path, body, h, v)
					got := withoutKeepAlives(b)
					// A stream carries the text in pieces: its receipt says it was paid.
					answered := strings.Contains(got, "one payment, one run") || (extra != "" && strings.Contains(got, `"success":true`))
					if res.StatusCode != http.StatusOK || !answered {
						t.Fatalf("try %d%s: %d %s", n, extra, res.StatusCode, b)
					}
					if n == 0 {
						first = got
					} else if got != first {
						t.Errorf("retry %d%s differs from the first answer:\n%s\n---\n%s", n, extra, got, first)
					}
				}
				res, b := clientPost(t, http.DefaultClient, ts.URL+w.path, w.body(paid, "something else", extra), h, v)
				w.refused(t, res.StatusCode, b, http.StatusPaymentRequired, x402.ReasonNonceAlreadyUsed)
				res, b = clientPost(t, http.DefaultClient, ts.URL+other.path, other.body(paid, "one payment, one run on "+w.name, extra), h, v)
				other.refused(t, res.StatusCode, b, http.StatusPaymentRequired, "")
			}
			if got := m.calls.Load() - runs; got != 2 {
				t.Errorf("the model ran %d times for two payments", got)
			}
			settledBalances(t, c)
			if spent := new(big.Int).Sub(before, tokenBalance(t, c, c.Payer)); spent.Int64() != 2*atomics {
				t.Errorf("spent %s, want two prices (%d)", spent, 2*atomics)
			}
		})
	}
}

// A payer outbids its own exact transfer while the model runs, on each
// wire (the Responses case of TestHostileFundedForNOutbidsTheTransfers):
// the transfer fails on chain, the model run is cancelled, the call is a
// 402 in the wire's shape with nothing of the answer, payTo has nothing,
// and the payer's next call is refused for its debt, in the wire's shape.
func TestWireHostileOutbidWhileTheModelRuns(t *testing.T) {
	for _, w := range hostileWires {
		t.Run(w.name, func(t *testing.T) {
			m := &runHoldingModel{release: make(chan struct{})}
			f := startHeldFarebox(t, m)
			key, from := fundedPayer(t, f, atomics)
			req := wireOffer(t, f.URL+w.path, w.body(usdcModel, "hi", ""), f.a.Network)
			ctx := context.Background()
			rpc := manualMining(t, f.a)
			name, value, err := payer.NewSigner(key).PaymentHeader(req, 2)
			if err != nil {
				t.Fatal(err)
			}
			type answer struct {
				status int
				body   []byte
			}
			done := make(chan answer, 1)
			release := sync.OnceFunc(func() { close(m.release) })
			t.Cleanup(release)
			go func() {
				hreq, _ := http.NewRequest(http.MethodPost, f.URL+w.path, strings.NewReader(w.body(usdcModel, "outbid", "")))
				hreq.Header.Set("Content-Type", "application/json")
				hreq.Header.Set(name, value)
				res, err := (&http.Client{Timeout: 60 * time.Second}).Do(hreq)
				if err != nil {
					done <- answer{0, []byte(err.Error())}
					return
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				done <- answer{res.StatusCode, b}
			}()
			m.awaitRuns(t, 1)
			root := strings.TrimSuffix(f.URL, "/v1")
			waitMetric(t, root, "farebox_settlement_events_total", 1, "event", "broadcast")
			if err := f.a.Client.SendTransaction(ctx, drainTx(t, f, key, from, atomics)); err != nil {
				t.Fatal(err)
			}
			if err := rpc.CallContext(ctx, nil, "evm_mine"); err != nil {
				t.Fatal(err)
			}
			got := <-done // the run is cancelled when the block shows the transfer failed
			release()
			w.refused(t, got.status, got.body, http.StatusPaymentRequired, "")
			if strings.Contains(string(got.body), "first delta") || m.cancelled.Load() != 1 || m.finished.Load() != 0 {
				t.Errorf("the outbid call: %s; %d runs cancelled, %d finished", got.body, m.cancelled.Load(), m.finished.Load())
			}
			if err := rpc.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
				t.Fatal(err)
			}
			waitMetric(t, root, "farebox_settlement_events_total", 1, "event", "failed")
			if paid := usdcBalance(t, f.a, f.payTo); paid.Sign() != 0 {
				t.Errorf("payTo received %s", paid)
			}
			if err := f.a.Fund(ctx, from, atomics); err != nil {
				t.Fatal(err)
			}
			name, value, err = payer.NewSigner(key).PaymentHeader(req, 2)
			if err != nil {
				t.Fatal(err)
			}
			res, b := postBounded(t, f.URL+w.path, w.body(usdcModel, "again", ""), name, value)
			w.refused(t, res.StatusCode, b, http.StatusPaymentRequired, "")
			if !strings.Contains(string(b), "earlier payment") || m.runs.Load() != 1 {
				t.Errorf("the payer's next call: %d %s (%d runs), want refused for its debt", res.StatusCode, b, m.runs.Load())
			}
		})
	}
}

// A stream paid with exact whose transfer fails on chain after its first
// delta (the payer outbids it): on each wire the stream stops at once
// with the wire's error frame (chat's error data line, Anthropic's error
// event), carrying nothing more of the answer; payTo has nothing.
func TestWireHostileStreamTransferFailsMidStream(t *testing.T) {
	for _, w := range hostileWires {
		t.Run(w.name, func(t *testing.T) {
			m := newHeldModel()
			f := startHeldFarebox(t, m)
			key, from := fundedPayer(t, f, atomics)
			body := w.body(usdcModel, "stream me", `,"stream":true`)
			name, value, err := payer.NewSigner(key).PaymentHeader(wireOffer(t, f.URL+w.path, body, f.a.Network), 2)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			rpc := manualMining(t, f.a)
			hreq, _ := http.NewRequest(http.MethodPost, f.URL+w.path, strings.NewReader(body))
			hreq.Header.Set("Content-Type", "application/json")
			hreq.Header.Set(name, value)
			res, err := (&http.Client{Timeout: 60 * time.Second}).Do(hreq)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("stream: %d", res.StatusCode)
			}
			sc := bufio.NewScanner(res.Body)
			var lines []string
			for sc.Scan() {
				lines = append(lines, sc.Text())
				if strings.Contains(sc.Text(), "first delta") {
					break
				}
			}
			if err := f.a.Client.SendTransaction(ctx, drainTx(t, f, key, from, atomics)); err != nil {
				t.Fatal(err)
			}
			if err := rpc.CallContext(ctx, nil, "evm_mine"); err != nil {
				t.Fatal(err)
			}
			for sc.Scan() { // the model is still held: only farebox can end the stream
				lines = append(lines, sc.Text())
			}
			close(m.hold)
			all := strings.Join(lines, "\n")
			wantEnd := map[string]string{"chat": `data: {"error":`, "messages": "event: error"}[w.name]
			if strings.Contains(all, "second delta") || !strings.Contains(all, wantEnd) ||
				!strings.Contains(all, x402.ReasonInsufficientFunds) {
				t.Fatalf("the stream after its transfer failed (want %q naming %s):\n%s", wantEnd, x402.ReasonInsufficientFunds, all)
			}
			if strings.Contains(all, "message_stop") || strings.Contains(all, `"finish_reason":"stop"`) {
				t.Errorf("the failed stream ended as if complete:\n%s", all)
			}
			if err := rpc.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
				t.Fatal(err)
			}
			waitMetric(t, strings.TrimSuffix(f.URL, "/v1"), "farebox_settlement_events_total", 1, "event", "failed")
			if paid := usdcBalance(t, f.a, f.payTo); paid.Sign() != 0 {
				t.Errorf("payTo received %s", paid)
			}
		})
	}
}
