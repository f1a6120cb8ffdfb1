package settle

import (
	"encoding/hex"
	"errors"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// State is where a purchase is in its life; the journal records it.
type State string

// The states of a journal entry, in the order a purchase goes through them.
const (
	// Reserved: the authorization is claimed by a request, nothing was sent.
	Reserved State = "reserved"
	// Settling: a transaction carrying the transfer was signed (Tx is set)
	// and may be on its way to the chain; no receipt was given yet.
	Settling State = "settling"
	// Broadcast: the node accepted the transaction and the client got a
	// receipt; confirmation is tracked in the background.
	Broadcast State = "broadcast"
	// Confirmed: the transfer is mined and succeeded. Final.
	Confirmed State = "confirmed"
	// Failed: the transfer did not and cannot happen any more. Final.
	Failed State = "failed"
)

// Finished reports whether s is final (Confirmed or Failed).
func (s State) Finished() bool { return s == Confirmed || s == Failed }

// Entry is one authorization in the journal: everything needed to answer a
// retry and to resume the settlement after a crash.
type Entry struct {
	ChainID string         `json:"chainId"` // decimal
	Asset   common.Address `json:"asset"`
	Payer   common.Address `json:"payer"` // authorization.from
	Nonce   common.Hash    `json:"nonce"`

	Version int    `json:"version"` // x402 version of the payment header
	Payment []byte `json:"payment"` // the decoded JSON of the header (x402.Payment.Raw)

	Network string   `json:"network"` // CAIP-2 id of the requirement
	Amount  *big.Int `json:"amount"`
	// Charge is what is settled when less than Amount (upto); nil: Amount.
	Charge *big.Int       `json:"charge,omitempty"`
	PayTo  common.Address `json:"payTo"`

	BodyHash  common.Hash `json:"bodyHash"`            // sha256 of the request body
	PaymentID string      `json:"paymentId,omitempty"` // payment-identifier extension id

	State   State         `json:"state"`
	Tx      common.Hash   `json:"tx"` // zero until a transaction was signed
	Receipt *x402.Receipt `json:"receipt,omitempty"`
	Reason  string        `json:"reason,omitempty"` // why it failed
	Owner   string        `json:"owner,omitempty"`  // the engine instance that reserved it

	// Model is the public model the purchase paid for and Supplier the
	// upstream that answered it, when known: the books count by both.
	Model    string `json:"model,omitempty"`
	Supplier string `json:"supplier,omitempty"`

	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	Expires time.Time `json:"expires"` // the authorization's validBefore
}

// Key is the entry's authorization key.
func (e *Entry) Key() x402.Key {
	return x402.Key{ChainID: e.ChainID, Asset: e.Asset, From: e.Payer, Nonce: e.Nonce}
}

// Name is the entry's key as a string (see KeyName).
func (e *Entry) Name() string { return KeyName(e.Key()) }

// Transfers is what the entry's transfer moves: its Charge (upto) or Amount.
func (e *Entry) Transfers() *big.Int {
	if e.Charge != nil {
		return e.Charge
	}
	return e.Amount
}

// Clone is a copy that shares no mutable memory with e, so that a journal
// never shares memory with callers. Payment, the header's decoded JSON of
// a kilobyte or more, is shared: nothing writes into it once the entry is
// made (a step replaces an entry, never edits its payment), and copying it
// was most of what a paid call allocated in the engine.
func (e *Entry) Clone() *Entry {
	c := *e
	if e.Amount != nil {
		c.Amount = new(big.Int).Set(e.Amount)
	}
	if e.Charge != nil {
		c.Charge = new(big.Int).Set(e.Charge)
	}
	if e.Receipt != nil {
		r := *e.Receipt
		c.Receipt = &r
	}
	return &c
}

// next is a copy of e for its next version inside a flight: Payment and
// Amount, which no step changes, are shared with e; the receipt, which a
// step may edit, is copied.
func (e *Entry) next() *Entry {
	c := *e
	if e.Receipt != nil {
		r := *e.Receipt
		c.Receipt = &r
	}
	return &c
}

// KeyName renders k as chainId:0xasset:0xfrom:0xnonce in lowercase hex, so
// every replica and store derives the same name whatever the casing the
// payer used.
func KeyName(k x402.Key) string {
	var buf [3*3 + 40 + 40 + 64 + 24]byte // a chain id of up to 24 digits needs no other allocation
	b := append(buf[:0], k.ChainID...)
	b = appendHex(b, k.Asset[:])
	b = appendHex(b, k.From[:])
	b = appendHex(b, k.Nonce[:])
	return string(b)
}

// appendHex appends ":0x" and src in lowercase hex.
func appendHex(b, src []byte) []byte {
	return hex.AppendEncode(append(b, ":0x"...), src)
}

// IDName is the name of a payment-identifier id in a journal's id index:
// ids are scoped to the payer, so one payer cannot block another's ids.
func IDName(payer common.Address, id string) string {
	return "0x" + hex.EncodeToString(payer[:]) + ":" + id
}

// DebtItem is one transfer a payer was served for and that failed after
// its receipt was given: while a live item exists the payer is refused.
type DebtItem struct {
	Entry  string    `json:"entry"` // KeyName of the failed entry
	Amount *big.Int  `json:"amount"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	// Until is when the item lapses on its own; zero means until forgiven.
	Until time.Time `json:"until"`
	// Model and Supplier are the purchase's (empty in items recorded
	// before they were kept): a forgiven debt is booked under them.
	Model    string `json:"model,omitempty"`
	Supplier string `json:"supplier,omitempty"`
}

// Live reports whether the item still refuses its payer at now.
func (d *DebtItem) Live(now time.Time) bool { return d.Until.IsZero() || now.Before(d.Until) }

// Errors of journals.
var (
	// ErrNotFound: no entry has this key.
	ErrNotFound = errors.New("settle: no journal entry")
	// ErrExists is returned by Journal.Create with the entry already there.
	ErrExists = errors.New("settle: the authorization is already in the journal")
	// ErrIDTaken is returned by Journal.Create with the entry that already
	// uses the payment id for another authorization.
	ErrIDTaken = errors.New("settle: the payment id names another authorization")
	// ErrStateChanged: a conditional update found another state (another
	// request or replica moved the entry on first).
	ErrStateChanged = errors.New("settle: the journal entry changed state")
	// ErrJournalFull: the in-memory journal holds its maximum of entries that
	// may not be forgotten yet.
	ErrJournalFull = errors.New("settle: the in-memory journal is full")
)
