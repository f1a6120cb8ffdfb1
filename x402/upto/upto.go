// Package upto is the server side of x402's `upto` scheme on EVM: the payer
// signs one Permit2 PermitWitnessTransferFrom for a ceiling, bound by its
// witness to the receiver and to the facilitator allowed to settle it; after
// the answer the facilitator (farebox's relayer) settles the actual charge
// through x402UptoPermit2Proxy. It decodes and verifies payloads with the
// hand-rolled Permit2 digest, builds settle calldata (with the EIP-2612
// gas-sponsoring permit when the payer sent one) and the offer and receipt.
package upto

import (
	"encoding/json"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// Scheme is the x402 scheme name.
const Scheme = "upto"

// Reason codes: the spec's one scheme-specific code, and the codes
// @x402/evm 2.27's upto facilitator answers with.
const (
	ReasonSettlementExceedsAmount = "invalid_upto_evm_payload_settlement_exceeds_amount" // the spec
	ReasonScheme                  = "invalid_upto_evm_scheme"
	ReasonNetworkMismatch         = "invalid_upto_evm_network_mismatch"
	ReasonTransactionFailed       = "invalid_upto_evm_transaction_failed"
	ReasonAmountExceedsPermitted  = "upto_amount_exceeds_permitted"
	ReasonUnauthorizedFacilitator = "upto_unauthorized_facilitator"
	ReasonFacilitatorMismatch     = "upto_facilitator_mismatch"
	ReasonInvalidPayload          = "invalid_payload"
	ReasonSpender                 = "invalid_permit2_spender"
	ReasonRecipientMismatch       = "invalid_permit2_recipient_mismatch"
	ReasonDeadlineExpired         = "permit2_deadline_expired"
	ReasonNotYetValid             = "permit2_not_yet_valid"
	ReasonAmountMismatch          = "permit2_amount_mismatch"
	ReasonTokenMismatch           = "permit2_token_mismatch"
	ReasonSignature               = "invalid_permit2_signature"
	ReasonAllowanceRequired       = "permit2_allowance_required"
	ReasonInsufficientBalance     = "permit2_insufficient_balance"
	ReasonSimulationFailed        = "permit2_simulation_failed"
)

// Witness is the upto proxy's witness: where the money goes, who may settle
// it, and from when.
type Witness struct {
	To          common.Address
	Facilitator common.Address
	ValidAfter  *big.Int
}

var (
	witnessTypeHash = crypto.Keccak256Hash([]byte("Witness(address to,address facilitator,uint256 validAfter)"))
	// WitnessType is x402UptoPermit2Proxy.WITNESS_TYPE_STRING.
	WitnessType = eip712.NewWitnessType("Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)")
)

// Hash is the witness struct hash the proxy passes to Permit2.
func (w *Witness) Hash() [32]byte {
	return eip712.Words(make([]byte, 0, 4*32)).Bytes32(witnessTypeHash).Address(w.To).Address(w.Facilitator).Uint(w.ValidAfter).Hash()
}

// Payload is a decoded upto payment: the payload object and, when the
// payer sent one, its EIP-2612 permit for Permit2.
type Payload struct {
	From      common.Address
	Permit    eip712.PermitWitnessTransferFrom // Amount is the ceiling
	Witness   Witness
	Signature []byte
	// GasSponsoring is extensions.eip2612GasSponsoring, nil when absent.
	GasSponsoring *eip712.GasSponsoring
}

// Key identifies the authorization for replay protection: Permit2 nonces
// are per owner, unordered, usable once.
func (p *Payload) Key(n *x402.Network) x402.Key {
	var nonce [32]byte
	p.Permit.Nonce.FillBytes(nonce[:])
	return x402.Key{ChainID: n.ChainID.String(), Asset: n.Asset, From: p.From, Nonce: nonce}
}

// payloadJSON is an upto payment's `payload`: one Permit2 witness
// transfer, read by DecodePayload and written by EncodePayload.
type payloadJSON struct {
	Signature            string       `json:"signature"`
	Permit2Authorization *permit2JSON `json:"permit2Authorization"`
}

type permit2JSON struct {
	From      string `json:"from"`
	Permitted struct {
		Token  string `json:"token"`
		Amount string `json:"amount"`
	} `json:"permitted"`
	Spender  string `json:"spender"`
	Nonce    string `json:"nonce"`
	Deadline string `json:"deadline"`
	Witness  struct {
		To          string `json:"to"`
		Facilitator string `json:"facilitator"`
		ValidAfter  string `json:"validAfter"`
	} `json:"witness"`
}

// EncodePayload renders a signed p as an upto payment's `payload` object
// (numbers as decimal strings), the form DecodePayload reads.
func EncodePayload(p *Payload) json.RawMessage {
	a := &permit2JSON{From: p.From.Hex(), Spender: p.Permit.Spender.Hex(), Nonce: p.Permit.Nonce.String(),
		Deadline: p.Permit.Deadline.String()}
	a.Permitted.Token, a.Permitted.Amount = p.Permit.Token.Hex(), p.Permit.Amount.String()
	a.Witness.To, a.Witness.Facilitator, a.Witness.ValidAfter = p.Witness.To.Hex(), p.Witness.Facilitator.Hex(), p.Witness.ValidAfter.String()
	b, _ := json.Marshal(payloadJSON{Signature: hexutil.Encode(p.Signature), Permit2Authorization: a}) // strings only
	return b
}

func bad(msg string) *x402.Error {
	return &x402.Error{Reason: ReasonInvalidPayload, Message: msg, Malformed: true}
}

// DecodePayload decodes an upto payment's `payload` object and its
// `extensions` object (may be nil). Numbers are decimal strings; the
// Permit2 nonce may also be 0x-hex (the spec's example).
func DecodePayload(payload, extensions []byte) (*Payload, error) {
	var pj payloadJSON
	if err := json.Unmarshal(payload, &pj); err != nil || pj.Permit2Authorization == nil {
		return nil, bad("payload needs signature and permit2Authorization")
	}
	a := pj.Permit2Authorization
	var err *x402.Error
	addr := func(field, s string) common.Address {
		if len(s) != 42 || !strings.HasPrefix(s, "0x") || !common.IsHexAddress(s) {
			if err == nil {
				err = bad(field + " must be a 0x-prefixed address")
			}
		}
		return common.HexToAddress(s)
	}
	num := func(field, s string) *big.Int {
		v, ok := new(big.Int), false
		if strings.HasPrefix(s, "0x") {
			v, ok = v.SetString(s[2:], 16)
		} else if s != "" && s[0] != '+' && s[0] != '-' {
			v, ok = v.SetString(s, 10)
		}
		if !ok || v.BitLen() > 256 {
			if err == nil {
				err = bad(field + " must be a uint256 string")
			}
			return new(big.Int)
		}
		return v
	}
	p := &Payload{From: addr("from", a.From),
		Permit: eip712.PermitWitnessTransferFrom{Token: addr("permitted.token", a.Permitted.Token),
			Amount: num("permitted.amount", a.Permitted.Amount), Spender: addr("spender", a.Spender),
			Nonce: num("nonce", a.Nonce), Deadline: num("deadline", a.Deadline)},
		Witness: Witness{To: addr("witness.to", a.Witness.To), Facilitator: addr("witness.facilitator", a.Witness.Facilitator),
			ValidAfter: num("witness.validAfter", a.Witness.ValidAfter)}}
	if err != nil {
		return nil, err
	}
	sig, derr := hexutil.Decode(pj.Signature)
	if derr != nil || len(sig) == 0 {
		return nil, bad("signature must be 0x-prefixed hex")
	}
	p.Signature = sig
	g, gerr := eip712.DecodeGasSponsoring(extensions)
	if gerr != nil {
		return nil, &x402.Error{Reason: eip712.ReasonGasSponsoringFormat, Message: "extensions.eip2612GasSponsoring is malformed"}
	}
	p.GasSponsoring = g
	return p, nil
}

// Contracts is one chain's Permit2 and upto proxy, with Permit2's domain
// separator precomputed.
type Contracts struct {
	Permit2 common.Address
	Proxy   common.Address
	domain  [32]byte
}

// NewContracts precomputes Permit2's EIP-712 domain on the given chain.
func NewContracts(chainID *big.Int, permit2, proxy common.Address) *Contracts {
	return &Contracts{Permit2: permit2, Proxy: proxy, domain: eip712.Permit2Domain(chainID, permit2)}
}

// Digest is what the payer signed: PermitWitnessTransferFrom with the upto witness.
func (c *Contracts) Digest(p *Payload) [32]byte {
	return WitnessType.Digest(c.domain, &p.Permit, p.Witness.Hash())
}

// Verifier checks upto payments locally. Facilitator is the address that
// settles (farebox's relayer), announced as extra.facilitatorAddress. The
// zero Now is time.Now; a zero Skew is x402.DefaultSkew.
type Verifier struct {
	Contracts   *Contracts
	Facilitator common.Address
	Now         func() time.Time
	Skew        time.Duration
}

// Verify checks the payment against the requirement farebox recomputed
// (req.Amount is the ceiling), in the order of @x402/evm's facilitator,
// and bounds the deadline from above like `exact` bounds validBefore. The
// allowance, balance and simulation checks need the chain (see
// SettleCalldata for the call to simulate). It returns an *x402.Error.
func (v *Verifier) Verify(p *Payload, req *x402.Requirement) error {
	now := time.Now()
	if v.Now != nil {
		now = v.Now()
	}
	skew := v.Skew
	if skew == 0 {
		skew = x402.DefaultSkew
	}
	t := now.Unix()
	refuse := func(reason, msg string) error { return &x402.Error{Reason: reason, Message: msg} }
	switch {
	case p.Permit.Spender != v.Contracts.Proxy:
		return refuse(ReasonSpender, "permit2Authorization.spender must be the upto proxy "+v.Contracts.Proxy.Hex())
	case p.Witness.To != req.PayTo:
		return refuse(ReasonRecipientMismatch, "witness.to must be "+req.PayTo.Hex())
	case p.Witness.Facilitator != v.Facilitator:
		return refuse(ReasonFacilitatorMismatch, "witness.facilitator must be "+v.Facilitator.Hex())
	case !p.Permit.Deadline.IsInt64() || p.Permit.Deadline.Int64() < t+int64(x402.MinValidity/time.Second):
		return refuse(ReasonDeadlineExpired, "the authorization expires in less than 6 seconds")
	case p.Permit.Deadline.Int64() > t+req.MaxTimeoutSeconds+int64(skew/time.Second):
		return refuse(ReasonDeadlineExpired, "the authorization's deadline is further away than maxTimeoutSeconds")
	case !p.Witness.ValidAfter.IsInt64() || p.Witness.ValidAfter.Int64() > t:
		return refuse(ReasonNotYetValid, "witness.validAfter is in the future")
	case p.Permit.Amount.Cmp(req.Amount) != 0:
		return refuse(ReasonAmountMismatch, "permitted.amount must be exactly "+req.Amount.String())
	case p.Permit.Token != req.Network.Asset:
		return refuse(ReasonTokenMismatch, "permitted.token must be "+req.Network.Asset.Hex())
	}
	if signer, err := eip712.Recover(v.Contracts.Digest(p), p.Signature); err != nil || signer != p.From {
		return refuse(ReasonSignature, "signature does not recover to permit2Authorization.from")
	}
	if g := p.GasSponsoring; g != nil {
		if r := g.Verify(req.Network, v.Contracts.Permit2, p.From, p.Permit.Amount, now); r != "" {
			return refuse(r, "extensions.eip2612GasSponsoring does not authorize Permit2 for this payment")
		}
	}
	return nil
}

var proxyABI = contracts.NewUptoPermit2Proxy()

// SettleCalldata is the proxy call that moves amount (0 < amount <= the
// ceiling) to the receiver, to be sent by the witness's facilitator:
// settleWithPermit when the payer sent an EIP-2612 permit, else settle. A
// zero charge needs no transaction (the authorization lapses unused).
func SettleCalldata(p *Payload, amount *big.Int) ([]byte, error) {
	if amount.Sign() <= 0 {
		return nil, &x402.Error{Reason: ReasonInvalidPayload, Message: "nothing to settle"}
	}
	if amount.Cmp(p.Permit.Amount) > 0 {
		return nil, &x402.Error{Reason: ReasonSettlementExceedsAmount, Message: "charge exceeds the authorized maximum"}
	}
	permit := contracts.ISignatureTransferPermitTransferFrom{
		Permitted: contracts.ISignatureTransferTokenPermissions{Token: p.Permit.Token, Amount: p.Permit.Amount},
		Nonce:     p.Permit.Nonce, Deadline: p.Permit.Deadline}
	w := contracts.X402UptoPermit2ProxyWitness{To: p.Witness.To, Facilitator: p.Witness.Facilitator, ValidAfter: p.Witness.ValidAfter}
	if g := p.GasSponsoring; g != nil {
		v, r, s := g.VRS()
		return proxyABI.PackSettleWithPermit(contracts.X402BasePermit2ProxyEIP2612Permit{Value: g.Permit.Value,
			Deadline: g.Permit.Deadline, R: r, S: s, V: v}, permit, amount, p.From, w, p.Signature), nil
	}
	return proxyABI.PackSettle(permit, amount, p.From, w, p.Signature), nil
}

// extraJSON is an upto requirement's extra object.
type extraJSON struct {
	Name                string `json:"name"`
	Version             string `json:"version"`
	FacilitatorAddress  string `json:"facilitatorAddress"`
	AssetTransferMethod string `json:"assetTransferMethod"`
}

// Accept renders one upto requirement of a v2 402 (req.Amount is the
// ceiling); facilitator is the address that will settle. Declare
// eip712.GasSponsoringDeclaration() under the 402's
// extensions.eip2612GasSponsoring beside it.
func Accept(req *x402.Requirement, facilitator common.Address) json.RawMessage {
	return x402.AcceptJSON(req, Scheme, extraJSON{Name: req.Network.Name, Version: req.Network.Version,
		FacilitatorAddress: facilitator.Hex(), AssetTransferMethod: "permit2"})
}
