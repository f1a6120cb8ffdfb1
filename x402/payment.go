package x402

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
)

// authorizationJSON is an EIP-3009 authorization in wire form: addresses
// checksummed, numbers as decimal strings, nonce as 0x-prefixed hex.
type authorizationJSON struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
}

type exactPayloadJSON struct {
	Signature     string            `json:"signature"`
	Authorization authorizationJSON `json:"authorization"`
}

type paymentV1JSON struct {
	X402Version int              `json:"x402Version"`
	Scheme      string           `json:"scheme"`
	Network     string           `json:"network"`
	Payload     exactPayloadJSON `json:"payload"`
}

type paymentV2JSON struct {
	X402Version int              `json:"x402Version"`
	Resource    *resourceJSON    `json:"resource,omitempty"`
	Accepted    acceptV2JSON     `json:"accepted"`
	Payload     exactPayloadJSON `json:"payload"`
}

// EncodePayment renders a signed payment as the header value a paying client
// sends for req: X-PAYMENT for p.Version 1, PAYMENT-SIGNATURE for 2 (which
// echoes req as `accepted`). It also stores the JSON in p.Raw.
func EncodePayment(p *Payment, req *Requirement) (string, error) {
	if req == nil || req.Network == nil {
		return "", errors.New("x402: payment needs a requirement with a network")
	}
	a := &p.Authorization
	if a.Value == nil || a.ValidAfter == nil || a.ValidBefore == nil {
		return "", errors.New("x402: authorization has unset numbers")
	}
	payload := exactPayloadJSON{
		Signature: "0x" + hex.EncodeToString(p.Signature),
		Authorization: authorizationJSON{
			From: a.From.Hex(), To: a.To.Hex(), Value: a.Value.String(),
			ValidAfter: a.ValidAfter.String(), ValidBefore: a.ValidBefore.String(),
			Nonce: "0x" + hex.EncodeToString(a.Nonce[:]),
		},
	}
	var v any
	switch p.Version {
	case 1:
		if req.Network.V1Name == "" {
			return "", errors.New("x402: network " + req.Network.CAIP2 + " has no v1 name")
		}
		v = paymentV1JSON{X402Version: 1, Scheme: req.Scheme, Network: req.Network.V1Name, Payload: payload}
	case 2:
		v = paymentV2JSON{X402Version: 2, Accepted: acceptV2(req), Payload: payload,
			Resource: &resourceJSON{URL: req.Resource, Description: req.Description, MimeType: req.MimeType}}
	default:
		return "", errors.New("x402: unsupported x402 version")
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	p.Raw = raw
	return base64.StdEncoding.EncodeToString(raw), nil
}
