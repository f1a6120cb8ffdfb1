package x402

import (
	"context"
	"encoding/json"

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
	order []Scheme
}

// Register adds s, replacing a scheme of the same name in place.
func (r *Schemes) Register(s Scheme) {
	for i, o := range r.order {
		if o.Name() == s.Name() {
			r.order[i] = s
			return
		}
	}
	r.order = append(r.order, s)
}

// Lookup is the scheme named name, nil when it is not registered.
func (r *Schemes) Lookup(name string) Scheme {
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
func (r *Schemes) All() []Scheme {
	if r == nil {
		return nil
	}
	return r.order
}
