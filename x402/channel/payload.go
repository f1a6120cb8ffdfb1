package channel

import (
	"encoding/hex"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/eip712"
)

// Voucher is a payer's signed cumulative ceiling for one channel.
type Voucher struct {
	ChannelID    [32]byte
	MaxClaimable *big.Int // uint128
	Signature    []byte
}

// ERC3009Authorization is a deposit pulled with receiveWithAuthorization by
// the ERC-3009 deposit collector; its nonce is ERC3009Nonce(channelId, Salt).
type ERC3009Authorization struct {
	ValidAfter  *big.Int
	ValidBefore *big.Int
	Salt        [32]byte
	Signature   []byte
}

// Permit2Authorization is a deposit pulled through Permit2 by the Permit2
// deposit collector, with the channel id as witness.
type Permit2Authorization struct {
	From      common.Address
	Permit    eip712.PermitWitnessTransferFrom // Token, Amount, Spender, Nonce, Deadline
	ChannelID [32]byte                         // the witness
	Signature []byte
}

// Deposit is the token side of a deposit payload: exactly one of ERC3009
// and Permit2 is set.
type Deposit struct {
	Amount  *big.Int
	ERC3009 *ERC3009Authorization
	Permit2 *Permit2Authorization
}

// Payload is a decoded batch-settlement payment payload (the `payload`
// member of the x402 v2 PaymentPayload).
type Payload struct {
	Type    string // TypeDeposit, TypeVoucher or TypeRefund
	Config  Config
	Voucher Voucher
	Deposit *Deposit // deposit only
	// RefundAmount is a refund's requested amount; nil asks for everything left.
	RefundAmount *big.Int
	// Raw is the payload as the client sent it: what a facilitator is
	// forwarded, so its own verification sees the client's signatures as signed.
	Raw json.RawMessage
}

type configJSON struct {
	Payer              string          `json:"payer"`
	PayerAuthorizer    string          `json:"payerAuthorizer"`
	Receiver           string          `json:"receiver"`
	ReceiverAuthorizer string          `json:"receiverAuthorizer"`
	Token              string          `json:"token"`
	WithdrawDelay      json.RawMessage `json:"withdrawDelay"`
	Salt               string          `json:"salt"`
}

type voucherJSON struct {
	ChannelID          string `json:"channelId"`
	MaxClaimableAmount string `json:"maxClaimableAmount"`
	Signature          string `json:"signature"`
}

type erc3009JSON struct {
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Salt        string `json:"salt"`
	Signature   string `json:"signature"`
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
		ChannelID string `json:"channelId"`
	} `json:"witness"`
	Signature string `json:"signature"`
}

type depositJSON struct {
	Amount        string `json:"amount"`
	Authorization struct {
		ERC3009 *erc3009JSON `json:"erc3009Authorization"`
		Permit2 *permit2JSON `json:"permit2Authorization"`
	} `json:"authorization"`
}

type payloadJSON struct {
	Type          string       `json:"type"`
	ChannelConfig *configJSON  `json:"channelConfig"`
	Voucher       *voucherJSON `json:"voucher"`
	Deposit       *depositJSON `json:"deposit"`
	Amount        *string      `json:"amount"`
}

// DecodePayload decodes the `payload` object of a batch-settlement payment.
// A malformed payload is an *Error with the reason of its type
// (ReasonDepositPayload, ReasonVoucherPayload, ReasonRefundPayload), an
// unknown type ReasonPayloadType.
func DecodePayload(raw []byte) (*Payload, error) {
	var pj payloadJSON
	if !readPayload(raw, &pj) {
		return nil, refuse(ReasonPayloadType, "payload is not a JSON object")
	}
	var reason string
	switch pj.Type {
	case TypeDeposit:
		reason = ReasonDepositPayload
	case TypeVoucher:
		reason = ReasonVoucherPayload
	case TypeRefund:
		reason = ReasonRefundPayload
	default:
		return nil, refuse(ReasonPayloadType, "payload.type must be deposit, voucher or refund")
	}
	d := decoder{reason: reason}
	p := &Payload{Type: pj.Type, Raw: append(json.RawMessage(nil), raw...)}
	if pj.ChannelConfig == nil || pj.Voucher == nil {
		return nil, refuse(reason, "payload needs channelConfig and voucher")
	}
	c := pj.ChannelConfig
	p.Config = Config{Payer: d.address("channelConfig.payer", c.Payer),
		PayerAuthorizer:    d.address("channelConfig.payerAuthorizer", c.PayerAuthorizer),
		Receiver:           d.address("channelConfig.receiver", c.Receiver),
		ReceiverAuthorizer: d.address("channelConfig.receiverAuthorizer", c.ReceiverAuthorizer),
		Token:              d.address("channelConfig.token", c.Token),
		WithdrawDelay:      d.delay("channelConfig.withdrawDelay", c.WithdrawDelay),
		Salt:               d.word("channelConfig.salt", c.Salt)}
	v := pj.Voucher
	p.Voucher = Voucher{ChannelID: d.word("voucher.channelId", v.ChannelID),
		MaxClaimable: d.uint("voucher.maxClaimableAmount", v.MaxClaimableAmount, 128),
		Signature:    d.bytes("voucher.signature", v.Signature)}
	switch pj.Type {
	case TypeDeposit:
		p.Deposit = d.deposit(pj.Deposit)
	case TypeRefund:
		if pj.Amount != nil {
			p.RefundAmount = d.uint("amount", *pj.Amount, 128)
			if d.err == nil && p.RefundAmount.Sign() == 0 {
				return nil, refuse(ReasonRefundAmountInvalid, "refund amount must be positive")
			}
		}
	}
	if d.err != nil {
		if pj.Type == TypeRefund && d.field == "amount" {
			return nil, refuse(ReasonRefundAmountInvalid, d.err.Message)
		}
		return nil, d.err
	}
	return p, nil
}

// decoder parses wire fields, keeping the first error.
type decoder struct {
	reason string
	err    *Error
	field  string
}

func (d *decoder) fail(field, msg string) {
	if d.err == nil {
		d.err, d.field = refuse(d.reason, field+" "+msg), field
	}
}

func (d *decoder) address(field, s string) common.Address {
	if len(s) != 42 || !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") {
		d.fail(field, "must be a 0x-prefixed 20-byte hex address")
		return common.Address{}
	}
	var a common.Address
	unhex(a[:], s[2:])
	return a
}

func (d *decoder) hex(field, s string) []byte {
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		d.fail(field, "must be 0x-prefixed hex")
		return nil
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		d.fail(field, "must be 0x-prefixed hex")
		return nil
	}
	return b
}

func (d *decoder) word(field, s string) (w [32]byte) {
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") || len(s)%2 != 0 || !isHex(s[2:]) {
		d.fail(field, "must be 0x-prefixed hex")
		return w
	}
	if len(s) != 2+64 {
		d.fail(field, "must be 32 bytes")
		return w
	}
	unhex(w[:], s[2:])
	return w
}

// isHex says whether s is hex digits only.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if nibble(s[i]) > 15 {
			return false
		}
	}
	return true
}

// unhex decodes the hex digits s (already checked) into dst, without the
// allocation hex.DecodeString makes: addresses and words are fixed arrays.
func unhex(dst []byte, s string) {
	for i := range dst {
		dst[i] = nibble(s[2*i])<<4 | nibble(s[2*i+1])
	}
}

func nibble(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 0xff
}

func (d *decoder) bytes(field, s string) []byte {
	b := d.hex(field, s)
	if d.err == nil && len(b) == 0 {
		d.fail(field, "must not be empty")
	}
	return b
}

// uint parses a decimal string of at most bits bits.
func (d *decoder) uint(field, s string, bits int) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || len(s) == 0 || s[0] == '+' || s[0] == '-' || v.BitLen() > bits {
		d.fail(field, "must be a decimal uint"+strconv.Itoa(bits)+" string")
		return new(big.Int)
	}
	return v
}

// delay parses withdrawDelay: a JSON number (the spec) or a decimal string.
func (d *decoder) delay(field string, raw json.RawMessage) uint64 {
	s := strings.Trim(string(raw), `"`)
	v, err := strconv.ParseUint(s, 10, 40)
	if err != nil {
		d.fail(field, "must be an integer number of seconds")
	}
	return v
}

func (d *decoder) deposit(dj *depositJSON) *Deposit {
	if dj == nil {
		d.fail("deposit", "is missing")
		return nil
	}
	dep := &Deposit{Amount: d.uint("deposit.amount", dj.Amount, 128)}
	if d.err == nil && dep.Amount.Sign() == 0 {
		d.fail("deposit.amount", "must be positive")
	}
	a := dj.Authorization
	switch {
	case a.ERC3009 != nil && a.Permit2 != nil:
		d.fail("deposit.authorization", "must hold exactly one of erc3009Authorization and permit2Authorization")
	case a.ERC3009 != nil:
		e := a.ERC3009
		dep.ERC3009 = &ERC3009Authorization{ValidAfter: d.uint("erc3009Authorization.validAfter", e.ValidAfter, 256),
			ValidBefore: d.uint("erc3009Authorization.validBefore", e.ValidBefore, 256),
			Salt:        d.word("erc3009Authorization.salt", e.Salt),
			Signature:   d.bytes("erc3009Authorization.signature", e.Signature)}
	case a.Permit2 != nil:
		p := a.Permit2
		dep.Permit2 = &Permit2Authorization{From: d.address("permit2Authorization.from", p.From),
			Permit: eip712.PermitWitnessTransferFrom{Token: d.address("permit2Authorization.permitted.token", p.Permitted.Token),
				Amount:   d.uint("permit2Authorization.permitted.amount", p.Permitted.Amount, 256),
				Spender:  d.address("permit2Authorization.spender", p.Spender),
				Nonce:    d.uint("permit2Authorization.nonce", p.Nonce, 256),
				Deadline: d.uint("permit2Authorization.deadline", p.Deadline, 256)},
			ChannelID: d.word("permit2Authorization.witness.channelId", p.Witness.ChannelID),
			Signature: d.bytes("permit2Authorization.signature", p.Signature)}
	default:
		d.fail("deposit.authorization", "must hold erc3009Authorization or permit2Authorization")
	}
	return dep
}
