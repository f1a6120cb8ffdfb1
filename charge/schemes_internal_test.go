package charge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/tidwall/gjson"
)

// fourthScheme is a scheme the gateway has never heard of: a new package
// and a registration are all it takes to be offered and paid with.
type fourthScheme struct {
	metered bool
	got     *x402.Requirement
	facts   x402.Facts
}

func (*fourthScheme) Name() string { return "fourth" }
func (*fourthScheme) Accept(r *x402.Requirement) json.RawMessage {
	return x402.AcceptJSON(r, "fourth", struct{}{})
}
func (s *fourthScheme) Metered() bool { return s.metered }
func (s *fourthScheme) Authorize(_ context.Context, p *x402.Payment, req *x402.Requirement, f x402.Facts) (x402.Hold, error) {
	s.got, s.facts = req, f
	if req == nil {
		return nil, &x402.Error{Reason: "fourth_network", Message: "not offered"}
	}
	return fourthHold{}, nil
}

type fourthHold struct{}

func (fourthHold) Replay() bool { return false }
func (fourthHold) Settle(context.Context, *big.Int) (*x402.Receipt, error) {
	return &x402.Receipt{Success: true}, nil
}
func (fourthHold) Release(context.Context) error     { return nil }
func (fourthHold) Owe(context.Context, string) error { return nil }

func fourthHeader(scheme, network string) Payment {
	env := `{"x402Version":2,"accepted":{"scheme":"` + scheme + `","network":"` + network + `"},"payload":{"any":"thing"}}`
	return Payment{V2: base64.StdEncoding.EncodeToString([]byte(env))}
}

// ceilingPricing is a per-token price whose every call costs its ceiling.
type ceilingPricing struct{ ceiling *big.Int }

func (c ceilingPricing) Cost(responses.Usage) *big.Int           { return c.ceiling }
func (ceilingPricing) BoundOutput(*responses.Request, int) error { return nil }
func (ceilingPricing) Rates() (input, output *big.Int)           { return big.NewInt(1), big.NewInt(1) }

// quietMeters counts nothing.
type quietMeters struct{}

func (quietMeters) Payment(string, string)         {}
func (quietMeters) Refused()                       {}
func (quietMeters) Settling(time.Duration)         {}
func (quietMeters) Outcome(Outcome)                {}
func (quietMeters) Upstream(string, time.Duration) {}
func (quietMeters) Streams(int)                    {}
func (quietMeters) KeepAlive()                     {}

// testSeller sells on network n, its schemes registered by the test.
func testSeller(n *x402.Network) *Seller {
	return &Seller{PayTo: common.HexToAddress("0x2"), Networks: []*x402.Network{n}, Schemes: &x402.Schemes{},
		Meters: quietMeters{}, Log: slog.New(slog.DiscardHandler), InFlight: func(int) {}}
}

// A registered scheme is offered where its kind is (metered: per-token
// routes only, before the others) and gets its payments with the offer's
// requirement on their network; the gateway names it nowhere.
func TestAFourthSchemeIsARegistration(t *testing.T) {
	n := x402.NewNetwork("", "", big.NewInt(84532), common.HexToAddress("0x1"), "USDC", "2")
	for _, metered := range []bool{false, true} {
		s := &fourthScheme{metered: metered}
		p := testSeller(n)
		p.Schemes.Register(s)
		rt := &Product{Name: "m", Price: big.NewInt(7), PerToken: ceilingPricing{big.NewInt(7)}}
		o := p.Offer(rt, "http://x/v1/responses")
		offered := x402.PaymentRequiredHeaderOffer(o.reqs, o.others, "", o.extensions)
		raw, _ := base64.StdEncoding.DecodeString(offered)
		if got := gjson.GetBytes(raw, "accepts.#.scheme").String(); got != `["fourth"]` {
			t.Fatalf("metered %v: offered %s", metered, raw)
		}
		ch, err := p.authorize(context.Background(), fourthHeader("fourth", n.CAIP2), rt, "http://x/v1/responses", []byte("body"))
		if err != nil {
			t.Fatalf("metered %v: %v", metered, err)
		}
		if s.got == nil || s.got.Scheme != "fourth" || s.got.Amount.Int64() != 7 || !s.facts.PerToken || ch.metered() != metered {
			t.Errorf("metered %v: authorized with %+v %+v, charge metered %v", metered, s.got, s.facts, ch.metered())
		}
		if _, err := p.authorize(context.Background(), fourthHeader("fourth", "eip155:1"), rt, "http://x/v1/responses", nil); !refusedWith(err, "fourth_network") {
			t.Errorf("metered %v: another network: %v", metered, err)
		}
		if _, err := p.authorize(context.Background(), fourthHeader("fifth", n.CAIP2), rt, "http://x/v1/responses", nil); metered && !refusedWith(err, x402.ReasonInvalidNetwork) || !metered && !refusedWith(err, x402.ReasonUnsupportedScheme) {
			// With only a metered scheme no plain requirement names the
			// network: the verifier's refusal was invalid_network.
			t.Errorf("metered %v: unknown scheme: %v", metered, err)
		}
		perCall := &Product{Name: "c", Price: big.NewInt(7)}
		o = p.Offer(perCall, "http://x/v1/responses")
		if n := len(o.others) + len(o.reqs); metered && n != 0 || !metered && n != 1 {
			t.Errorf("metered %v: per-call offer has %d accepts", metered, n)
		}
	}
}

func refusedWith(err error, code string) bool {
	var r *Refusal
	return errors.As(err, &r) && r.Err.Code == code
}

// escrowScheme is a metered scheme that holds the funds before the model
// runs (as batch-settlement does), or, escrow false, one that does not
// (as upto: a Permit2 authorization holds nothing).
type escrowScheme struct {
	fourthScheme
	name   string
	escrow bool
}

func (s *escrowScheme) Name() string { return s.name }
func (s *escrowScheme) Accept(r *x402.Requirement) json.RawMessage {
	return x402.AcceptJSON(r, s.name, struct{}{})
}
func (s *escrowScheme) Escrows() bool { return s.escrow }

// payments.streams: escrow_only sells a stream only to a scheme that holds
// the funds before the first byte: a metered scheme that does not (upto)
// is refused like exact, and the refusal offers the escrow schemes alone.
func TestEscrowOnlyCountsOnlyEscrowAsEscrow(t *testing.T) {
	n := x402.NewNetwork("", "", big.NewInt(84532), common.HexToAddress("0x1"), "USDC", "2")
	channels := &escrowScheme{fourthScheme: fourthScheme{metered: true}, name: "channels", escrow: true}
	permits := &escrowScheme{fourthScheme: fourthScheme{metered: true}, name: "permits"}
	p := testSeller(n)
	p.EscrowOnly = true
	p.Schemes.Register(channels)
	p.Schemes.Register(permits)
	rt := &Product{Name: "m", Price: big.NewInt(7), PerToken: ceilingPricing{big.NewInt(7)}}
	for _, tt := range []struct {
		scheme string
		stream bool
		sold   bool
	}{
		{"channels", true, true},
		{"permits", true, false},
		{"permits", false, true},
	} {
		ch, err := p.authorize(context.Background(), fourthHeader(tt.scheme, n.CAIP2), rt, "http://x/v1/responses", []byte("body"))
		if err != nil {
			t.Fatal(err)
		}
		err = p.escrowOnly(context.Background(), ch, tt.stream)
		if sold := err == nil; sold != tt.sold {
			t.Fatalf("%s, stream %v: sold %v (%v), want %v", tt.scheme, tt.stream, sold, err, tt.sold)
		}
		if err == nil {
			continue
		}
		var r *Refusal
		if !errors.As(err, &r) || r.Err.Code != x402.ReasonUnsupportedScheme || ch.outcome != Released {
			t.Fatalf("%s: refused with %v, outcome %v", tt.scheme, err, ch.outcome)
		}
		offered := x402.PaymentRequiredHeaderOffer(r.Offer.reqs, r.Offer.others, "", r.Offer.extensions)
		raw, _ := base64.StdEncoding.DecodeString(offered)
		if got := gjson.GetBytes(raw, "accepts.#.scheme").String(); got != `["channels"]` {
			t.Errorf("%s: the refusal offers %s, want the escrow scheme alone", tt.scheme, got)
		}
	}
}
