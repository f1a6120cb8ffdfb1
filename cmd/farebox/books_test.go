package main

import (
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/testenv"
)

// booksRange is a fixed window around now, so two reads of the summary
// (before and after a restart) ask about the same hours.
var booksRange = func() string {
	now := time.Now().UTC()
	return "from=" + now.Add(-2*time.Hour).Format(time.RFC3339) + "&to=" + now.Add(2*time.Hour).Format(time.RFC3339)
}()

// modelFigures is one model's entry of GET /admin/api/summary.
type modelFigures struct {
	Calls     int64  `json:"calls"`
	PaidCalls int64  `json:"paid_calls"`
	FreeCalls int64  `json:"free_calls"`
	Charged   string `json:"charged"`
	Settled   string `json:"settled"`
	Margin    string `json:"margin"`
}

// adminGet is GET root+path with the admin token ("" for none): the status
// and the body.
func adminGet(t *testing.T, root, path, token string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, root+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// summaryOf reads the books' summary per model.
func summaryOf(t *testing.T, root, token string) map[string]modelFigures {
	t.Helper()
	status, b := adminGet(t, root, "/admin/api/summary?"+booksRange, token)
	if status != http.StatusOK {
		t.Fatalf("summary: %d %s", status, b)
	}
	var s struct {
		Models map[string]modelFigures `json:"models"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, b)
	}
	return s.Models
}

// awaitSettled reads the summary until model's settled total is want: a
// transfer is mined after its answer, and the books must show it within
// 20 s (the operator's promise).
func awaitSettled(t *testing.T, root, token, model, want string) map[string]modelFigures {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		s := summaryOf(t, root, token)
		if s[model].Settled == want {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s the books say %s settled for %s, want %s: %+v", s[model].Settled, model, want, s)
		}
		<-tick.C
	}
}

// requireAdmin401 checks that the admin API refuses a missing and a wrong
// token with a 401 and an OpenAI-shaped error.
func requireAdmin401(t *testing.T, root string) {
	t.Helper()
	for _, tok := range []string{"", "0123456789abcdef0123456789abcdef"} {
		status, b := adminGet(t, root, "/admin/api/summary", tok)
		var e struct {
			Error *struct {
				Message string `json:"message"`
				Code    string `json:"code"`
			} `json:"error"`
		}
		if status != http.StatusUnauthorized || json.Unmarshal(b, &e) != nil || e.Error == nil || e.Error.Message == "" {
			t.Errorf("summary with token %q: %d %s, want a 401 error object", tok, status, b)
		}
	}
}

// freeCall makes one call of the free model.
func freeCall(t *testing.T, base string) {
	t.Helper()
	res, err := http.Post(base+"/responses", "application/json",
		strings.NewReader(`{"model":"farebox-scripted-free","input":"a free call"}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("free call: %d", res.StatusCode)
	}
}

// TestFareboxDevBooksMatchTheChain: after 3 paid calls at 0.001 and one
// free call on `farebox dev`, the admin summary (with the banner's token)
// says 0.003 settled for farebox-scripted, which is what payTo gained on
// chain; without the token it is a 401.
func TestFareboxDevBooksMatchTheChain(t *testing.T) {
	testenv.SkipShort(t, "farebox dev")
	_, banner := startDevCommand(t)
	base := field(t, banner, `base URL\s+(\S+)`)
	root := strings.TrimSuffix(base, "/v1")
	token := field(t, banner, `(?m)^\s*admin\s+(\S+)`)
	if len(token) < 16 {
		t.Fatalf("admin token %q: want one word of at least 16 characters", token)
	}
	rpcURL := field(t, banner, `chain RPC\s+(\S+)`)
	c, err := ethclient.Dial(rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	asset := common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`))
	payTo := common.HexToAddress(DevPayTo)
	requireAdmin401(t, root)

	before := tokenBalance(t, c, asset, payTo)
	key := field(t, banner, `private key\s+(0x[0-9a-f]{64})`)
	for i := range 3 {
		paidCall(t, c, rpcURL, base, key, "paid call "+string(rune('a'+i)))
	}
	freeCall(t, base)
	s := awaitSettled(t, root, token, "farebox-scripted", "0.003")
	gain := new(big.Int).Sub(tokenBalance(t, c, asset, payTo), before)
	if gain.Int64() != 3000 {
		t.Errorf("payTo gained %s on chain, want 3000 (the books say %s)", gain, s["farebox-scripted"].Settled)
	}
	if f := s["farebox-scripted"]; f.PaidCalls != 3 || f.Charged != "0.003" || f.Margin != "0.003" {
		t.Errorf("farebox-scripted: %+v, want 3 paid calls charged 0.003, margin 0.003", f)
	}
	if f := s["farebox-scripted-free"]; f.Calls != 1 || f.FreeCalls != 1 || f.Settled != "0" {
		t.Errorf("farebox-scripted-free: %+v, want one free call and nothing settled", f)
	}
}

// TestFareboxDevBooksSurviveARestart: `farebox dev --chain --data` keeps
// the books in its data directory: after SIGTERM (it exits within 40 s)
// and a start with the same flags, the summary is the same.
func TestFareboxDevBooksSurviveARestart(t *testing.T) {
	anvil := chaintest.StartAnvil(t, chaintest.BlockTime(time.Second))
	dir := t.TempDir()
	args := []string{"dev", "--addr", "127.0.0.1:0", "--log-level", "warn", "--chain", anvil.RPCURL, "--data", dir}
	p := startProcess(t, nil, args...)
	banner := p.waitOutput(t, "Try it:")
	base := field(t, banner, `base URL\s+(\S+)`)
	root := strings.TrimSuffix(base, "/v1")
	token := field(t, banner, `(?m)^\s*admin\s+(\S+)`)
	asset := common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`))
	payTo := common.HexToAddress(DevPayTo)
	before := tokenBalance(t, anvil.Client, asset, payTo)
	key := field(t, banner, `private key\s+(0x[0-9a-f]{64})`)
	for i := range 3 {
		paidCall(t, anvil.Client, anvil.RPCURL, base, key, "paid call "+string(rune('a'+i)))
	}
	freeCall(t, base)
	first := awaitSettled(t, root, token, "farebox-scripted", "0.003")
	if gain := new(big.Int).Sub(tokenBalance(t, anvil.Client, asset, payTo), before); gain.Int64() != 3000 {
		t.Errorf("payTo gained %s on chain, want 3000", gain)
	}

	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(40 * time.Second):
		t.Fatal("farebox dev did not exit within 40 s of SIGTERM")
	}

	p = startProcess(t, []string{"FAREBOX_ADMIN_TOKEN=" + token}, args...)
	banner = p.waitOutput(t, "Try it:")
	root = strings.TrimSuffix(field(t, banner, `base URL\s+(\S+)`), "/v1")
	if got := field(t, banner, `(?m)^\s*admin\s+(\S+)`); got != token {
		t.Errorf("FAREBOX_ADMIN_TOKEN was not taken: the banner prints %q", got)
	}
	again := summaryOf(t, root, token)
	for _, m := range []string{"farebox-scripted", "farebox-scripted-free"} {
		if again[m] != first[m] {
			t.Errorf("%s after the restart: %+v, before: %+v", m, again[m], first[m])
		}
	}
	requireAdmin401(t, root)
}

// TestReplicasShareTheBooks: with two replicas on one Redis, a call paid
// at one of them is in the books the other one answers.
func TestReplicasShareTheBooks(t *testing.T) {
	s := newReplicaSet(t, 2)
	signer, _ := s.fundedPayer(t, 10*price)
	name, value, err := signer.PaymentHeader(s.replicas[0].offer(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.replicas[0].post(context.Background(), `{"model":"paced","input":"booked once"}`, name, value)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("paid call: %d", res.StatusCode)
	}
	other := strings.TrimSuffix(s.replicas[1].base, "/v1")
	got := awaitSettled(t, other, replicaAdminToken, "paced", "0.001")
	if f := got["paced"]; f.PaidCalls != 1 || f.Charged != "0.001" {
		t.Errorf("replica 1's books of replica 0's call: %+v, want 1 paid call charged 0.001", f)
	}
}
