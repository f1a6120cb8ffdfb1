package charge

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
)

// recordedOutput is an Output of no wire: it keeps what the paid call
// wrote, as a second wire's adapter would receive it.
type recordedOutput struct {
	header  http.Header
	object  []byte
	objects int
	stream  *recordedStream
}

func newRecordedOutput() *recordedOutput { return &recordedOutput{header: http.Header{}} }

func (o *recordedOutput) Header() http.Header { return o.header }
func (o *recordedOutput) Stream() Stream {
	o.stream = &recordedStream{}
	return o.stream
}
func (o *recordedOutput) Object(response []byte) error {
	o.object, o.objects = append([]byte(nil), response...), o.objects+1
	return nil
}

type recordedStream struct {
	types []string
	done  bool
}

func (s *recordedStream) Event(typ string, _ []byte) error {
	s.types = append(s.types, typ)
	return nil
}
func (s *recordedStream) Started() bool                                 { return len(s.types) > 0 }
func (s *recordedStream) KeepAlive(time.Duration, func()) (stop func()) { return func() {} }
func (s *recordedStream) Done() error                                   { s.done = true; return nil }

// textModel answers with one text, or fails before any output.
type textModel struct{ fail error }

func (m textModel) Respond(_ context.Context, _ *responses.Request, out responses.Output) error {
	if m.fail != nil {
		return m.fail
	}
	return out.Text("paid words")
}

func sellTo(t *testing.T, s *Seller, p *Product, body string, pay Payment) (*Sale, *recordedOutput, error) {
	t.Helper()
	req, perr := responses.Parse([]byte(body))
	if perr != nil {
		t.Fatal(perr)
	}
	out := newRecordedOutput()
	sale, err := s.Sell(context.Background(), &Call{Product: p, Request: req, Body: []byte(body), Payment: pay,
		Resource: "http://x/v1/responses", Caller: "ip:127.0.0.1"}, out)
	if sale == nil {
		t.Fatal("Sell returned no sale")
	}
	return sale, out, err
}

// The same call is sold free or paid into any Output: a free one writes
// its answer with no receipt, a paid one settles and carries its receipt,
// a model that fails first releases the payment and writes nothing, and a
// call without a payment is a 402 whose offer the adapter sets.
func TestSellOneCallIntoAnyOutput(t *testing.T) {
	n := x402.NewNetwork("", "", big.NewInt(84532), common.HexToAddress("0x1"), "USDC", "2")
	s := testSeller(n)
	s.Schemes.Register(&fourthScheme{})
	const body = `{"model":"m","input":"hi"}`
	pay := fourthHeader("fourth", n.CAIP2)

	free := &Product{Name: "m", Model: textModel{}, Price: new(big.Int)}
	sale, out, err := sellTo(t, s, free, body, Payment{})
	if err != nil || out.objects != 1 || !strings.Contains(string(out.object), "paid words") {
		t.Fatalf("free: %v, %d objects: %s", err, out.objects, out.object)
	}
	if out.header.Get(x402.HeaderPaymentResponse) != "" || sale.Fare.LogAttrs() != nil || !sale.Reached || sale.Charged() != nil {
		t.Errorf("free: receipt %q, log %v, reached %v, charged %v", out.header.Get(x402.HeaderPaymentResponse), sale.Fare.LogAttrs(), sale.Reached, sale.Charged())
	}
	_, out, err = sellTo(t, s, free, `{"model":"m","input":"hi","stream":true}`, Payment{})
	if err != nil || out.stream == nil || !out.stream.done || out.stream.types[len(out.stream.types)-1] != "response.completed" {
		t.Fatalf("free stream: %v, %+v", err, out.stream)
	}

	paid := &Product{Name: "m", Model: textModel{}, Price: big.NewInt(7)}
	sale, out, err = sellTo(t, s, paid, body, pay)
	if err != nil || out.objects != 1 || out.header.Get(x402.HeaderPaymentResponse) == "" {
		t.Fatalf("paid: %v, %d objects, receipt %q", err, out.objects, out.header.Get(x402.HeaderPaymentResponse))
	}
	if sale.Fare.outcome != Settled || sale.Charged().Int64() != 7 || paid.Charged() != 7 {
		t.Errorf("paid: outcome %v, charged %v, product charged %d", sale.Fare.outcome, sale.Charged(), paid.Charged())
	}

	// A transfer that went with the model (a scheme that is not metered,
	// settle: after) paid for the run: the failure carries its receipt,
	// and a retry must reuse the payment.
	down := textModel{fail: errors.New("upstream down")}
	broken := &Product{Name: "m", Model: down, Price: big.NewInt(7)}
	sale, out, err = sellTo(t, s, broken, body, pay)
	var re *responses.Error
	if !errors.As(err, &re) || out.objects != 0 || sale.Fare.outcome != Settled ||
		out.header.Get(x402.HeaderPaymentResponse) == "" || out.header.Get("X-Should-Retry") != "false" {
		t.Errorf("failed model, paid alongside: %v, %d objects, outcome %v, headers %v", err, out.objects, sale.Fare.outcome, out.header)
	}
	// A metered payment settles after the answer: none was produced, so
	// it is released.
	metered := testSeller(n)
	metered.Schemes.Register(&fourthScheme{metered: true})
	brokenPerToken := &Product{Name: "m", Model: down, Price: big.NewInt(7), PerToken: ceilingPricing{big.NewInt(7)}}
	sale, out, err = sellTo(t, metered, brokenPerToken, body, pay)
	if !errors.As(err, &re) || out.objects != 0 || sale.Fare.outcome != Released || out.header.Get(x402.HeaderPaymentResponse) != "" {
		t.Errorf("failed model, metered: %v, %d objects, outcome %v, headers %v", err, out.objects, sale.Fare.outcome, out.header)
	}

	_, _, err = sellTo(t, s, paid, body, Payment{})
	var r *Refusal
	if !errors.As(err, &r) || r.Err.Code != CodePaymentRequired {
		t.Fatalf("no payment: %v", err)
	}
	h := http.Header{}
	r.SetHeaders(h)
	if h.Get(x402.HeaderPaymentRequired) == "" || h.Get("X-Should-Retry") != "false" || len(r.V1Accepts()) == 0 {
		t.Errorf("the 402's headers: %v, v1 accepts %s", h, r.V1Accepts())
	}
}
