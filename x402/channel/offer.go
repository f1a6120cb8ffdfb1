package channel

import (
	"encoding/json"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/farebox/farebox/x402"
)

// Asset transfer methods of deposits (requirement extra.assetTransferMethod).
const (
	MethodEIP3009 = "eip3009" // the default
	MethodPermit2 = "permit2"
)

// Terms are the server's channel parameters, carried in every
// batch-settlement requirement's extra; the client builds its channel
// config from them, so they must not change while channels are open.
type Terms struct {
	ReceiverAuthorizer common.Address
	WithdrawDelay      uint64 // seconds, MinWithdrawDelay..MaxWithdrawDelay
	// AssetTransferMethod is MethodEIP3009 ("" means the same) or MethodPermit2.
	AssetTransferMethod string
	// MinDeposit, when set, is the least a deposit may bring. The offer
	// announces at least DepositCeilings times its request amount as
	// extra.minDeposit: @x402/evm deposits exactly an announced minimum,
	// and a minimum near the ceiling would make it deposit (a transaction
	// the relayer pays for) on nearly every call.
	MinDeposit *big.Int
}

// DepositCeilings is how many request ceilings the announced minDeposit
// covers at least (the official client's own default multiplier).
const DepositCeilings = 5

// Snapshot is the wire form of a channel's state in receipts and
// corrective 402s (extra.channelState).
type Snapshot struct {
	ChannelID           common.Hash `json:"channelId"`
	Balance             string      `json:"balance"`
	TotalClaimed        string      `json:"totalClaimed"`
	WithdrawRequestedAt uint64      `json:"withdrawRequestedAt"`
	RefundNonce         string      `json:"refundNonce"`
	Charged             string      `json:"chargedCumulativeAmount,omitempty"`
}

// VoucherState is the corrective 402's proof of the server's charged
// amount: the latest voucher the payer signed (extra.voucherState).
type VoucherState struct {
	SignedMaxClaimable string        `json:"signedMaxClaimable"`
	Signature          hexutil.Bytes `json:"signature"`
}

// Snapshot renders the state for the wire, with chargedCumulativeAmount.
func (s *State) Snapshot() *Snapshot {
	return &Snapshot{ChannelID: s.ChannelID, Balance: s.Balance.String(), TotalClaimed: s.TotalClaimed.String(),
		WithdrawRequestedAt: s.WithdrawRequestedAt, RefundNonce: s.RefundNonce.String(), Charged: s.Charged.String()}
}

type extraJSON struct {
	ReceiverAuthorizer  string        `json:"receiverAuthorizer"`
	WithdrawDelay       uint64        `json:"withdrawDelay"`
	Name                string        `json:"name"`
	Version             string        `json:"version"`
	AssetTransferMethod string        `json:"assetTransferMethod,omitempty"`
	MinDeposit          string        `json:"minDeposit,omitempty"`
	ChannelState        *Snapshot     `json:"channelState,omitempty"`
	VoucherState        *VoucherState `json:"voucherState,omitempty"`
}

// Accept renders one batch-settlement requirement (an element of a v2
// 402's accepts): req.Amount is the per-request ceiling, req.PayTo the
// channel receiver. With a non-nil corrective state it is the corrective
// 402's requirement: extra.channelState and extra.voucherState let the
// client verify the server's charged amount and resynchronise (send it with
// error ReasonCumulativeAmountMismatch). Only a state that holds a signed
// voucher yields voucherState; without one the client recovers from chain.
func Accept(req *x402.Requirement, t *Terms, corrective *State) json.RawMessage {
	e := extraJSON{ReceiverAuthorizer: t.ReceiverAuthorizer.Hex(), WithdrawDelay: t.WithdrawDelay,
		Name: req.Network.Name, Version: req.Network.Version, AssetTransferMethod: t.AssetTransferMethod}
	if t.MinDeposit != nil {
		announced := new(big.Int).Mul(req.Amount, big.NewInt(DepositCeilings))
		if t.MinDeposit.Cmp(announced) > 0 {
			announced = t.MinDeposit
		}
		e.MinDeposit = announced.String()
	}
	if corrective != nil {
		e.ChannelState = corrective.Snapshot()
		if len(corrective.Signature) > 0 {
			e.VoucherState = &VoucherState{SignedMaxClaimable: corrective.SignedMaxClaimable.String(),
				Signature: corrective.Signature}
		}
	}
	return x402.AcceptJSON(req, Scheme, e)
}

// Receipt is the SettleResponse of a batch-settlement payment (the
// PAYMENT-RESPONSE header's JSON).
type Receipt struct {
	Success     bool         `json:"success"`
	ErrorReason string       `json:"errorReason,omitempty"`
	Payer       string       `json:"payer"`
	Transaction string       `json:"transaction"` // "" for voucher-only answers
	Network     string       `json:"network"`
	Amount      string       `json:"amount"` // deposited or refunded; "" for voucher-only answers
	Extra       ReceiptExtra `json:"extra"`
}

// ReceiptExtra carries the charge and the channel after it.
type ReceiptExtra struct {
	ChargedAmount string    `json:"chargedAmount,omitempty"`
	ChannelState  *Snapshot `json:"channelState,omitempty"`
}

// X402 is r as the x402 SettleResponse every scheme's receipt is written
// as: channelState is kept as its compact JSON, so receipts stay comparable.
func (r *Receipt) X402() *x402.Receipt {
	out := &x402.Receipt{Success: r.Success, ErrorReason: r.ErrorReason, Payer: r.Payer, Transaction: r.Transaction,
		Network: r.Network, Amount: r.Amount, Extra: x402.ReceiptExtra{ChargedAmount: r.Extra.ChargedAmount}}
	if r.Extra.ChannelState != nil {
		b, _ := json.Marshal(r.Extra.ChannelState) // strings and numbers: cannot fail
		out.Extra.ChannelState = string(b)
	}
	return out
}

// VoucherReceipt is the receipt of a voucher-only request: no transaction,
// charged is this request's charge, s the state after Commit.
func (s *State) VoucherReceipt(network string, charged *big.Int) *Receipt {
	return &Receipt{Success: true, Payer: s.Config.Payer.Hex(), Network: network,
		Extra: ReceiptExtra{ChargedAmount: charged.String(), ChannelState: s.Snapshot()}}
}

// DepositReceipt is the receipt of a request that deposited deposit in
// transaction tx and was charged charged.
func (s *State) DepositReceipt(network, tx string, deposit, charged *big.Int) *Receipt {
	r := s.VoucherReceipt(network, charged)
	r.Transaction, r.Amount = tx, deposit.String()
	return r
}

// RefundReceipt is the receipt of a cooperative refund of refunded in tx
// (no chargedAmount: a refund is not a paid request).
func (s *State) RefundReceipt(network, tx string, refunded *big.Int) *Receipt {
	return &Receipt{Success: true, Payer: s.Config.Payer.Hex(), Network: network, Transaction: tx,
		Amount: refunded.String(), Extra: ReceiptExtra{ChannelState: s.Snapshot()}}
}
