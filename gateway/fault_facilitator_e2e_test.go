package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/tidwall/gjson"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/faultproxy"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// facilitatorFault is farebox settling through the x402 reference
// facilitator behind a Toxiproxy proxy (payments.chain.rpc_url beside it,
// as on a mainnet: the chain simulates payments, or the facilitator's
// /verify does with verify on), paid by a payer of its own.
type facilitatorFault struct {
	*usdcFarebox
	proxy *faultproxy.Proxy
	key   *ecdsa.PrivateKey
	payer common.Address
	start *big.Int // the payer's balance before the first call
	n     int      // calls sent
}

func newFacilitatorFault(t *testing.T, verify bool) *facilitatorFault {
	t.Helper()
	a, ref := referenceFacilitator(t)
	u, err := url.Parse(ref.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := faultproxy.Start(t, u.Host)
	pc := usdcPayments(a)
	pc.Settler = "facilitator"
	pc.Facilitator = gateway.FacilitatorConfig{URL: proxy.URL() + u.Path, Verify: verify}
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL}
	pc.SettleTimeout = gateway.Duration(3 * time.Second)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	if err := a.Fund(context.Background(), addr, 1_000_000); err != nil {
		t.Fatal(err)
	}
	f := &facilitatorFault{usdcFarebox: startUSDCFarebox(t, a, pc, nil), proxy: proxy, key: key, payer: addr}
	f.start = usdcBalance(t, a, addr)
	return f
}

// facAnswer is one answer to a paid call.
type facAnswer struct {
	body, payment string // what was sent
	status        int
	retryAfter    string
	code          string
	receipt       *x402.Receipt
}

// call sends one call with a payment signed for it alone.
func (f *facilitatorFault) call(t *testing.T) facAnswer {
	t.Helper()
	req := f.offer(t, 2)
	p, err := payer.NewSigner(f.key).Sign(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	value, err := x402.EncodePayment(p, req)
	if err != nil {
		t.Fatal(err)
	}
	return f.send(t, `{"model":"`+usdcModel+`","input":"call `+strconv.Itoa(f.n+1)+`"}`, value)
}

// send posts body paid with payment, as a client retrying it does.
func (f *facilitatorFault) send(t *testing.T, body, value string) facAnswer {
	t.Helper()
	f.n++
	res, b := post(t, f.URL+"/responses", body, x402.HeaderPaymentSignature, value)
	rc, _ := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse))
	if rc == nil && res.StatusCode == http.StatusOK {
		rc, _ = x402.DecodeReceipt(gjson.GetBytes(b, "x402").Raw) // not every answer carries the header
	}
	return facAnswer{body, value, res.StatusCode, res.Header.Get("Retry-After"), gjson.GetBytes(b, "error.code").String(), rc}
}

// refused says whether a is the refusal of a paid call farebox cannot
// settle now: 503 payments_unavailable with Retry-After.
func refused(a facAnswer) bool {
	return a.status == http.StatusServiceUnavailable && a.code == "payments_unavailable" && a.retryAfter != ""
}

// ready is the status /readyz answers.
func (f *facilitatorFault) ready(t *testing.T) int {
	t.Helper()
	return readyz(t, f.URL)
}

// readyz is the status /readyz of the server at base (its /v1 URL) answers.
func readyz(t *testing.T, base string) int {
	t.Helper()
	res, err := http.Get(strings.TrimSuffix(base, "/v1") + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// waitRetryAfter waits as a client honouring a's Retry-After does.
func waitRetryAfter(a facAnswer) {
	secs, _ := strconv.Atoi(a.retryAfter)
	time.Sleep(time.Duration(max(secs, 1)) * time.Second)
}

// untilServed sends calls as a client honouring Retry-After would, until
// one is served: every other answer must be the 503 refusal. It returns
// the refusals.
func (f *facilitatorFault) untilServed(t *testing.T, name string) int {
	t.Helper()
	for n := 0; n < 30; n++ {
		a := f.call(t)
		if a.status == http.StatusOK {
			return n
		}
		if !refused(a) {
			t.Fatalf("%s: %+v, want 200 or the 503 refusal", name, a)
		}
		waitRetryAfter(a)
	}
	t.Fatalf("%s: 30 calls refused after the facilitator was back", name)
	return 0
}

// judge waits until payTo holds the price of every served call and checks
// the payer lost exactly that: nothing paid twice, nothing for a call
// that was refused.
func (f *facilitatorFault) judge(t *testing.T, served int) {
	t.Helper()
	want := big.NewInt(int64(served) * atomics)
	for deadline := time.Now().Add(time.Minute); usdcBalance(t, f.a, f.payTo).Cmp(want) < 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			break
		}
	}
	got := usdcBalance(t, f.a, f.payTo)
	spent := new(big.Int).Sub(f.start, usdcBalance(t, f.a, f.payer))
	if got.Cmp(want) != 0 || spent.Cmp(want) != 0 {
		t.Fatalf("served %d calls: payTo received %s, the payer spent %s, want %s each", served, got, spent, want)
	}
}

// The facilitator goes down (connections refused) and comes back. While
// it is down, a paid call is refused 503 with Retry-After before its
// model runs (the one call whose settlement met the outage first ran its
// model, and is answered the same 503, charged nothing), and /readyz
// says not ready. Once it is back, farebox serves again by itself; the
// chain shows every served call paid once and nothing else.
func TestFaultFacilitatorDown(t *testing.T) {
	for _, verify := range []bool{false, true} {
		t.Run(map[bool]string{false: "chain simulates", true: "facilitator verifies"}[verify], func(t *testing.T) {
			f := newFacilitatorFault(t, verify)
			served := 0
			for range 2 {
				if a := f.call(t); a.status != http.StatusOK || a.receipt == nil || !a.receipt.Success {
					t.Fatalf("before the fault: %+v", a)
				}
				served++
			}
			f.proxy.Refuse()
			runs, payTo := f.model.calls.Load(), usdcBalance(t, f.a, f.payTo)
			refusals, first := 0, facAnswer{}
			for i := range 4 {
				a := f.call(t)
				if !refused(a) {
					t.Fatalf("call %d while the facilitator is down: %+v", i, a)
				}
				if i == 0 {
					first = a
				}
				refusals++
			}
			// The first call may have run its model before its settlement
			// found the facilitator gone (the chain simulated its payment);
			// every later one is refused before.
			metFirst := f.model.calls.Load() - runs
			if metFirst > 1 || (verify && metFirst != 0) {
				t.Errorf("the model ran %d times while the facilitator was down", metFirst)
			}
			if got := usdcBalance(t, f.a, f.payTo); got.Cmp(payTo) != 0 {
				t.Errorf("payTo moved while the facilitator was down: %s -> %s", payTo, got)
			}
			if s := f.ready(t); s != http.StatusServiceUnavailable {
				t.Errorf("/readyz while the facilitator is down: %d", s)
			}
			f.proxy.Accept()
			refusals += f.untilServed(t, "after the heal")
			served++
			// The call refused first, sent again as its client's retry does
			// (same body, same payment): nothing was charged, so it is served.
			if a := f.send(t, first.body, first.payment); a.status != http.StatusOK || a.receipt == nil || !a.receipt.Success {
				t.Fatalf("the first refused call retried with its payment: %+v", a)
			}
			served++
			for range 2 {
				if a := f.call(t); a.status != http.StatusOK || a.receipt == nil || !a.receipt.Success {
					t.Fatalf("after the heal: %+v", a)
				}
				served++
			}
			if s := f.ready(t); s != http.StatusOK {
				t.Errorf("/readyz after the heal: %d", s)
			}
			f.judge(t, served)
			t.Logf("sent %d, served %d, refused 503 %d (%d of them after their model ran); settled %d (chain)", f.n, served, refusals, metFirst, served)
		})
	}
}

// The facilitator hangs (accepts connections, never answers) and comes
// back. With the chain simulating payments, the call whose settlement
// hung is served with a settlement_pending receipt; its settlement is
// sent to the facilitator again once it is back and paid once. Later
// calls are refused 503 with Retry-After before their model runs, as with
// verify on for every call.
func TestFaultFacilitatorHangs(t *testing.T) {
	for _, verify := range []bool{false, true} {
		t.Run(map[bool]string{false: "chain simulates", true: "facilitator verifies"}[verify], func(t *testing.T) {
			f := newFacilitatorFault(t, verify)
			if a := f.call(t); a.status != http.StatusOK {
				t.Fatalf("before the fault: %+v", a)
			}
			served, pending, refusals := 1, 0, 0
			f.proxy.Hang()
			runs := f.model.calls.Load()
			for i := range 3 {
				switch a := f.call(t); {
				case refused(a):
					refusals++
				case i == 0 && !verify && a.status == http.StatusOK && a.receipt != nil && a.receipt.ErrorReason == x402.ReasonSettlementPending:
					pending++
				default:
					t.Fatalf("call %d while the facilitator hangs: %+v", i, a)
				}
			}
			if ran := f.model.calls.Load() - runs; ran != int64(pending) {
				t.Errorf("the model ran %d times while the facilitator hung, want %d", ran, pending)
			}
			f.proxy.Heal()
			refusals += f.untilServed(t, "after the heal")
			served += 1 + pending
			f.judge(t, served)
			if again := strings.Contains(f.logs.String(), "sent to the facilitator again names its transaction"); again != (pending > 0) {
				t.Errorf("a pending settlement sent again: %v, with %d pending", again, pending)
			}
			t.Logf("sent %d, served %d (%d with a pending receipt, settled after the heal), refused 503 %d; settled %d (chain)",
				f.n, served, pending, refusals, served)
		})
	}
}

// A slow facilitator (every answer 400 ms late, within the settle
// timeout): every call is served and paid once.
func TestFaultFacilitatorSlow(t *testing.T) {
	f := newFacilitatorFault(t, true)
	f.proxy.Slow(400 * time.Millisecond)
	for i := range 4 {
		if a := f.call(t); a.status != http.StatusOK || a.receipt == nil || !a.receipt.Success {
			t.Fatalf("call %d through the slow facilitator: %+v", i, a)
		}
	}
	f.proxy.Heal()
	f.judge(t, 4)
	if n := f.model.calls.Load(); n != 4 {
		t.Errorf("the model ran %d times for 4 calls", n)
	}
}
