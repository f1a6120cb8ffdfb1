// Package x402 implements the x402 payment protocol (v1 and v2) for the
// "exact" scheme over EIP-3009 USDC authorizations: requirements, header
// codecs, local verification, replay protection and the Settler interface.
// It knows nothing of HTTP frameworks or of the Responses API.
package x402

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// Network is one chain and the USDC-like EIP-3009 token farebox accepts on it.
type Network struct {
	CAIP2   string         // "eip155:8453"
	V1Name  string         // "base"; "" when v1 clients have no name for it
	ChainID *big.Int       // 8453
	Asset   common.Address // the token (EIP-712 verifyingContract)
	Name    string         // EIP-712 domain name, e.g. "USD Coin"
	Version string         // EIP-712 domain version, e.g. "2"

	// domain is the EIP-712 domain separator, precomputed by NewNetwork.
	// A Network is immutable once built; Digest recomputes when nil.
	domain *[32]byte
}

// Requirement is what one request costs: recomputed by farebox for every
// request from configuration, model and URL; never taken from the client.
type Requirement struct {
	Scheme            string // "exact"
	Network           *Network
	Amount            *big.Int // atomic units (6 decimals)
	PayTo             common.Address
	MaxTimeoutSeconds int64
	Resource          string // absolute URL
	Description       string
	MimeType          string
}

// Authorization is an EIP-3009 TransferWithAuthorization message.
type Authorization struct {
	From        common.Address
	To          common.Address
	Value       *big.Int
	ValidAfter  *big.Int
	ValidBefore *big.Int
	Nonce       [32]byte
}

// Payment is a decoded payment header (v1 X-PAYMENT or v2 PAYMENT-SIGNATURE).
type Payment struct {
	Version       int    // 1 or 2
	Scheme        string // v1: top-level scheme; v2: accepted.scheme
	Network       string // as sent: v1 name or CAIP-2 id
	Authorization Authorization
	Signature     []byte
	// Raw is the decoded JSON of the header, forwarded as-is to facilitators.
	Raw []byte
	// Payload and Extensions are the v2 envelope's `payload` and
	// `extensions` objects as sent, for schemes other than exact (upto,
	// batch-settlement), whose packages decode them; Authorization and
	// Signature are then left for the caller to fill.
	Payload, Extensions []byte
	// Decoded is the scheme's decoded payload, set by its
	// JournaledScheme.Complete, so that a payment is decoded once.
	Decoded any

	// walletSigned: VerifyLocal accepted the signature through the
	// payer's contract wallet (EIP-1271), not by recovering it.
	walletSigned bool
}

// Key identifies an authorization for replay protection. Signatures are
// malleable, so the key never includes signature bytes.
type Key struct {
	ChainID string // decimal
	Asset   common.Address
	From    common.Address
	Nonce   [32]byte
}

// Receipt is the x402 SettleResponse returned to the client.
type Receipt struct {
	Success     bool   `json:"success"`
	ErrorReason string `json:"errorReason,omitempty"`
	Payer       string `json:"payer"`
	Transaction string `json:"transaction"`
	Network     string `json:"network"`
	// Amount is what was actually charged, for schemes that settle less
	// than they ask for (upto: "0" when nothing was charged); empty for exact.
	Amount string `json:"amount,omitempty"`
	// Extra carries a scheme's receipt details (upto: chargedAmount).
	Extra ReceiptExtra `json:"extra,omitzero"`
}

// ReceiptExtra is the receipt's `extra` object; comparable, like Receipt
// (see receipt.go for its JSON).
type ReceiptExtra struct {
	// ChargedAmount is the request's actual charge in atomic units (the
	// metered schemes' receipts, per the batch-settlement spec).
	ChargedAmount string
	// ChannelState is batch-settlement's extra.channelState as compact raw
	// JSON ("" when none): a string, so that receipts stay comparable.
	ChannelState string
}

// ErrSettlementPending is wrapped by a Settler's error when the transfer was
// submitted but its outcome is unknown (not mined in time, the submission
// timed out): the money may still move, so the authorization is spent.
var ErrSettlementPending = errors.New("x402: settlement submitted, outcome unknown")

// ReasonSettlementPending is the receipt's errorReason for such a settlement.
const ReasonSettlementPending = "settlement_pending"

// Settler moves the money for a verified payment: a remote facilitator or
// farebox's own relayer on a chain. Settle must honour ctx and never hang.
type Settler interface {
	Settle(ctx context.Context, p *Payment, req *Requirement) (*Receipt, error)
}

// Checker is an optional extra verification step that needs the chain or a
// facilitator (simulation of transferWithAuthorization, EIP-1271 signatures).
// It returns an *Error with the x402 reason on refusal.
type Checker interface {
	Check(ctx context.Context, p *Payment, req *Requirement) error
}

// Error is a payment refusal with an x402 reason code (docs/wire.md §6).
type Error struct {
	Reason  string // e.g. "invalid_exact_evm_payload_signature"
	Message string // safe to show the client
	// Malformed marks a header that could not be decoded at all (HTTP 400,
	// not 402).
	Malformed bool
}

// Error joins the reason code and the message, for logs.
func (e *Error) Error() string { return e.Reason + ": " + e.Message }

// AsError is err as an *Error: the one it wraps, else one with reason
// fallback and err's text.
func AsError(err error, fallback string) *Error {
	var xe *Error
	if errors.As(err, &xe) {
		return xe
	}
	return &Error{Reason: fallback, Message: err.Error()}
}
