package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	fb "github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// leavingModel writes some text, tells the test, and waits for the client
// to leave: the call a client abandons.
type leavingModel struct{ started chan struct{} }

func (m leavingModel) Respond(ctx context.Context, req *fb.Request, em fb.Output) error {
	em.Text("an answer nobody reads")
	m.started <- struct{}{}
	<-ctx.Done()
	return ctx.Err()
}

// denyingModel only calls a tool the client did not declare.
type denyingModel struct{}

func (denyingModel) Respond(ctx context.Context, req *fb.Request, em fb.Output) error {
	if err := em.StartCall("call_1", "rm_rf"); err != nil {
		return err
	}
	return em.Arguments("{}")
}

// unaccounted is the chain settler without its balance reads: no in-flight
// accounting, as with a settler that cannot read balances, so an unfunded
// payer reaches the model and its settlement fails (the rows below that
// need one). TestPayerRacingItsBalanceIsServedOnce has the accounting on.
type unaccounted struct{ s *evm.Settler }

func (u unaccounted) Settle(ctx context.Context, p *x402.Payment, req *x402.Requirement) (*x402.Receipt, error) {
	return u.s.Settle(ctx, p, req)
}

func (u unaccounted) Broadcast(ctx context.Context, p *x402.Payment, req *x402.Requirement, onSigned func(common.Hash) error) (*x402.Receipt, error) {
	return u.s.Broadcast(ctx, p, req, onSigned)
}

func (u unaccounted) Await(ctx context.Context, tx common.Hash, p *x402.Payment) error {
	return u.s.Await(ctx, tx, p)
}

func (u unaccounted) AuthorizationUsed(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error) {
	return u.s.AuthorizationUsed(ctx, p, req)
}

// Every path through a paid call ends in exactly one recorded outcome, and
// the chain agrees: settled calls moved exactly the price, released and
// kept ones moved nothing. Under settle: after an exact transfer is sent
// as the model starts, so a model that fails afterwards is paid for.
func TestEveryPaidCallEndsInOneOutcome(t *testing.T) {
	c := devChain(t)
	leaving := leavingModel{started: make(chan struct{}, 1)}
	start := func(t *testing.T, settle string) *testServer {
		st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
		if err != nil {
			t.Fatal(err)
		}
		st.PollInterval = 10 * time.Millisecond
		cfg := paidConfig(c, settle)
		for n, m := range map[string]fb.Model{"broken-early": brokenModel{}, "broken-midway": brokenModel{before: 3},
			"leaving": leaving, "denying": denyingModel{}} {
			cfg.Models = append(cfg.Models, gateway.ModelConfig{Name: n, Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(m), Price: price})
		}
		return startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: unaccounted{st}})
	}
	funded := func() *ecdsa.PrivateKey {
		k, _ := crypto.GenerateKey()
		if err := c.Fund(context.Background(), crypto.PubkeyToAddress(k.PublicKey), big.NewInt(10*atomics)); err != nil {
			t.Fatal(err)
		}
		return k
	}
	broke := func() *ecdsa.PrivateKey { k, _ := crypto.GenerateKey(); return k }
	for _, tt := range []struct {
		name    string
		settle  string
		model   string
		stream  bool
		key     func() *ecdsa.PrivateKey
		leave   bool
		status  int
		outcome string
		spent   int64
	}{
		{"answer delivered", "after", paid, false, funded, false, 200, "settled", atomics},
		{"stream delivered", "after", paid, true, funded, false, 200, "settled", atomics},
		// An exact transfer goes with the model: what the model does next
		// cannot undo it (the same request and payment run it again).
		{"model failed before output", "after", "broken-early", false, funded, false, 502, "settled", atomics},
		{"model failed before a stream started", "after", "broken-early", true, funded, false, 502, "settled", atomics},
		{"stream broken mid-way by the upstream", "after", "broken-midway", true, funded, false, 200, "settled", atomics},
		{"answer with output then a failure", "after", "broken-midway", false, funded, false, 502, "settled", atomics},
		{"only calls the client may not get", "after", "denying", false, funded, false, 502, "settled", atomics},
		{"client left before the answer was written", "after", "leaving", false, funded, true, 0, "settled", atomics},
		{"client left mid-stream", "after", "leaving", true, funded, true, 0, "settled", atomics},
		// The model ran for a payment that did not pay: spent, and a debt.
		{"answer whose settlement failed", "after", paid, false, broke, false, 402, "kept", 0},
		{"stream whose settlement failed", "after", paid, true, broke, false, 402, "kept", 0},
		{"settled before, answer delivered", "before", paid, false, funded, false, 200, "settled", atomics},
		{"settled before, model failed", "before", "broken-early", false, funded, false, 502, "settled", atomics},
		{"settlement before the model failed", "before", paid, false, broke, false, 402, "released", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := start(t, tt.settle)
			key := tt.key()
			from := crypto.PubkeyToAddress(key.PublicKey)
			name, value, err := payer.NewSigner(key).PaymentHeader(offerFor(t, ts, c), 2)
			if err != nil {
				t.Fatal(err)
			}
			before := tokenBalance(t, c, from)
			body := `{"model":"` + tt.model + `","input":"hi","stream":` + map[bool]string{true: "true", false: "false"}[tt.stream] + `}`
			if tt.leave {
				leaveCall(t, ts.URL+"/responses", body, leaving.started, name, value)
			} else {
				res, b := post(t, ts.URL+"/responses", body, name, value)
				if res.StatusCode != tt.status {
					t.Fatalf("status %d, want %d: %s", res.StatusCode, tt.status, b)
				}
			}
			outcomes := waitForOutcome(t, ts)
			for _, o := range []string{"settled", "released", "kept"} {
				want := int64(0)
				if o == tt.outcome {
					want = 1
				}
				if outcomes[o] != want {
					t.Errorf("outcome %s counted %d times, want %d (all: %v)", o, outcomes[o], want, outcomes)
				}
			}
			if spent := new(big.Int).Sub(before, tokenBalance(t, c, from)); spent.Int64() != tt.spent {
				t.Errorf("payer spent %s, want %d", spent, tt.spent)
			}
			if tt.outcome == "kept" {
				// Served (or run) without paying: in debt, refused before the model.
				name, value, err := payer.NewSigner(key).PaymentHeader(offerFor(t, ts, c), 2)
				if err != nil {
					t.Fatal(err)
				}
				res, b := post(t, ts.URL+"/responses", body, name, value)
				if res.StatusCode != 402 || gjson.GetBytes(b, "error.code").String() != x402.ReasonInsufficientFunds ||
					!strings.Contains(string(b), "earlier payment") {
					t.Errorf("the next call of a payer in debt: %d %s", res.StatusCode, b)
				}
			}
		})
	}
}

// leaveCall sends a paid call and leaves once the model has started.
func leaveCall(t *testing.T, url, body string, started chan struct{}, headers ...string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headers[0], headers[1])
	done := make(chan struct{})
	go func() {
		defer close(done)
		if res, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	}()
	<-started
	cancel()
	<-done
}

// waitForOutcome reads the charge outcomes from /metrics until one is
// recorded (a client that left is charged after it left).
func waitForOutcome(t *testing.T, ts *testServer) map[string]int64 {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(strings.TrimSuffix(ts.URL, "/v1") + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got := map[string]int64{}
		var n int64
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, `farebox_charges_total{outcome="`); ok {
				o, v, _ := strings.Cut(rest, `"} `)
				got[o] = gjson.Parse(v).Int()
				n += got[o]
			}
		}
		if n > 0 || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}
