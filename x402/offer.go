package x402

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// Header names of both protocol versions (docs/wire.md §5).
const (
	HeaderPaymentRequired    = "PAYMENT-REQUIRED"   // v2 offer, response
	HeaderPaymentSignature   = "PAYMENT-SIGNATURE"  // v2 payment, request
	HeaderPaymentResponse    = "PAYMENT-RESPONSE"   // v2 receipt, response
	HeaderXPayment           = "X-PAYMENT"          // v1 payment, request
	HeaderXPaymentResponse   = "X-PAYMENT-RESPONSE" // v1 receipt, response
	SchemeExact              = "exact"              // EIP-3009 transferWithAuthorization, the scheme of this package
	DefaultMaxTimeoutSeconds = 300                  // maxTimeoutSeconds when config says nothing
)

// extraJSON is the EIP-712 domain hint every offer carries.
type extraJSON struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// resourceJSON is the v2 description of what is being paid for.
type resourceJSON struct {
	URL         string `json:"url"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType"`
}

// acceptJSON is one v2 requirement, in the field order of the reference
// SDK, with its scheme's extra object.
type acceptJSON[E any] struct {
	Scheme            string `json:"scheme"`
	Network           string `json:"network"`
	Amount            string `json:"amount"`
	Asset             string `json:"asset"`
	PayTo             string `json:"payTo"`
	MaxTimeoutSeconds int64  `json:"maxTimeoutSeconds"`
	Extra             E      `json:"extra"`
}

// acceptV2JSON is an exact requirement: its extra is the EIP-712 domain.
type acceptV2JSON = acceptJSON[extraJSON]

// AcceptJSON renders one v2 requirement (an element of a 402's accepts)
// for scheme, with extra as its scheme's `extra` object: every scheme's
// requirement shares the other fields and their order.
func AcceptJSON(r *Requirement, scheme string, extra any) json.RawMessage {
	a := acceptJSON[any]{Scheme: scheme, Network: r.Network.CAIP2, Amount: r.Amount.String(),
		Asset: r.Network.Asset.Hex(), PayTo: r.PayTo.Hex(), MaxTimeoutSeconds: r.MaxTimeoutSeconds, Extra: extra}
	b, _ := json.Marshal(a) // extra is a scheme's plain struct of strings and numbers
	return b
}

// paymentRequiredJSON is the decoded v2 PAYMENT-REQUIRED header.
type paymentRequiredJSON struct {
	X402Version int                        `json:"x402Version"`
	Error       string                     `json:"error,omitempty"`
	Resource    resourceJSON               `json:"resource"`
	Accepts     []json.RawMessage          `json:"accepts"`
	Extensions  map[string]json.RawMessage `json:"extensions,omitempty"`
}

// acceptV1JSON is one v1 requirement with every field x402-fetch validates;
// outputSchema is deliberately absent (the v1 client refuses null).
type acceptV1JSON struct {
	Scheme            string    `json:"scheme"`
	Network           string    `json:"network"`
	MaxAmountRequired string    `json:"maxAmountRequired"`
	Resource          string    `json:"resource"`
	Description       string    `json:"description"`
	MimeType          string    `json:"mimeType"`
	PayTo             string    `json:"payTo"`
	MaxTimeoutSeconds int64     `json:"maxTimeoutSeconds"`
	Asset             string    `json:"asset"`
	Extra             extraJSON `json:"extra"`
}

// acceptV2 renders one requirement in its v2 wire form, also echoed by
// payers as the `accepted` field of a payment.
func acceptV2(r *Requirement) acceptV2JSON {
	return acceptV2JSON{
		Scheme:            r.Scheme,
		Network:           r.Network.CAIP2,
		Amount:            r.Amount.String(),
		Asset:             r.Network.Asset.Hex(),
		PayTo:             r.PayTo.Hex(),
		MaxTimeoutSeconds: r.MaxTimeoutSeconds,
		Extra:             extraJSON{Name: r.Network.Name, Version: r.Network.Version},
	}
}

// acceptV1 renders one requirement in its v1 wire form; r.Network must
// have a V1Name.
func acceptV1(r *Requirement) acceptV1JSON {
	return acceptV1JSON{
		Scheme:            r.Scheme,
		Network:           r.Network.V1Name,
		MaxAmountRequired: r.Amount.String(),
		Resource:          r.Resource,
		Description:       r.Description,
		MimeType:          r.MimeType,
		PayTo:             r.PayTo.Hex(),
		MaxTimeoutSeconds: r.MaxTimeoutSeconds,
		Asset:             r.Network.Asset.Hex(),
		Extra:             extraJSON{Name: r.Network.Name, Version: r.Network.Version},
	}
}

// RequirementJSON renders one requirement as the PaymentRequirements
// object of the given protocol version, the shape a facilitator's /verify
// and /settle read. A requirement that cannot be expressed (no network or
// amount, no v1 name for version 1, another version) is an *Error.
func RequirementJSON(version int, r *Requirement) ([]byte, error) {
	if r == nil || r.Network == nil || r.Amount == nil {
		return nil, &Error{Reason: ReasonInvalidRequirements, Message: "requirement without network or amount"}
	}
	switch version {
	case 2:
		return json.Marshal(acceptV2(r))
	case 1:
		if r.Network.V1Name == "" {
			return nil, &Error{Reason: ReasonInvalidNetwork, Message: fmt.Sprintf("network %s has no x402 v1 name", r.Network.CAIP2)}
		}
		return json.Marshal(acceptV1(r))
	default:
		return nil, &Error{Reason: ReasonInvalidVersion, Message: fmt.Sprintf("x402 version %d is not supported", version)}
	}
}

// PaymentRequiredHeader renders the v2 PAYMENT-REQUIRED header value for
// the given requirements (all for the same resource): base64 (standard,
// padded) of the PaymentRequired JSON. errMsg fills its optional `error`.
func PaymentRequiredHeader(reqs []*Requirement, errMsg string) string {
	return PaymentRequiredHeaderWith(reqs, errMsg, nil)
}

// PaymentIdentifierExtension declares x402's payment-identifier extension
// (optional): a client may name its purchase with an id, and a server that
// sees the same id and payload again answers with the same result.
var PaymentIdentifierExtension = json.RawMessage(`{"info":{"required":false},"schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"required":{"type":"boolean"},"id":{"type":"string","minLength":16,"maxLength":128,"pattern":"^[a-zA-Z0-9_-]+$"}},"required":["required"]}}`)

// PaymentRequiredHeaderWith is PaymentRequiredHeader declaring extensions
// (by name, e.g. "payment-identifier": PaymentIdentifierExtension).
func PaymentRequiredHeaderWith(reqs []*Requirement, errMsg string, extensions map[string]json.RawMessage) string {
	return PaymentRequiredHeaderOffer(reqs, nil, errMsg, extensions)
}

// PaymentRequiredHeaderOffer is PaymentRequiredHeaderWith with accepts of
// other schemes (upto, batch-settlement), rendered by their packages,
// listed before the exact requirements: a client takes the first it
// speaks, and the metered schemes charge the actual use, not the ceiling.
// reqs must hold at least one requirement: it names the resource.
func PaymentRequiredHeaderOffer(reqs []*Requirement, others []json.RawMessage, errMsg string, extensions map[string]json.RawMessage) string {
	pr := paymentRequiredJSON{X402Version: 2, Error: errMsg, Accepts: make([]json.RawMessage, 0, len(reqs)+len(others)), Extensions: extensions}
	pr.Accepts = append(pr.Accepts, others...)
	for _, r := range reqs {
		if r == nil || r.Network == nil || r.Amount == nil {
			continue
		}
		if pr.Resource.URL == "" {
			pr.Resource = resourceJSON{URL: r.Resource, Description: r.Description, MimeType: r.MimeType}
		}
		b, _ := json.Marshal(acceptV2(r)) // only strings and ints: cannot fail
		pr.Accepts = append(pr.Accepts, b)
	}
	b, _ := json.Marshal(pr) // raw accepts come from json.Marshal too
	return base64.StdEncoding.EncodeToString(b)
}

// V1Accepts renders the `accepts` array of a v1 402 body. Only networks with
// a v1 name appear (v1 clients throw on names they do not know); the result
// is always a JSON array, possibly empty.
func V1Accepts(reqs []*Requirement) []byte {
	out := make([]acceptV1JSON, 0, len(reqs))
	for _, r := range reqs {
		if r == nil || r.Network == nil || r.Network.V1Name == "" || r.Amount == nil {
			continue
		}
		out = append(out, acceptV1(r))
	}
	b, _ := json.Marshal(out)
	return b
}
