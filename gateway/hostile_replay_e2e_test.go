package gateway_test

import (
	"bytes"
	"context"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/upstream/scripted"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
)

// startPaidCounting is startPaid whose paid model counts its runs.
func startPaidCounting(t *testing.T) (*testServer, *devchain.Chain, *countingModel) {
	t.Helper()
	c := devChain(t)
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	m := &countingModel{inner: scripted.New(scripted.Options{})}
	cfg := paidConfig(c, "after")
	cfg.Models[0].Upstream, cfg.Models[0].UpstreamConfig = inprocess.Kind, inprocess.Use(m)
	ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready})
	return ts, c, m
}

// answer is one paid call's status and body (a stream's keep-alive
// comments left out: they depend on time).
type answer struct {
	status int
	body   string
}

func postAnswer(url, body, name, value string) answer {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(name, value)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{body: err.Error()}
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var kept [][]byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte(": keep-alive")) {
			kept = append(kept, line)
		}
	}
	return answer{res.StatusCode, string(bytes.Join(kept, nil))}
}

// One payment buys one model run: 20 concurrent and then 3 sequential
// retries of a paid call (same authorization, same body) are all answered
// with the answer it paid for, byte for byte, streamed or not; the model
// ran once and the payer paid once.
func TestHostileReplaysRunTheModelOnce(t *testing.T) {
	ts, c, m := startPaidCounting(t)
	for _, stream := range []bool{false, true} {
		name := "json"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			runs := m.calls.Load()
			before := tokenBalance(t, c, c.Payer)
			h, v, err := payer.NewSigner(c.PayerKey).PaymentHeader(offerFor(t, ts, c), 2)
			if err != nil {
				t.Fatal(err)
			}
			body := `{"model":"` + paid + `","input":"one payment, one run","stream":` + map[bool]string{false: "false", true: "true"}[stream] + `}`
			const concurrent, sequential = 20, 3
			answers := make([]answer, concurrent, concurrent+sequential)
			var wg sync.WaitGroup
			for i := range concurrent {
				wg.Add(1)
				go func() { defer wg.Done(); answers[i] = postAnswer(ts.URL+"/responses", body, h, v) }()
			}
			wg.Wait()
			for range sequential {
				answers = append(answers, postAnswer(ts.URL+"/responses", body, h, v))
			}
			for i, a := range answers {
				if a.status != 200 || !strings.Contains(a.body, "one payment, one run") {
					t.Fatalf("answer %d: %d %s", i, a.status, a.body)
				}
				if a.body != answers[0].body {
					t.Errorf("answer %d differs from the first:\n%s\n---\n%s", i, a.body, answers[0].body)
				}
			}
			if got := m.calls.Load() - runs; got != 1 {
				t.Errorf("the model ran %d times for one payment", got)
			}
			if spent := new(big.Int).Sub(before, tokenBalance(t, c, c.Payer)); spent.Int64() != atomics {
				t.Errorf("spent %s, want one price (%d)", spent, atomics)
			}
		})
	}
}
