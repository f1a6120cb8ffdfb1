package resell_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/resell"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// textOut keeps the text of an answer.
type textOut struct {
	responses.Output
	text strings.Builder
}

func (o *textOut) Text(d string) error { o.text.WriteString(d); return o.Output.Text(d) }

// failingSeller charges for every call and answers its paid attempts in
// turn with script's entries ("502", "503+60" for a Retry-After of 60 s,
// "400", "402", "reset", "cut": a stream reset after some text); past the
// script it answers from a fake model. It records the payment header of
// every paid attempt.
type failingSeller struct {
	mu      sync.Mutex
	script  []string
	headers []string
}

func (s *failingSeller) start(t *testing.T) string {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	target, _ := url.Parse(up.URL())
	forward := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get(x402.HeaderPaymentSignature)
		if h == "" {
			req := &x402.Requirement{Scheme: x402.SchemeExact, Network: x402.BaseSepolia, Amount: big.NewInt(100),
				PayTo: common.HexToAddress("0x1"), MaxTimeoutSeconds: 300, Resource: "http://" + r.Host + r.URL.Path}
			w.Header().Set(x402.HeaderPaymentRequired, x402.PaymentRequiredHeader([]*x402.Requirement{req}, "payment required"))
			w.WriteHeader(http.StatusPaymentRequired)
			return
		}
		s.mu.Lock()
		n := len(s.headers)
		s.headers = append(s.headers, h)
		step := ""
		if n < len(s.script) {
			step = s.script[n]
		}
		s.mu.Unlock()
		fail(w, r, step, forward)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// fail answers one paid attempt as step says.
func fail(w http.ResponseWriter, r *http.Request, step string, forward http.Handler) {
	switch step {
	case "":
		forward.ServeHTTP(w, r)
	case "cut": // the fake model's stream, broken after some text
		body, _ := io.ReadAll(r.Body)
		body = bytes.Replace(body, []byte(`"model":"fixed"`), []byte(`"model":"fixed+cut"`), 1)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		forward.ServeHTTP(w, r)
	case "reset":
		conn, _, _ := w.(http.Hijacker).Hijack()
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		conn.Close()
	default:
		status, after, _ := strings.Cut(step, "+")
		if after != "" {
			w.Header().Set("Retry-After", after)
		}
		code := map[string]int{"502": 502, "503": 503, "400": 400, "402": 402}[status]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, `{"error":{"message":"seller says `+step+`","type":"server_error","code":"`+map[bool]string{true: x402.ReasonNonceAlreadyUsed}[code == 402]+`"}}`)
	}
}

// A paid call that fails before any of its answer went out is sent again
// to the same seller with the same payment header (at most PaidRetries
// times, honouring a short Retry-After), and nothing is signed again; a
// 402 to a retry, a client error, a long Retry-After, or a failure after
// output began ends the call.
func TestPaidFailureRetriesTheSamePayment(t *testing.T) {
	for _, tc := range []struct {
		script   []string
		attempts int    // paid attempts the seller saw
		ok       bool   // the call was answered
		code     string // else the error's code
		wait     string // the first retry's logged wait
	}{
		{script: []string{"502"}, attempts: 2, ok: true, wait: "200ms"},
		{script: []string{"reset", "503+1"}, attempts: 3, ok: true, wait: "200ms"},
		{script: []string{"503+1"}, attempts: 2, ok: true, wait: "1s"},
		{script: []string{"502", "502", "502"}, attempts: 3, code: "server_error"},
		{script: []string{"502", "402"}, attempts: 2, code: resell.CodePaymentRefused},
		{script: []string{"503+60"}, attempts: 1, code: "server_error"},
		{script: []string{"400"}, attempts: 1},
		{script: []string{"cut"}, attempts: 1, code: "server_error"},
	} {
		t.Run(strings.Join(tc.script, ","), func(t *testing.T) {
			s := &failingSeller{script: tc.script}
			base := s.start(t)
			var logs bytes.Buffer
			key, _ := crypto.GenerateKey()
			reg, _ := x402.NewRegistry(x402.BaseSepolia)
			m, err := resell.New(resell.Config{BaseURL: base, Model: "fixed", Signer: payer.NewSigner(key), Networks: reg,
				MaxPrice: big.NewInt(1000), Log: slog.New(slog.NewJSONHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			req, perr := responses.Parse([]byte(`{"model":"resold","stream":true,"input":"hi"}`))
			if perr != nil {
				t.Fatal(perr)
			}
			out := &textOut{Output: responses.NewEmitter(req, responses.Discard{}, responses.EmitterOptions{})}
			err = m.Respond(context.Background(), req, out)
			if tc.ok != (err == nil) {
				t.Fatalf("Respond: %v", err)
			}
			var e *responses.Error
			if tc.code != "" && (!errors.As(err, &e) || e.Code != tc.code) {
				t.Errorf("error %v, want code %s", err, tc.code)
			}
			if tc.ok && out.text.String() != fakeupstream.DefaultText {
				t.Errorf("answered %q", out.text.String())
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			for _, h := range s.headers {
				if h != s.headers[0] {
					t.Fatal("a retry sent another payment header")
				}
			}
			if signed, _ := m.Spent(); signed.Int64() != 100 {
				t.Errorf("the wallet signed for %s, want one payment of 100", signed)
			}
			if len(s.headers) != tc.attempts {
				t.Errorf("the seller saw %d paid attempts, want %d", len(s.headers), tc.attempts)
			}
			if tc.wait != "" {
				first := gjson.Get(firstLine(logs.String(), "upstream retry with the same payment"), "wait").String()
				if first != tc.wait {
					t.Errorf("the first retry waited %q, want %q", first, tc.wait)
				}
			}
		})
	}
}

// firstLine is the first JSON log line whose msg is msg.
func firstLine(logs, msg string) string {
	for _, l := range strings.Split(logs, "\n") {
		if gjson.Get(l, "msg").String() == msg {
			return l
		}
	}
	return ""
}
