package x402

import (
	"context"
	"encoding/json"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// Scheme is one payment scheme as a server runs it: it offers its
// requirement for a price and decodes its own payload. A server keeps its
// schemes in a Schemes registry and dispatches on a payment's scheme
// without naming one.
type Scheme interface {
	// Name is the scheme's `scheme` field ("exact", "upto", ...).
	Name() string
	// Accept renders req (network, ceiling, receiver) as this scheme
	// offers it: one element of a v2 402's accepts.
	Accept(req *Requirement) json.RawMessage
}

// JournaledScheme is a scheme whose payments a settlement journal holds
// and settles like exact authorizations: unordered single-use nonces, a
// validity window, one transaction per payment sent by the server's own
// relayer.
type JournaledScheme interface {
	Scheme
	// Complete decodes p's payload (once: p.Decoded keeps it) and fills
	// p.Authorization and p.Signature the way the journal keys and times
	// the payment. A payload that does not decode is an *Error.
	Complete(p *Payment) error
	// Broadcast sends the settlement of p for req.Amount (the charge, at
	// most the ceiling p covers), calling onSigned with the transaction's
	// hash before it is sent.
	Broadcast(ctx context.Context, p *Payment, req *Requirement, onSigned func(common.Hash) error) (*Receipt, error)
	// Await waits for the settlement transaction tx of p: nil when it
	// succeeded, an *Error when it failed.
	Await(ctx context.Context, tx common.Hash, p *Payment) error
	// AuthorizationUsed reports whether p's nonce is spent on chain.
	AuthorizationUsed(ctx context.Context, p *Payment, req *Requirement) (bool, error)
}

// Schemes is a registry of the schemes a server takes, in the order it
// offers them. The zero value is empty and ready to use; it is not safe
// for concurrent Register.
type Schemes struct {
	order []ServerScheme
}

// Register adds s, replacing a scheme of the same name in place.
func (r *Schemes) Register(s ServerScheme) {
	for i, o := range r.order {
		if o.Name() == s.Name() {
			r.order[i] = s
			return
		}
	}
	r.order = append(r.order, s)
}

// Lookup is the scheme named name, nil when it is not registered.
func (r *Schemes) Lookup(name string) ServerScheme {
	if r == nil {
		return nil
	}
	for _, s := range r.order {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// All are the registered schemes in offer order.
func (r *Schemes) All() []ServerScheme {
	if r == nil {
		return nil
	}
	return r.order
}

// ServerScheme is a scheme as a server serves it: it offers its
// requirement, decodes and verifies its payload, and reserves what the
// payment covers as a Hold the server settles or releases after the
// answer. A server keeps its ServerSchemes in a Schemes registry,
// dispatches a payment to Lookup(p.Scheme) and never names a scheme. A
// metered scheme's Accept may be nil: the scheme is known and not offered
// (Unserved). The requirements of a scheme that is not metered are
// offered as x402 renders them (PlainAccept), and listed in v1 accepts.
type ServerScheme interface {
	Scheme
	// Metered reports a scheme that charges the actual use (at most the
	// ceiling it offers), not its requirement's amount: it is offered only
	// for a route priced per token, before the schemes that charge the
	// ceiling.
	Metered() bool
	// Authorize decodes (once) and verifies p against req, this scheme's
	// requirement on p's network (nil when the network is not offered),
	// and reserves the payment. A refusal is an *Error (Malformed when no
	// offer can make the header valid), a *Corrective, or an error of the
	// store that reserves it; any other error means payments are
	// unavailable.
	Authorize(ctx context.Context, p *Payment, req *Requirement, f Facts) (Hold, error)
}

// Facts are what a server knows of the request a payment pays for.
type Facts struct {
	// BodyHash is the SHA-256 of the request body: the same payment with
	// the same body is the same purchase.
	BodyHash [32]byte
	// PerToken is set for a route priced per token (metered schemes are
	// served only there).
	PerToken bool
	// Model is the public model the call is for: the books count revenue
	// per model from what the settlement journal records.
	Model string
}

// Hold is a payment a scheme reserved for one request. It ends with
// exactly one Settle or Release, and Owe after a failed Settle whose
// answer was served.
type Hold interface {
	// Replay reports a payment an earlier identical request already paid:
	// the answer is served again, Settle returns that request's receipt
	// and moves nothing.
	Replay() bool
	// Settle charges amount after the answer: at most the ceiling the
	// payment covers (a scheme that is not Metered moves its requirement's
	// amount whatever amount says). It returns the receipt the client
	// gets; on failure, a receipt with the reason and an error (wrapping
	// ErrSettlementPending when the money may still move).
	Settle(ctx context.Context, amount *big.Int) (*Receipt, error)
	// Release gives up a payment that served nothing: the client may use
	// it again.
	Release(ctx context.Context) error
	// Owe records that the answer was served but its settlement failed for
	// good: the payer is refused until the debt is settled.
	Owe(ctx context.Context, reason string) error
}

// AnsweredHold is a hold that keeps the answer it paid for, so that a paid
// retry gets that answer without running the model again.
type AnsweredHold interface {
	Hold
	// Answer is the stored answer of a replay (nil: none, run the model
	// and keep its answer); it waits while the first request makes it.
	Answer(ctx context.Context) ([]byte, error)
	// Keep stores the answer this request made (nil: nothing to store)
	// and wakes the requests waiting for it; later calls do nothing.
	Keep(ctx context.Context, answer []byte)
}

// CheckingHold is a hold whose last check (on chain) the scheme left to
// run alongside the model: the server runs Check before anything of the
// answer leaves, and releases the hold when it refuses.
type CheckingHold interface {
	Hold
	// Deferred reports whether the check is still to run.
	Deferred() bool
	// Check runs it; a refusal is an *Error.
	Check(ctx context.Context) error
}

// RunningHold is a hold told when the model starts running for it: from
// then on a settlement refused for the payer's own reasons spends the
// payment (the operator ran the model for it) and puts the payer in debt,
// where before the model it would be given back.
type RunningHold interface {
	Hold
	Running()
}

// FollowedHold is a hold whose settlement, once broadcast, may still fail
// on chain: Follow waits for the transaction of receipt r and returns the
// chain's refusal, nil when it paid (or cannot be followed); paidBy names
// another transaction that paid it in full when r's did not (a front-run).
type FollowedHold interface {
	Hold
	Follow(ctx context.Context, r *Receipt) (paidBy string, err *Error)
}

// ServedHold is a hold told which supplier of a pooled model served its
// answer (known only once the model ran), so that the revenue it settles
// is counted under that supplier, whether its transfer was mined before,
// while or after the model ran.
type ServedHold interface {
	Hold
	Served(ctx context.Context, supplier string) error
}

// EscrowScheme is a scheme whose payments hold the payer's funds before
// the model runs (batch-settlement: vouchers against a deposited channel),
// so the charge made after the answer cannot be taken away meanwhile.
type EscrowScheme interface {
	ServerScheme
	Escrows() bool
}

// Extender is a scheme whose offers declare x402 extensions (upto: EIP-2612
// gas sponsoring), added to the offer's extensions where it is offered.
type Extender interface {
	Extensions() map[string]json.RawMessage
}

// Corrective is a refusal whose 402 offers Accepts instead of the
// scheme's usual accepts (batch-settlement's corrective 402, carrying the
// channel's state so that the client resyncs).
type Corrective struct {
	Refusal *Error
	Accepts []json.RawMessage
}

func (c *Corrective) Error() string { return c.Refusal.Error() }
func (c *Corrective) Unwrap() error { return c.Refusal }

// Refusal is err as a refusal with reason when it carries none: an *Error
// never marked Malformed (the payment decoded; it just does not pay).
func Refusal(err error, reason string) *Error {
	xe := AsError(err, reason)
	if xe.Malformed {
		c := *xe
		c.Malformed = false
		return &c
	}
	return xe
}

// Unserved is a scheme the server knows but does not serve as configured
// (upto without farebox's own chain settler): never offered (metered, with
// no accept), its payments refused with Refusal.
type Unserved struct {
	SchemeName string
	Refusal    *Error
}

func (u *Unserved) Name() string                      { return u.SchemeName }
func (*Unserved) Accept(*Requirement) json.RawMessage { return nil }
func (*Unserved) Metered() bool                       { return true }
func (u *Unserved) Authorize(context.Context, *Payment, *Requirement, Facts) (Hold, error) {
	return nil, u.Refusal
}

// Unsupported is the refusal of a payment whose scheme no registered
// scheme serves, given reqs, the requirements of the offer's schemes that
// are not metered: invalid_network when none is on the payment's
// network, else unsupported_scheme naming the scheme to use.
func Unsupported(p *Payment, reqs []*Requirement) *Error {
	req := pick(p, reqs)
	if req == nil {
		return refuse(ReasonInvalidNetwork, "no accepted requirement for network "+quote(p.Network))
	}
	return refuse(ReasonUnsupportedScheme, "scheme "+quote(p.Scheme)+" is not supported; use "+quote(req.Scheme))
}

// PlainAccept is r as a v2 accept whose extra is the EIP-712 domain of
// its asset (exact's requirement, as PaymentRequiredHeaderOffer renders
// the requirements it is given).
func PlainAccept(r *Requirement) json.RawMessage {
	b, _ := json.Marshal(acceptV2(r)) // only strings and ints: cannot fail
	return b
}

// Refunder is a scheme that refunds what its payer left with the server
// (batch-settlement's cooperative refund): a payment operation, not a paid
// call, so nothing is charged and no model runs.
type Refunder interface {
	ServerScheme
	// RefundRequested reports whether raw, a v2 payment header's JSON,
	// asks for a refund: cheap enough to ask of every call.
	RefundRequested(raw []byte) bool
	// RefundOffer is the description of a refund's 402 and the
	// extensions it declares.
	RefundOffer() (description string, extensions map[string]json.RawMessage)
	// Refund verifies p, a refund, against req (the refund offer's
	// requirement on p's network, nil when it is not offered) and sends
	// it. Refusals are as Authorize's.
	Refund(ctx context.Context, p *Payment, req *Requirement) (*Refund, error)
}

// Refund is a refund sent.
type Refund struct {
	Receipt *Receipt // the client's receipt (PAYMENT-RESPONSE)
	ID      string   // what was refunded (batch-settlement: the channel id)
	// Amount is what went back to the payer, in atomic units.
	Amount                      string
	Payer, Transaction, Network string
}
