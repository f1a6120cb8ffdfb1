package channel

import (
	"encoding/json"
	"errors"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Onchain is the part of a channel the contract holds, mirrored by the
// server: channels(id), pendingWithdrawals(id).initiatedAt and refundNonce(id).
type Onchain struct {
	Balance             *big.Int
	TotalClaimed        *big.Int
	WithdrawRequestedAt uint64 // unix seconds; 0 when no withdrawal is pending
	RefundNonce         *big.Int
}

// State is the server's record of one channel (the spec's per-channel
// state). A State is a value: Commit, Mirror and the others return a new
// one, so a caller can persist the next state before adopting it. It
// marshals to JSON with decimal-string amounts for the journal.
type State struct {
	ChannelID [32]byte
	Config    Config
	// Charged is chargedCumulativeAmount: the sum of actual charges.
	Charged *big.Int
	// SignedMaxClaimable and Signature are the latest voucher the payer
	// signed (nil/empty before the first one).
	SignedMaxClaimable *big.Int
	Signature          []byte
	Onchain
	// OnchainSyncedAt is when the Onchain fields were last read from chain.
	OnchainSyncedAt time.Time
	// LastRequestAt is when the last paid request was committed.
	LastRequestAt time.Time
}

// NewState starts the record of a channel the server has no record of:
// the charged baseline is what the chain says was claimed (the spec's
// recovery rule; unclaimed vouchers lost with earlier state are forfeited).
func NewState(id [32]byte, cfg Config, o Onchain, now time.Time) *State {
	o = o.normal()
	return &State{ChannelID: id, Config: cfg, Charged: new(big.Int).Set(o.TotalClaimed),
		SignedMaxClaimable: new(big.Int), Onchain: o, OnchainSyncedAt: now}
}

func (o Onchain) normal() Onchain {
	z := func(v *big.Int) *big.Int {
		if v == nil {
			return new(big.Int)
		}
		return new(big.Int).Set(v)
	}
	return Onchain{Balance: z(o.Balance), TotalClaimed: z(o.TotalClaimed),
		WithdrawRequestedAt: o.WithdrawRequestedAt, RefundNonce: z(o.RefundNonce)}
}

// clone is a deep copy, in three allocations: the state with its
// amounts, their digits, the signature (one is made per paid request).
func (s *State) clone() *State {
	box := new(struct {
		st   State
		ints [5]big.Int
	})
	n := &box.st
	*n = *s
	src := [5]*big.Int{s.Charged, s.SignedMaxClaimable, s.Balance, s.TotalClaimed, s.RefundNonce}
	words := 0
	for _, v := range src {
		if v != nil {
			words += len(v.Bits())
		}
	}
	digits := make([]big.Word, words)
	for i, v := range src {
		switch {
		case v == nil, v.Sign() == 0:
		case v.Sign() < 0:
			box.ints[i].Set(v)
		default:
			k := copy(digits, v.Bits())
			box.ints[i].SetBits(digits[:k:k]) // capped: growing it reallocates, never overwrites the next
			digits = digits[k:]
		}
	}
	n.Charged, n.SignedMaxClaimable, n.Balance, n.TotalClaimed, n.RefundNonce =
		&box.ints[0], &box.ints[1], &box.ints[2], &box.ints[3], &box.ints[4]
	n.Signature = append([]byte(nil), s.Signature...)
	return n
}

// Mirror returns the state with the on-chain fields replaced by o, read at now.
func (s *State) Mirror(o Onchain, now time.Time) *State {
	n := s.clone()
	n.Onchain = o.normal()
	n.OnchainSyncedAt = now
	// The chain may have claimed more than we recorded (another server
	// instance, a lost journal): never charge below what was claimed.
	if n.Charged.Cmp(n.TotalClaimed) < 0 {
		n.Charged.Set(n.TotalClaimed)
	}
	return n
}

// Fresh reports whether the mirrored on-chain fields are younger than ttl.
func (s *State) Fresh(now time.Time, ttl time.Duration) bool {
	return now.Sub(s.OnchainSyncedAt) <= ttl
}

// Unclaimed is what the server may claim now: min(Charged, Balance) minus
// TotalClaimed, never negative. Charges above the balance (a withdrawal
// drained it) cannot be claimed.
func (s *State) Unclaimed() *big.Int {
	c := s.Charged
	if s.Balance.Cmp(c) < 0 {
		c = s.Balance
	}
	u := new(big.Int).Sub(c, s.TotalClaimed)
	if u.Sign() < 0 {
		u.SetInt64(0)
	}
	return u
}

// Refundable is the balance not yet charged: what a full cooperative refund returns.
func (s *State) Refundable() *big.Int {
	r := new(big.Int).Sub(s.Balance, s.Charged)
	if r.Sign() < 0 {
		r.SetInt64(0)
	}
	return r
}

// ErrChargeAboveCeiling is a charge larger than the request's ceiling
// (the requirement's amount): a bug in the caller's pricing, never the payer's.
var ErrChargeAboveCeiling = errors.New("channel: charge exceeds the per-request amount")

// Commit applies the actual charge of a request that succeeded, paid by
// voucher v (already verified against this state): Charged grows by charge
// (0 <= charge <= ceiling) and v becomes the latest voucher. A deposit's
// amount is not added here: Mirror the chain once the deposit is mined.
func (s *State) Commit(v *Voucher, charge, ceiling *big.Int, now time.Time) (*State, error) {
	if charge.Sign() < 0 || charge.Cmp(ceiling) > 0 {
		return nil, ErrChargeAboveCeiling
	}
	next := new(big.Int).Add(s.Charged, charge)
	if next.Cmp(v.MaxClaimable) > 0 {
		return nil, refuse(ReasonChargeExceedsSignedCumulative,
			"charge "+next.String()+" exceeds the signed maximum "+v.MaxClaimable.String())
	}
	n := s.clone()
	n.Charged.Set(next)
	n.SignedMaxClaimable.Set(v.MaxClaimable)
	n.Signature = append(n.Signature[:0], v.Signature...) // the clone's own copy
	n.LastRequestAt = now
	return n, nil
}

type stateJSON struct {
	ChannelID           common.Hash   `json:"channelId"`
	Config              configJSON    `json:"channelConfig"`
	Charged             string        `json:"chargedCumulativeAmount"`
	SignedMaxClaimable  string        `json:"signedMaxClaimable"`
	Signature           hexutil.Bytes `json:"signature"`
	Balance             string        `json:"balance"`
	TotalClaimed        string        `json:"totalClaimed"`
	WithdrawRequestedAt uint64        `json:"withdrawRequestedAt"`
	RefundNonce         string        `json:"refundNonce"`
	OnchainSyncedAt     int64         `json:"onchainSyncedAt"`      // unix milliseconds
	LastRequestAt       int64         `json:"lastRequestTimestamp"` // unix milliseconds, 0 for never
}

func unixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMilli(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// MarshalJSON writes the state with the spec's field names (stateJSON's
// layout, see AppendJSON).
func (s *State) MarshalJSON() ([]byte, error) { return s.AppendJSON(make([]byte, 0, 768)), nil }

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *State) UnmarshalJSON(b []byte) error {
	var j stateJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	d := decoder{reason: "state"}
	c := j.Config
	s.ChannelID = j.ChannelID
	s.Config = Config{Payer: d.address("payer", c.Payer), PayerAuthorizer: d.address("payerAuthorizer", c.PayerAuthorizer),
		Receiver: d.address("receiver", c.Receiver), ReceiverAuthorizer: d.address("receiverAuthorizer", c.ReceiverAuthorizer),
		Token: d.address("token", c.Token), WithdrawDelay: d.delay("withdrawDelay", c.WithdrawDelay), Salt: d.word("salt", c.Salt)}
	s.Charged = d.uint("chargedCumulativeAmount", j.Charged, 128)
	s.SignedMaxClaimable = d.uint("signedMaxClaimable", j.SignedMaxClaimable, 128)
	s.Signature = j.Signature
	s.Onchain = Onchain{Balance: d.uint("balance", j.Balance, 128), TotalClaimed: d.uint("totalClaimed", j.TotalClaimed, 128),
		WithdrawRequestedAt: j.WithdrawRequestedAt, RefundNonce: d.uint("refundNonce", j.RefundNonce, 256)}
	s.OnchainSyncedAt, s.LastRequestAt = fromMilli(j.OnchainSyncedAt), fromMilli(j.LastRequestAt)
	if d.err != nil {
		return errors.New("channel: bad state: " + d.err.Message)
	}
	return nil
}

// wire renders the config in its JSON form (checksummed addresses).
func (c Config) wire() configJSON {
	return configJSON{Payer: c.Payer.Hex(), PayerAuthorizer: c.PayerAuthorizer.Hex(), Receiver: c.Receiver.Hex(),
		ReceiverAuthorizer: c.ReceiverAuthorizer.Hex(), Token: c.Token.Hex(),
		WithdrawDelay: json.RawMessage(big.NewInt(0).SetUint64(c.WithdrawDelay).String()),
		Salt:          common.Hash(c.Salt).Hex()}
}

// MarshalJSON writes the config as a payload's channelConfig.
func (c Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.wire()) }
