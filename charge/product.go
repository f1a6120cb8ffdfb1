package charge

import (
	"context"
	"encoding/json"
	"math/big"
	"sync/atomic"

	"github.com/farebox/farebox/responses"
)

// Product is one public model as the paid call sells it: its model, its
// price and the offer built from them. The HTTP layer builds one per
// configured model and keeps it for the server's life.
type Product struct {
	// Name is the public model name, as the client asks for it.
	Name string
	// Model answers the call (often a pool of suppliers).
	Model responses.Model
	// Price is atomic USDC units per call; zero is a free model. Per
	// token it is the ceiling of one call.
	Price *big.Int
	// PerToken prices the call by its use; nil: priced per call.
	PerToken TokenPricing
	// Description is the offer's description of one call.
	Description string
	// Extensions are the model's own x402 extensions in its offer (the
	// bazaar discovery declaration).
	Extensions map[string]json.RawMessage
	// Resold: the model buys its answer from a paid upstream, so the
	// client's transfer goes right before that purchase (see paidCommit).
	Resold bool
	// Served, for a model of several suppliers (a pool), is the model's
	// context under which it reports each supplier it calls to served, the
	// last being the one that answered: the call names it in its purchase
	// (for the books) and in its Sale. Nil: one upstream.
	Served func(ctx context.Context, served func(supplier string)) context.Context

	offer   atomic.Pointer[Offer] // the last computed offer, by resource URL
	charged atomic.Int64          // atomic units settled for this model's answers
}

// Free reports a model sold at price zero.
func (p *Product) Free() bool { return p.Price.Sign() == 0 }

// Charged is the atomic units settled for this model's answers since the
// server started (a metric).
func (p *Product) Charged() int64 { return p.charged.Load() }

// TokenPricing is a per-token price as the paid call uses it: it bounds a
// request's output so its cost stays under the ceiling, and costs what an
// answer used.
type TokenPricing interface {
	// Cost is what a call with this usage costs, capped at the ceiling.
	Cost(responses.Usage) *big.Int
	// BoundOutput lowers req's max_output_tokens so that the call cannot
	// cost more than the ceiling, counting bodyLen bytes of input; an
	// input that alone costs (nearly) the ceiling is the client's error.
	BoundOutput(req *responses.Request, bodyLen int) error
	// Rates are the prices per million input and output tokens, for the
	// 402's message.
	Rates() (input, output *big.Int)
}
