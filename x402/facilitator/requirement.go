package facilitator

import (
	"encoding/json"
	"fmt"

	"github.com/farebox/farebox/x402"
)

// extraJSON is the EIP-712 domain hint the exact EVM scheme needs.
type extraJSON struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// requirementV2JSON is a v2 PaymentRequirements object, as @x402/core's
// facilitator reads it.
type requirementV2JSON struct {
	Scheme            string    `json:"scheme"`
	Network           string    `json:"network"`
	Amount            string    `json:"amount"`
	Asset             string    `json:"asset"`
	PayTo             string    `json:"payTo"`
	MaxTimeoutSeconds int64     `json:"maxTimeoutSeconds"`
	Extra             extraJSON `json:"extra"`
}

// requirementV1JSON is a v1 PaymentRequirements object, with every field
// the v1 schema requires.
type requirementV1JSON struct {
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

// requirementJSON renders the requirement farebox recomputed in the shape of
// the payment's protocol version. A requirement that cannot be expressed
// (no network, no v1 name for a v1 payment) is an *x402.Error.
func requirementJSON(version int, r *x402.Requirement) (json.RawMessage, error) {
	if r == nil || r.Network == nil || r.Amount == nil {
		return nil, &x402.Error{Reason: x402.ReasonInvalidRequirements, Message: "requirement without network or amount"}
	}
	n := r.Network
	extra := extraJSON{Name: n.Name, Version: n.Version}
	var v any
	switch version {
	case 2:
		v = requirementV2JSON{
			Scheme: r.Scheme, Network: n.CAIP2, Amount: r.Amount.String(),
			Asset: n.Asset.Hex(), PayTo: r.PayTo.Hex(),
			MaxTimeoutSeconds: r.MaxTimeoutSeconds, Extra: extra,
		}
	case 1:
		if n.V1Name == "" {
			return nil, &x402.Error{Reason: x402.ReasonInvalidNetwork, Message: fmt.Sprintf("network %s has no x402 v1 name", n.CAIP2)}
		}
		v = requirementV1JSON{
			Scheme: r.Scheme, Network: n.V1Name, MaxAmountRequired: r.Amount.String(),
			Resource: r.Resource, Description: r.Description, MimeType: r.MimeType,
			PayTo: r.PayTo.Hex(), MaxTimeoutSeconds: r.MaxTimeoutSeconds,
			Asset: n.Asset.Hex(), Extra: extra,
		}
	default:
		return nil, &x402.Error{Reason: x402.ReasonInvalidVersion, Message: fmt.Sprintf("x402 version %d is not supported", version)}
	}
	return json.Marshal(v)
}

// network names the requirement's network the way a receipt of this
// protocol version does.
func network(version int, r *x402.Requirement) string {
	if r == nil || r.Network == nil {
		return ""
	}
	if version == 1 && r.Network.V1Name != "" {
		return r.Network.V1Name
	}
	return r.Network.CAIP2
}
