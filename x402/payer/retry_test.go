package payer_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// flakyShop takes every valid payment it is shown (recording its nonce)
// and then fails the first `failures` paid attempts of each purchase the
// way real networks do: 502, 503, or a reset connection. A re-presented
// authorization is served (an idempotent server), so the only way to pay
// twice is for the client to sign twice.
type flakyShop struct {
	shop
	failures int
	fail     string // "502", "503", "reset", "cut" (a 200 stream reset half way)
	declare  bool   // declare the payment-identifier extension

	nonces   []string          // every nonce presented, in order
	ids      []string          // every payment-identifier id presented
	attempts map[string]int    // paid attempts per nonce
	bodyOf   map[string]string // nonce -> body it paid for
}

const answer = `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"served","annotations":[]}]}]}`

func (s *flakyShop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	reqs := s.requirements(r)
	header := r.Header.Get(x402.HeaderPaymentSignature)
	if header == "" {
		pr := x402.PaymentRequiredHeader(reqs, "payment required")
		if s.declare {
			pr = withPaymentIdentifier(s.t, pr)
		}
		w.Header().Set(x402.HeaderPaymentRequired, pr)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusPaymentRequired)
		io.WriteString(w, `{"error":{"message":"pay","type":"invalid_request_error","code":"payment_required"}}`)
		return
	}
	p, err := x402.DecodePayment(header, 2)
	if err == nil {
		_, err = s.verifier.Verify(r.Context(), p, reqs)
	}
	if err != nil {
		w.WriteHeader(http.StatusPaymentRequired)
		io.WriteString(w, `{"error":{"message":"bad","code":"invalid_exact_evm_payload_signature"}}`)
		return
	}
	nonce := hex.EncodeToString(p.Authorization.Nonce[:])
	s.mu.Lock()
	s.nonces = append(s.nonces, nonce)
	s.ids = append(s.ids, payer.PaymentID(header))
	s.attempts[nonce]++
	n := s.attempts[nonce]
	if prev, ok := s.bodyOf[nonce]; ok && prev != string(body) {
		s.t.Errorf("one authorization paid for two different bodies")
	}
	s.bodyOf[nonce] = string(body)
	s.mu.Unlock()
	if n <= s.failures {
		switch s.fail {
		case "502", "503":
			w.Header().Set("Retry-After-Ms", "1") // keep the SDK's backoff short
			w.WriteHeader(map[string]int{"502": 502, "503": 503}[s.fail])
			io.WriteString(w, `{"error":{"message":"upstream failed","type":"server_error"}}`)
		case "reset":
			reset(w)
		case "hang": // until the client gives up
			<-r.Context().Done()
		case "cut":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			io.WriteString(w, "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":"+answer+"}\n\n")
			w.(http.Flusher).Flush()
			reset(w)
		}
		return
	}
	w.Header().Set(x402.HeaderPaymentResponse, x402.EncodeReceipt(&x402.Receipt{Success: true, Transaction: "0x01", Network: p.Network}))
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, answer)
}

// reset drops the connection with a TCP RST.
func reset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

func withPaymentIdentifier(t *testing.T, header string) string {
	offers, err := x402.DecodePaymentRequired(header)
	if err != nil || len(offers) == 0 {
		t.Fatal(err)
	}
	raw := decodeB64(t, header)
	raw = strings.TrimSuffix(raw, "}") + `,"extensions":{"payment-identifier":{"info":{},"schema":{"type":"object","properties":{"id":{"type":"string","minLength":16,"maxLength":128}}}}}}`
	return encodeB64(raw)
}

func newFlakyShop(t *testing.T, failures int, fail string) (*flakyShop, *httptest.Server) {
	s := &flakyShop{shop: shop{t: t, amount: big.NewInt(1000)},
		failures: failures, fail: fail, attempts: map[string]int{}, bodyOf: map[string]string{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

// TestOpenAIDefaultRetriesPayOnce is the README's openai-go example, with
// openai-go's default retries, against a server that takes the payment and
// then fails: every purchase is paid with exactly one authorization, and
// the answer still arrives.
func TestOpenAIDefaultRetriesPayOnce(t *testing.T) {
	for _, tc := range []struct {
		fail     string
		failures int
	}{{"502", 1}, {"503", 2}, {"reset", 1}, {"reset", 2}} {
		t.Run(tc.fail, func(t *testing.T) {
			// openai-go's own backoff (half a second and more per retry) is
			// most of this test's time: the cases wait side by side.
			t.Parallel()
			s, srv := newFlakyShop(t, tc.failures, tc.fail)
			var signed int
			var receipts []*x402.Receipt
			tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.OnReceipt(func(r *x402.Receipt) { receipts = append(receipts, r) }))
			client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("unused"),
				option.WithHTTPClient(&http.Client{Transport: tr})) // default retries: 2
			ctx := payer.WithHooks(context.Background(), &payer.Hooks{Signed: func(*x402.Requirement, *x402.Payment) { signed++ }})
			for i, prompt := range []string{"first purchase", "second purchase"} {
				res, err := client.Responses.New(ctx, responses.ResponseNewParams{Model: "m",
					Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(prompt)}})
				if err != nil {
					t.Fatalf("purchase %d: %v", i, err)
				}
				if res.OutputText() != "served" {
					t.Fatalf("answer %q", res.OutputText())
				}
			}
			distinct := map[string]bool{}
			for _, n := range s.nonces {
				distinct[n] = true
			}
			if len(distinct) != 2 || signed != 2 {
				t.Fatalf("two purchases used %d authorizations (%d signed), want 2: nonces %v", len(distinct), signed, s.nonces)
			}
			if len(s.nonces) != 2*(tc.failures+1) {
				t.Fatalf("server saw %d paid attempts, want %d", len(s.nonces), 2*(tc.failures+1))
			}
			for n, a := range s.attempts {
				if a != tc.failures+1 {
					t.Errorf("nonce %s presented %d times, want %d", n[:8], a, tc.failures+1)
				}
			}
			if len(receipts) != 2 {
				t.Errorf("got %d receipts, want 2", len(receipts))
			}
		})
	}
}

// TestCutStreamRetryPresentsTheSameAuthorization: a 200 stream cut short
// is an unknown outcome: the caller's retry presents the same payment.
func TestCutStreamRetryPresentsTheSameAuthorization(t *testing.T) {
	s, srv := newFlakyShop(t, 1, "cut")
	s.declare = true
	tr := payer.NewTransport(payer.NewSigner(payerKey(t)))
	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("unused"), option.WithHTTPClient(&http.Client{Transport: tr}))
	params := responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("stream")}}
	stream := client.Responses.NewStreaming(context.Background(), params)
	for stream.Next() {
	}
	if stream.Err() == nil {
		t.Fatal("the cut stream ended without an error")
	}
	retry := client.Responses.NewStreaming(context.Background(), params) // the caller retries the same request
	for retry.Next() {
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	distinct := map[string]bool{}
	for _, n := range s.nonces {
		distinct[n] = true
	}
	if len(s.nonces) < 2 || len(distinct) != 1 {
		t.Fatalf("nonces %v: want the cut purchase's authorization presented again", s.nonces)
	}
	if s.ids[0] == "" || s.ids[0] != s.ids[len(s.ids)-1] {
		t.Fatalf("payment-identifier ids %v: want one id, sent on every attempt", s.ids)
	}
}

// TestRefusalThatProvesNothingWasSpentSignsAnew: a remembered authorization
// the server refuses for a bad signature is replaced; one refused as
// already used is not.
func TestRefusalThatProvesNothingWasSpentSignsAnew(t *testing.T) {
	for _, tc := range []struct {
		reason  string
		replace bool
	}{{x402.ReasonSignature, true}, {x402.ReasonNonceAlreadyUsed, false}, {x402.ReasonValidBefore, false}} {
		t.Run(tc.reason, func(t *testing.T) {
			var mu sync.Mutex
			var nonces []string
			refuse := true
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reqs := []*x402.Requirement{{Scheme: x402.SchemeExact, Network: x402.BaseSepolia, Amount: big.NewInt(10), PayTo: payTo, MaxTimeoutSeconds: 60, Resource: "http://x/"}}
				h := r.Header.Get(x402.HeaderPaymentSignature)
				w.Header().Set(x402.HeaderPaymentRequired, x402.PaymentRequiredHeader(reqs, ""))
				if h == "" {
					w.WriteHeader(402)
					return
				}
				p, _ := x402.DecodePayment(h, 2)
				mu.Lock()
				defer mu.Unlock()
				nonces = append(nonces, hex.EncodeToString(p.Authorization.Nonce[:]))
				switch {
				case len(nonces) == 1:
					w.WriteHeader(502) // taken, outcome unknown
				case refuse && len(nonces) == 2:
					w.WriteHeader(402)
					io.WriteString(w, `{"error":{"message":"no","code":"`+tc.reason+`"}}`)
				default:
					io.WriteString(w, "{}")
				}
			}))
			defer srv.Close()
			tr := payer.NewTransport(payer.NewSigner(payerKey(t)))
			c := &http.Client{Transport: tr}
			var signed, voided int
			ctx := payer.WithHooks(context.Background(), &payer.Hooks{
				Signed: func(*x402.Requirement, *x402.Payment) { signed++ },
				Void:   func(*x402.Requirement, *x402.Payment) { voided++ },
			})
			var codes []int
			for i := 0; i < 2; i++ {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{"same":"body"}`))
				resp, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				codes = append(codes, resp.StatusCode)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.replace {
				if len(nonces) != 3 || nonces[0] != nonces[1] || nonces[2] == nonces[1] || codes[1] != 200 || signed != 2 || voided != 1 {
					t.Fatalf("nonces %v codes %v signed %d voided %d: want the refused authorization voided and replaced once", nonces, codes, signed, voided)
				}
			} else if len(nonces) != 2 || nonces[0] != nonces[1] || codes[1] != 402 || signed != 1 || voided != 0 {
				t.Fatalf("nonces %v codes %v signed %d voided %d: want no second authorization", nonces, codes, signed, voided)
			}
		})
	}
}

// TestTimeoutRetryPresentsTheSameAuthorization: openai-go does not retry
// an attempt that hit its own timeout; the caller's retry of the same
// request presents the authorization the server already took.
func TestTimeoutRetryPresentsTheSameAuthorization(t *testing.T) {
	s, srv := newFlakyShop(t, 1, "hang")
	tr := payer.NewTransport(payer.NewSigner(payerKey(t)))
	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("unused"),
		option.WithHTTPClient(&http.Client{Transport: tr}), option.WithRequestTimeout(300*time.Millisecond))
	params := responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("slow")}}
	if _, err := client.Responses.New(context.Background(), params); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("first attempt: %v, want a timeout", err)
	}
	res, err := client.Responses.New(context.Background(), params)
	if err != nil || res.OutputText() != "served" {
		t.Fatalf("retry: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.nonces) != 2 || s.nonces[0] != s.nonces[1] {
		t.Fatalf("nonces %v: want the timed-out authorization presented again", s.nonces)
	}
}

// TestBudgetHookRefusesBeforeSigning: Authorize's error means nothing is
// signed and the caller gets the server's 402.
func TestBudgetHookRefusesBeforeSigning(t *testing.T) {
	s, srv := newShop(t, 1000)
	tr := payer.NewTransport(payer.NewSigner(payerKey(t)))
	over := errors.New("over budget")
	var refused error
	var signed int
	ctx := payer.WithHooks(context.Background(), &payer.Hooks{
		Authorize: func(req *x402.Requirement) error { return over },
		Signed:    func(*x402.Requirement, *x402.Payment) { signed++ },
		Refused:   func(err error) { refused = err },
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("{}"))
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 402 || signed != 0 || !errors.Is(refused, over) || len(s.bodies) != 1 {
		t.Fatalf("status %d, signed %d, refused %v, %d requests", resp.StatusCode, signed, refused, len(s.bodies))
	}
}

func decodeB64(t *testing.T, s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func encodeB64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// TestIdenticalPurchasesAreNotRetries: the same request sent again after
// its purchase was answered (even through a retry), or sent several times
// at once, is a new purchase each time, paid with its own authorization.
func TestIdenticalPurchasesAreNotRetries(t *testing.T) {
	s, srv := newFlakyShop(t, 1, "502")
	tr := payer.NewTransport(payer.NewSigner(payerKey(t)))
	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("unused"), option.WithHTTPClient(&http.Client{Transport: tr}))
	params := responses.ResponseNewParams{Model: "m", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("same prompt")}}
	for i := 0; i < 2; i++ {
		if _, err := client.Responses.New(context.Background(), params); err != nil {
			t.Fatalf("purchase %d: %v", i, err)
		}
	}
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := client.Responses.New(context.Background(), params); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	distinct := map[string]bool{}
	for _, n := range s.nonces {
		distinct[n] = true
	}
	if len(distinct) != 7 {
		t.Fatalf("7 identical purchases paid with %d authorizations, want 7: %v", len(distinct), s.nonces)
	}
	for n, a := range s.attempts {
		if a > 2 {
			t.Errorf("nonce %s presented %d times: a retry is one more, never more", n[:8], a)
		}
	}
}
