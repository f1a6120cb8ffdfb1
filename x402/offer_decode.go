package x402

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// maxOfferBytes bounds the offers a paying client is willing to parse.
const maxOfferBytes = 64 << 10

// Offer is one entry of a 402's accepts list as a paying client reads it,
// from either protocol version. It is untrusted input until Requirement
// matches it against the client's own network registry.
type Offer struct {
	Version           int // 1 (body) or 2 (PAYMENT-REQUIRED header)
	Scheme            string
	Network           string // v1 name or CAIP-2 id, as sent
	Amount            string // atomic units, decimal
	Asset             string
	PayTo             string
	MaxTimeoutSeconds int64
	Resource          string
	Description       string
	MimeType          string
	ExtraName         string // EIP-712 domain name the server expects
	ExtraVersion      string // EIP-712 domain version the server expects
}

// DecodePaymentRequired reads the v2 PAYMENT-REQUIRED header value.
func DecodePaymentRequired(header string) ([]Offer, error) {
	if header == "" || len(header) > maxOfferBytes {
		return nil, errors.New("x402: PAYMENT-REQUIRED header is empty or too large")
	}
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		return nil, errors.New("x402: PAYMENT-REQUIRED header is not standard base64")
	}
	var pr struct {
		X402Version int            `json:"x402Version"`
		Resource    resourceJSON   `json:"resource"`
		Accepts     []acceptV2JSON `json:"accepts"`
	}
	if err := json.Unmarshal(raw, &pr); err != nil {
		return nil, fmt.Errorf("x402: PAYMENT-REQUIRED header: %w", err)
	}
	if pr.X402Version != 2 {
		return nil, fmt.Errorf("x402: PAYMENT-REQUIRED header has x402Version %d", pr.X402Version)
	}
	out := make([]Offer, 0, len(pr.Accepts))
	for _, a := range pr.Accepts {
		out = append(out, Offer{Version: 2, Scheme: a.Scheme, Network: a.Network, Amount: a.Amount,
			Asset: a.Asset, PayTo: a.PayTo, MaxTimeoutSeconds: a.MaxTimeoutSeconds,
			Resource: pr.Resource.URL, Description: pr.Resource.Description, MimeType: pr.Resource.MimeType,
			ExtraName: a.Extra.Name, ExtraVersion: a.Extra.Version})
	}
	return out, nil
}

// DecodeV1Offers reads the `accepts` of a v1 402 body
// ({"x402Version":1,"accepts":[...]}); other body fields are ignored.
func DecodeV1Offers(body []byte) ([]Offer, error) {
	if len(body) > maxOfferBytes {
		return nil, errors.New("x402: 402 body too large")
	}
	var b struct {
		X402Version int            `json:"x402Version"`
		Accepts     []acceptV1JSON `json:"accepts"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("x402: 402 body: %w", err)
	}
	if b.X402Version != 1 {
		return nil, fmt.Errorf("x402: 402 body has x402Version %d", b.X402Version)
	}
	out := make([]Offer, 0, len(b.Accepts))
	for _, a := range b.Accepts {
		out = append(out, Offer{Version: 1, Scheme: a.Scheme, Network: a.Network, Amount: a.MaxAmountRequired,
			Asset: a.Asset, PayTo: a.PayTo, MaxTimeoutSeconds: a.MaxTimeoutSeconds, Resource: a.Resource,
			Description: a.Description, MimeType: a.MimeType, ExtraName: a.Extra.Name, ExtraVersion: a.Extra.Version})
	}
	return out, nil
}

// Requirement turns an offer into a Requirement on one of the client's own
// networks. It fails unless the scheme is exact, the network is in reg, and
// the asset and EIP-712 domain are that network's token: a client only pays
// in tokens it knows.
func (o *Offer) Requirement(reg *Registry) (*Requirement, error) {
	if o.Scheme != SchemeExact {
		return nil, fmt.Errorf("x402: scheme %q is not supported", o.Scheme)
	}
	n := reg.Lookup(o.Version, o.Network)
	if n == nil {
		return nil, fmt.Errorf("x402: network %q is not configured", o.Network)
	}
	if !common.IsHexAddress(o.Asset) || common.HexToAddress(o.Asset) != n.Asset {
		return nil, fmt.Errorf("x402: asset %q is not the configured token on %s", o.Asset, o.Network)
	}
	if o.ExtraName != "" && (o.ExtraName != n.Name || o.ExtraVersion != n.Version) {
		return nil, fmt.Errorf("x402: offer's EIP-712 domain %q/%q differs from %s's", o.ExtraName, o.ExtraVersion, o.Network)
	}
	if !common.IsHexAddress(o.PayTo) {
		return nil, fmt.Errorf("x402: payTo %q is not an address", o.PayTo)
	}
	amount, ok := new(big.Int).SetString(o.Amount, 10)
	if !ok || amount.Sign() < 0 || amount.BitLen() > 256 {
		return nil, fmt.Errorf("x402: amount %q is not a decimal number", o.Amount)
	}
	if o.MaxTimeoutSeconds <= 0 {
		return nil, fmt.Errorf("x402: maxTimeoutSeconds %d is not positive", o.MaxTimeoutSeconds)
	}
	return &Requirement{Scheme: o.Scheme, Network: n, Amount: amount, PayTo: common.HexToAddress(o.PayTo),
		MaxTimeoutSeconds: o.MaxTimeoutSeconds, Resource: o.Resource, Description: o.Description, MimeType: o.MimeType}, nil
}
