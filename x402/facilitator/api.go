package facilitator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/tidwall/gjson"
)

// VerifyResponse is the facilitator's verdict from /verify.
type VerifyResponse struct {
	IsValid        bool   `json:"isValid"`
	InvalidReason  string `json:"invalidReason,omitempty"`
	InvalidMessage string `json:"invalidMessage,omitempty"`
	Payer          string `json:"payer,omitempty"`
}

// Kind is one (version, scheme, network) the facilitator can verify and
// settle.
type Kind struct {
	X402Version int             `json:"x402Version"`
	Scheme      string          `json:"scheme"`
	Network     string          `json:"network"`
	Extra       json.RawMessage `json:"extra,omitempty"`
}

// Supported is the facilitator's /supported answer: what it settles, which
// extensions it knows, and its signer addresses per network family.
type Supported struct {
	Kinds      []Kind              `json:"kinds"`
	Extensions []string            `json:"extensions"`
	Signers    map[string][]string `json:"signers"`
}

// Supports reports whether the facilitator lists this kind, so farebox can
// refuse at startup to offer a network its facilitator cannot settle.
func (s *Supported) Supports(version int, scheme, network string) bool {
	for _, k := range s.Kinds {
		if k.X402Version == version && k.Scheme == scheme && k.Network == network {
			return true
		}
	}
	return false
}

// ReceiverAuthorizer is the receiverAuthorizer the facilitator advertises
// for (version 2, scheme, network) in its kind's extra (batch-settlement:
// the address a server may delegate claim and refund signatures to), or
// "" when it advertises none.
func (s *Supported) ReceiverAuthorizer(scheme, network string) string {
	for _, k := range s.Kinds {
		if k.X402Version == 2 && k.Scheme == scheme && k.Network == network && len(k.Extra) > 0 {
			return gjson.GetBytes(k.Extra, "receiverAuthorizer").String()
		}
	}
	return ""
}

// verifyJSON is /verify's answer with the flag kept optional, so that a body
// without it is recognised as not an answer at all.
type verifyJSON struct {
	IsValid        *bool  `json:"isValid"`
	InvalidReason  string `json:"invalidReason"`
	InvalidMessage string `json:"invalidMessage"`
	Payer          string `json:"payer"`
	Error          string `json:"error"` // some facilitators explain a non-2xx here
}

// settleJSON is /settle's answer (the SettleResponse), flag optional.
type settleJSON struct {
	Success      *bool  `json:"success"`
	ErrorReason  string `json:"errorReason"`
	ErrorMessage string `json:"errorMessage"`
	Payer        string `json:"payer"`
	Transaction  string `json:"transaction"`
	Network      string `json:"network"`
	Error        string `json:"error"`
}

// body builds the /verify and /settle request: the client's payload as it
// sent it, and the requirement farebox recomputed, in the payload's version.
// body is the request of /verify and /settle:
// {x402Version, paymentPayload, paymentRequirements}.
func body(p *x402.Payment, r *x402.Requirement) ([]byte, error) {
	if p == nil || len(p.Raw) == 0 || !gjson.ValidBytes(p.Raw) {
		return nil, &x402.Error{Reason: x402.ReasonInvalidPayload, Message: "no payment payload to forward"}
	}
	req, err := x402.RequirementJSON(p.Version, r)
	if err != nil {
		return nil, err
	}
	// Both parts are JSON already: appended, not re-encoded (json.Marshal
	// would validate and compact them again on every settlement).
	b := make([]byte, 0, len(p.Raw)+len(req)+64)
	b = append(b, `{"x402Version":`...)
	b = strconv.AppendInt(b, int64(p.Version), 10)
	b = append(b, `,"paymentPayload":`...)
	b = append(b, p.Raw...)
	b = append(b, `,"paymentRequirements":`...)
	b = append(b, req...)
	return append(b, '}'), nil
}

// Verify asks the facilitator whether the payment satisfies the requirement.
// A verdict, valid or not, comes back with a nil error when the HTTP
// status was 2xx; a refusal sent with a non-2xx status comes back with its
// verdict and an error carrying its reason. Anything else (unreachable,
// timeout, not the documented JSON) is an error wrapping an *x402.Error with
// x402.ReasonUnexpectedVerifyError and the cause (errors.Is works on ctx errors).
func (c *Client) Verify(ctx context.Context, p *x402.Payment, r *x402.Requirement) (*VerifyResponse, error) {
	b, err := body(p, r)
	if err != nil {
		return nil, err
	}
	a, err := c.exchange(ctx, EndpointVerify, b)
	if err != nil {
		return nil, unexpected(EndpointVerify, x402.ReasonUnexpectedVerifyError, a.status, err)
	}
	var v verifyJSON
	jerr := json.Unmarshal(a.body, &v)
	if a.ok() {
		if jerr != nil || v.IsValid == nil {
			return nil, garbage(EndpointVerify, x402.ReasonUnexpectedVerifyError, a)
		}
		if *v.IsValid {
			if err := samePayer(EndpointVerify, p, v.Payer); err != nil {
				return nil, err
			}
		}
		return &VerifyResponse{IsValid: *v.IsValid, InvalidReason: v.InvalidReason,
			InvalidMessage: v.InvalidMessage, Payer: v.Payer}, nil
	}
	if jerr != nil {
		return nil, garbage(EndpointVerify, x402.ReasonUnexpectedVerifyError, a)
	}
	reason := reasonCode(v.InvalidReason, x402.ReasonUnexpectedVerifyError)
	msg := clientMessage(firstOf(v.InvalidMessage, v.Error), "the facilitator refused to verify the payment")
	return &VerifyResponse{InvalidReason: reason, InvalidMessage: msg, Payer: v.Payer},
		fmt.Errorf("facilitator %s: HTTP %d: %w", EndpointVerify, a.status, &x402.Error{Reason: reason, Message: msg})
}

// Check implements x402.Checker through /verify: nil when the facilitator
// finds the payment valid, else an error holding an *x402.Error whose reason
// is the facilitator's invalidReason (or x402.ReasonUnexpectedVerifyError).
func (c *Client) Check(ctx context.Context, p *x402.Payment, r *x402.Requirement) error {
	v, err := c.Verify(ctx, p, r)
	if err != nil {
		return err
	}
	if v.IsValid {
		return nil
	}
	reason := reasonCode(v.InvalidReason, x402.ReasonInvalidPayload)
	return &x402.Error{Reason: reason, Message: clientMessage(v.InvalidMessage, "the facilitator refused the payment: "+reason)}
}

// Settle implements x402.Settler through /settle. The receipt is never nil:
// on any failure it says success false with a reason, the payer and the
// network, so the client always has something to read. The error is nil
// exactly when the facilitator reports success with a transaction; a
// success:false answer (HTTP 200 or not) yields an *x402.Error with its
// errorReason, and anything else one with x402.ReasonUnexpectedSettleError.
func (c *Client) Settle(ctx context.Context, p *x402.Payment, r *x402.Requirement) (*x402.Receipt, error) {
	rc := &x402.Receipt{ErrorReason: x402.ReasonUnexpectedSettleError}
	if p != nil {
		rc.Payer = p.Authorization.From.Hex()
		rc.Network = network(p.Version, r)
	}
	b, err := body(p, r)
	if err != nil {
		var xe *x402.Error
		if errors.As(err, &xe) {
			rc.ErrorReason = xe.Reason
		}
		return rc, err
	}
	a, err := c.exchange(ctx, EndpointSettle, b)
	if err != nil {
		uerr := unexpected(EndpointSettle, x402.ReasonUnexpectedSettleError, a.status, err)
		if mayHaveArrived(err) {
			// The facilitator may be settling it now: the money may still
			// move, so the authorization must stay spent.
			uerr = fmt.Errorf("%w (the request may have reached the facilitator: %w)", uerr, x402.ErrSettlementPending)
		}
		return rc, uerr
	}
	var s settleJSON
	if json.Unmarshal(a.body, &s) != nil || (s.Success == nil && s.ErrorReason == "") {
		return rc, garbage(EndpointSettle, x402.ReasonUnexpectedSettleError, a)
	}
	rc.Transaction = s.Transaction
	if rc.Payer == "" {
		rc.Payer = s.Payer
	}
	rc.Network = firstOf(s.Network, rc.Network)
	if a.ok() && s.Success != nil && *s.Success {
		if s.Transaction == "" {
			return rc, garbage(EndpointSettle, x402.ReasonUnexpectedSettleError, a)
		}
		if err := samePayer(EndpointSettle, p, s.Payer); err != nil {
			// The books and the receipt name the authorization's signer,
			// never a stranger's string: a facilitator that says it moved
			// someone else's money did not settle this payment.
			rc.ErrorReason = x402.ReasonUnexpectedSettleError
			return rc, err
		}
		if c.txCheck != nil {
			if err := c.txCheck(ctx, r, s.Transaction); err != nil {
				// Not booked as settled: the authorization stays spent
				// while nobody can tell whether the money moved.
				rc.ErrorReason = x402.ReasonSettlementPending
				return rc, fmt.Errorf("facilitator %s: reported success, but %w: %w", EndpointSettle, err, x402.ErrSettlementPending)
			}
		}
		rc.Success, rc.ErrorReason = true, ""
		return rc, nil
	}
	rc.ErrorReason = reasonCode(s.ErrorReason, x402.ReasonUnexpectedSettleError)
	xe := &x402.Error{Reason: rc.ErrorReason, Message: clientMessage(firstOf(s.ErrorMessage, s.Error), "settlement failed: "+rc.ErrorReason)}
	if rc.ErrorReason == x402.ReasonSettlementPending {
		// Broadcast, not yet mined (the reference facilitator's answer when
		// its wait for the receipt gave up): the money may still move.
		return rc, fmt.Errorf("facilitator %s: %w (transaction %q): %w", EndpointSettle, xe, s.Transaction, x402.ErrSettlementPending)
	}
	if !a.ok() {
		return rc, fmt.Errorf("facilitator %s: HTTP %d (transaction %q): %w", EndpointSettle, a.status, s.Transaction, xe)
	}
	return rc, xe
}

// Supported reads what the facilitator can settle.
func (c *Client) Supported(ctx context.Context) (*Supported, error) {
	a, err := c.exchange(ctx, EndpointSupported, nil)
	var ae *AuthError
	if errors.As(err, &ae) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("facilitator %s: %w", EndpointSupported, err)
	}
	if !a.ok() {
		return nil, fmt.Errorf("facilitator %s: HTTP %d: %s", EndpointSupported, a.status, excerpt(a.body))
	}
	var s Supported
	if err := json.Unmarshal(a.body, &s); err != nil || s.Kinds == nil {
		return nil, fmt.Errorf("facilitator %s: not a supported-kinds answer: %s", EndpointSupported, excerpt(a.body))
	}
	if s.Extensions == nil {
		s.Extensions = []string{}
	}
	if s.Signers == nil {
		s.Signers = map[string][]string{}
	}
	return &s, nil
}

// samePayer refuses a facilitator's payer that is not the signer of the
// payment's authorization (a non-address, a formula, another account).
func samePayer(endpoint string, p *x402.Payment, payer string) error {
	if p == nil || payer == "" || p.Authorization.From == (common.Address{}) {
		return nil
	}
	if common.IsHexAddress(payer) && common.HexToAddress(payer) == p.Authorization.From {
		return nil
	}
	return fmt.Errorf("facilitator %s: refused: the facilitator names payer %q, not the authorization's signer %s: %w", endpoint,
		clientMessage(payer, "?"), p.Authorization.From.Hex(),
		&x402.Error{Reason: x402.ReasonUnexpectedSettleError, Message: "the payment facilitator reported another payer"})
}

// unexpected wraps a failed exchange: the x402 reason for the client, the
// cause (a context error, a dial error) for errors.Is and the logs.
func unexpected(endpoint, reason string, status int, cause error) error {
	xe := &x402.Error{Reason: reason, Message: "the payment facilitator did not answer"}
	var ae *AuthError
	if errors.As(cause, &ae) {
		// The message already names the endpoint, status and key.
		xe.Message = "the payment facilitator is refusing this server's requests for now"
		return fmt.Errorf("%w: %w", cause, xe)
	}
	if status != 0 {
		return fmt.Errorf("facilitator %s: HTTP %d: %w: %w", endpoint, status, xe, cause)
	}
	return fmt.Errorf("facilitator %s: %w: %w", endpoint, xe, cause)
}

// mayHaveArrived reports whether a request that got no answer may still
// have reached the facilitator: every failure but one to connect (a dial
// or a name lookup), after which nothing was sent.
func mayHaveArrived(err error) bool {
	var ns *notSentError
	var ae *AuthError
	if errors.As(err, &ns) || errors.As(err, &ae) {
		return false // unsigned, or refused before anything was settled
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return false
	}
	var dns *net.DNSError
	return !errors.As(err, &dns)
}

// garbage reports an answer that is not the documented JSON.
func garbage(endpoint, reason string, a answer) error {
	xe := &x402.Error{Reason: reason, Message: "the payment facilitator gave an unreadable answer"}
	return fmt.Errorf("facilitator %s: HTTP %d: unreadable answer %s: %w", endpoint, a.status, excerpt(a.body), xe)
}

// firstOf returns the first non-empty string.
func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// maxReasonBytes bounds a facilitator's reason code: the x402 codes are a
// few dozen bytes of snake_case, and the code reaches the client verbatim.
const maxReasonBytes = 100

// reasonCode is a facilitator's reason made fit for the client's
// error.code and the receipt's errorReason: a short token of letters,
// digits and _.:-, else def (a facilitator that sends prose or nothing).
func reasonCode(reason, def string) string {
	if reason == "" || len(reason) > maxReasonBytes {
		return def
	}
	for i := 0; i < len(reason); i++ {
		c := reason[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-') {
			return def
		}
	}
	return reason
}

// clientMessage is a facilitator's explanation made fit for a client: its
// first line, at most 200 bytes (the reference facilitator forwards whole
// viem errors, contract call arguments and links included), else def.
func clientMessage(msg, def string) string {
	if i := strings.IndexAny(msg, "\r\n"); i >= 0 {
		msg = msg[:i]
	}
	msg = strings.TrimSpace(msg)
	if len(msg) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "..."
	}
	if msg == "" {
		return def
	}
	return msg
}
