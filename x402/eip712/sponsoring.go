package eip712

import (
	"encoding/json"
	"errors"
	"math/big"
	"regexp"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/farebox/farebox/x402"
	"github.com/tidwall/gjson"
)

// GasSponsoringKey is the x402 extension by which a server offers to submit
// a payer's EIP-2612 permit for Permit2 (so a payer without ETH who never
// approved Permit2 can pay through it), and the payer sends that permit.
const GasSponsoringKey = "eip2612GasSponsoring"

// Refusal reasons of the extension, as @x402/evm 2.27 names them.
const (
	ReasonGasSponsoringFormat   = "invalid_eip2612_extension_format"
	ReasonGasSponsoringFrom     = "eip2612_from_mismatch"
	ReasonGasSponsoringAsset    = "eip2612_asset_mismatch"
	ReasonGasSponsoringSpender  = "eip2612_spender_not_permit2"
	ReasonGasSponsoringDeadline = "eip2612_deadline_expired"
	ReasonGasSponsoringAmount   = "permit2_2612_amount_mismatch"
	ReasonGasSponsoringSig      = "invalid_eip2612_signature"
)

// GasSponsoringDeclaration is the value of extensions.eip2612GasSponsoring
// in a 402 (specs/extensions/eip2612_gas_sponsoring.md): @x402/evm signs a
// permit only when it sees this key.
func GasSponsoringDeclaration() json.RawMessage {
	return json.RawMessage(`{"info":{"description":"The facilitator accepts EIP-2612 gasless Permit to ` + "`Permit2`" +
		` canonical contract.","version":"1"},"schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"properties":{"from":{"type":"string","pattern":"^0x[a-fA-F0-9]{40}$"},"asset":{"type":"string","pattern":"^0x[a-fA-F0-9]{40}$"},` +
		`"spender":{"type":"string","pattern":"^0x[a-fA-F0-9]{40}$"},"amount":{"type":"string","pattern":"^[0-9]+$"},` +
		`"nonce":{"type":"string","pattern":"^[0-9]+$"},"deadline":{"type":"string","pattern":"^[0-9]+$"},` +
		`"signature":{"type":"string","pattern":"^0x[a-fA-F0-9]+$"},"version":{"type":"string","pattern":"^[0-9]+(\\.[0-9]+)*$"}},` +
		`"required":["from","asset","spender","amount","nonce","deadline","signature","version"]}}`)
}

// GasSponsoring is a payer's EIP-2612 permit for Permit2, sent in
// extensions.eip2612GasSponsoring.info of a payment.
type GasSponsoring struct {
	Asset     common.Address
	Permit    Permit2612 // Owner = from, Spender = Permit2
	Signature []byte
}

type sponsoringJSON struct {
	Info *struct {
		From      string `json:"from"`
		Asset     string `json:"asset"`
		Spender   string `json:"spender"`
		Amount    string `json:"amount"`
		Nonce     string `json:"nonce"`
		Deadline  string `json:"deadline"`
		Signature string `json:"signature"`
		Version   string `json:"version"`
	} `json:"info"`
}

var (
	addressRe = regexp.MustCompile(`^0x[a-fA-F0-9]{40}$`)
	numberRe  = regexp.MustCompile(`^[0-9]+$`)
	versionRe = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*$`)
)

// ErrGasSponsoringFormat is a permit that does not match the extension's schema.
var ErrGasSponsoringFormat = errors.New(ReasonGasSponsoringFormat)

// DecodeGasSponsoring reads the permit from a payment's `extensions`
// object; (nil, nil) when the payer sent none.
func DecodeGasSponsoring(extensions []byte) (*GasSponsoring, error) {
	if len(extensions) == 0 || noPermit(extensions) {
		return nil, nil
	}
	return decodeGasSponsoring(extensions)
}

// decodeGasSponsoring is DecodeGasSponsoring with encoding/json alone.
func decodeGasSponsoring(extensions []byte) (*GasSponsoring, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(extensions, &all); err != nil {
		return nil, ErrGasSponsoringFormat
	}
	raw, ok := all[GasSponsoringKey]
	if !ok {
		return nil, nil
	}
	var sj sponsoringJSON
	if err := json.Unmarshal(raw, &sj); err != nil || sj.Info == nil {
		return nil, ErrGasSponsoringFormat
	}
	i := sj.Info
	if i.From == "" || i.Asset == "" || i.Spender == "" || i.Amount == "" || i.Nonce == "" || i.Deadline == "" ||
		i.Signature == "" || i.Version == "" {
		// The 402's declaration echoed back without a permit (@x402/core
		// copies declared extensions into every payment): none sent, as
		// @x402/evm's facilitator reads it.
		return nil, nil
	}
	if !addressRe.MatchString(i.From) || !addressRe.MatchString(i.Asset) || !addressRe.MatchString(i.Spender) ||
		!numberRe.MatchString(i.Amount) || !numberRe.MatchString(i.Nonce) || !numberRe.MatchString(i.Deadline) ||
		!versionRe.MatchString(i.Version) {
		return nil, ErrGasSponsoringFormat
	}
	sig, err := hexutil.Decode(i.Signature)
	if err != nil || len(sig) != 65 {
		return nil, ErrGasSponsoringFormat
	}
	num := func(s string) *big.Int { v, _ := new(big.Int).SetString(s, 10); return v }
	g := &GasSponsoring{Asset: common.HexToAddress(i.Asset), Signature: sig,
		Permit: Permit2612{Owner: common.HexToAddress(i.From), Spender: common.HexToAddress(i.Spender),
			Value: num(i.Amount), Nonce: num(i.Nonce), Deadline: num(i.Deadline)}}
	for _, v := range []*big.Int{g.Permit.Value, g.Permit.Nonce, g.Permit.Deadline} {
		if v.BitLen() > 256 {
			return nil, ErrGasSponsoringFormat
		}
	}
	return g, nil
}

// Verify checks the permit for a Permit2 transfer of amount by payer of
// n's token, with Permit2 at permit2: the spender is Permit2, the value is
// exactly the permitted amount (the x402 proxies require it), it is valid
// for at least 6 more seconds, and the signature recovers to the payer. It
// returns the reason code of the first failed check, "" when it passes.
func (g *GasSponsoring) Verify(n *x402.Network, permit2, payer common.Address, amount *big.Int, now time.Time) string {
	switch {
	case g.Permit.Owner != payer:
		return ReasonGasSponsoringFrom
	case g.Asset != n.Asset:
		return ReasonGasSponsoringAsset
	case g.Permit.Spender != permit2:
		return ReasonGasSponsoringSpender
	case !g.Permit.Deadline.IsInt64() || g.Permit.Deadline.Int64() < now.Unix()+6:
		return ReasonGasSponsoringDeadline
	case g.Permit.Value.Cmp(amount) != 0:
		return ReasonGasSponsoringAmount
	}
	if signer, err := Recover(PermitDigest(n, &g.Permit), g.Signature); err != nil || signer != payer {
		return ReasonGasSponsoringSig
	}
	return ""
}

// VRS splits the permit's signature for the contracts' EIP2612Permit structs.
func (g *GasSponsoring) VRS() (v uint8, r, s [32]byte) {
	copy(r[:], g.Signature[0:32])
	copy(s[:], g.Signature[32:64])
	v = g.Signature[64]
	if v < 27 {
		v += 27
	}
	return v, r, s
}

// CollectorData is the permit packed as the Permit2 deposit collector of
// batch-settlement reads it: abi.encode(value, deadline, v, r, s).
func (g *GasSponsoring) CollectorData() []byte {
	v, r, s := g.VRS()
	args := abi.Arguments{{Type: mustType("uint256")}, {Type: mustType("uint256")}, {Type: mustType("uint8")},
		{Type: mustType("bytes32")}, {Type: mustType("bytes32")}}
	b, _ := args.Pack(g.Permit.Value, g.Permit.Deadline, v, r, s)
	return b
}

func mustType(t string) abi.Type {
	ty, err := abi.NewType(t, "", nil)
	if err != nil {
		panic(err)
	}
	return ty
}

// sponsoringFields are the names of sponsoringJSON.Info's fields.
var sponsoringFields = [...]string{"from", "asset", "spender", "amount", "nonce", "deadline", "signature", "version"}

// noPermit reports, without encoding/json's reflection, that the full
// decode would find no permit: no eip2612GasSponsoring key, or one whose
// info lacks a field (the 402's declaration, which clients echo in every
// payment: a kilobyte that encoding/json scanned twice per paid call).
// Whatever it is not sure of (a duplicate or non-ASCII key, a value of a
// type the full decode would refuse) it leaves to the full decode.
func noPermit(ext []byte) bool {
	if !gjson.ValidBytes(ext) {
		return false
	}
	top := gjson.ParseBytes(ext)
	if top.Type == gjson.Null {
		return true
	}
	if !top.IsObject() {
		return false
	}
	var ext2612 gjson.Result
	found := false
	top.ForEach(func(k, v gjson.Result) bool {
		if k.String() == GasSponsoringKey {
			ext2612, found = v, true // a map keeps the last
		}
		return true
	})
	if !found {
		return true
	}
	info, ok := onlyField(ext2612, "info")
	if !ok || !info.IsObject() {
		return false
	}
	var set [len(sponsoringFields)]bool
	sure := true
	info.ForEach(func(k, v gjson.Result) bool {
		name := k.String()
		if !isASCII(name) {
			sure = false
			return false
		}
		for i, f := range sponsoringFields {
			if !strings.EqualFold(name, f) {
				continue
			}
			switch v.Type {
			case gjson.String:
				set[i] = v.Str != ""
			case gjson.Null:
			default:
				sure = false // the full decode refuses a field that is not a string
			}
		}
		return sure
	})
	if !sure {
		return false
	}
	for _, s := range set {
		if !s {
			return true
		}
	}
	return false
}

// onlyField is obj's one member whose name matches name the way
// encoding/json matches a struct field (ASCII case-insensitively); false
// when obj is not an object, or has none, several, or non-ASCII names.
func onlyField(obj gjson.Result, name string) (gjson.Result, bool) {
	if !obj.IsObject() {
		return gjson.Result{}, false
	}
	var out gjson.Result
	n, sure := 0, true
	obj.ForEach(func(k, v gjson.Result) bool {
		s := k.String()
		if !isASCII(s) {
			sure = false
			return false
		}
		if strings.EqualFold(s, name) {
			out, n = v, n+1
		}
		return true
	})
	return out, sure && n == 1
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
