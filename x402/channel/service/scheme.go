package service

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/tidwall/gjson"
)

// Scheme is batch-settlement as a server serves it (an x402.ServerScheme
// and x402.Refunder) on a Service: a voucher or deposit is a call of the
// service, committed with the actual charge after the answer or aborted;
// a refund payload is a cooperative refund.
type Scheme struct {
	svc *Service
}

var (
	_ x402.ServerScheme = (*Scheme)(nil)
	_ x402.Refunder     = (*Scheme)(nil)
	_ x402.EscrowScheme = (*Scheme)(nil)
)

// ErrUnserved is the refusal of a batch-settlement payment where the
// scheme is not served: a model priced per call, or a server with neither
// a chain settler of its own nor a facilitator that settles it.
var ErrUnserved = &x402.Error{Reason: x402.ReasonUnsupportedScheme, Message: "this model takes batch-settlement payments only when priced per token and settled by farebox's own chain settler or a facilitator that settles them. Pay with one of the offers."}

// NewScheme serves batch-settlement on svc.
func NewScheme(svc *Service) *Scheme { return &Scheme{svc: svc} }

// Name is "batch-settlement".
func (*Scheme) Name() string { return channel.Scheme }

// Accept is req as a batch-settlement accept with the service's terms.
func (s *Scheme) Accept(req *x402.Requirement) json.RawMessage {
	return channel.Accept(req, s.svc.Terms(), nil)
}

// Metered is true: a voucher pays the actual charge.
func (*Scheme) Metered() bool { return true }

// Escrows is true: a voucher is backed by the channel's deposit, on chain
// before the model runs.
func (*Scheme) Escrows() bool { return true }

// refusal is err as the x402 refusal the client gets: a corrective 402
// for a voucher not at the channel's charged amount.
func (s *Scheme) refusal(err error, req *x402.Requirement) error {
	var me *MismatchError
	if errors.As(err, &me) {
		return &x402.Corrective{Refusal: me.Refusal.X402(), Accepts: []json.RawMessage{channel.Accept(req, s.svc.Terms(), me.State)}}
	}
	var ce *channel.Error
	if errors.As(err, &ce) {
		return ce.X402()
	}
	return err
}

// payload decodes p's batch-settlement payload: a refusal when it does not.
func payload(p *x402.Payment) (*channel.Payload, error) {
	cp, err := channel.DecodePayload(p.Payload)
	if err != nil {
		var ce *channel.Error
		if errors.As(err, &ce) {
			return nil, ce.X402()
		}
		return nil, x402.Refusal(err, channel.ReasonPayloadType)
	}
	return cp, nil
}

// Authorize begins a batch-settlement request on its channel: the
// service verifies the voucher (and sends a deposit) and holds the
// channel until the charge commits after the answer.
func (s *Scheme) Authorize(ctx context.Context, pay *x402.Payment, req *x402.Requirement, f x402.Facts) (x402.Hold, error) {
	if !f.PerToken {
		return nil, ErrUnserved
	}
	if req == nil {
		return nil, &x402.Error{Reason: channel.ReasonNetworkMismatch, Message: "network " + pay.Network + " is not offered."}
	}
	cp, err := payload(pay)
	if err != nil {
		return nil, err
	}
	if cp.Type == channel.TypeRefund {
		// Only a header the refund peek could not read gets here.
		return nil, &x402.Error{Reason: channel.ReasonPayloadType, Message: "a cooperative refund is served on GET /v1/responses, with its payload as the payment."}
	}
	sponsoring, err := eip712.DecodeGasSponsoring(pay.Extensions)
	if err != nil {
		return nil, &x402.Error{Reason: eip712.ReasonGasSponsoringFormat, Message: "extensions.eip2612GasSponsoring is malformed", Malformed: true}
	}
	call, err := s.svc.Begin(ctx, cp, req, sponsoring)
	if err != nil {
		return nil, s.refusal(err, req)
	}
	pay.Authorization.From = call.Payer()
	return callHold{call: call}, nil
}

// callHold is a batch-settlement voucher or deposit as a hold: the
// service's call, committed with the actual charge or aborted.
type callHold struct {
	call *Call
}

// Replay: a voucher cannot be replayed (the service refuses a cumulative
// amount it already recorded with a corrective 402).
func (callHold) Replay() bool { return false }

func (c callHold) Settle(ctx context.Context, amount *big.Int) (*x402.Receipt, error) {
	r, err := c.call.Commit(context.WithoutCancel(ctx), amount)
	if err != nil {
		xe := x402.AsError(err, channel.ReasonVerificationStateUnavailable)
		var ce *channel.Error
		if errors.As(err, &ce) {
			xe = ce.X402()
		}
		return &x402.Receipt{Payer: c.call.Payer().Hex(), ErrorReason: xe.Reason}, xe
	}
	return r.X402(), nil
}

func (c callHold) Release(ctx context.Context) error {
	c.call.Abort(ctx)
	return nil
}

// Owe: a channel commit that failed charged nothing and keeps the
// voucher unrecorded; the payer owes nothing on chain.
func (callHold) Owe(context.Context, string) error { return nil }

// RefundRequested reports a payment whose payload is a batch-settlement
// refund.
func (*Scheme) RefundRequested(raw []byte) bool {
	r := gjson.GetManyBytes(raw, "accepted.scheme", "payload.type")
	return r[0].String() == channel.Scheme && r[1].String() == channel.TypeRefund
}

// RefundOffer describes the refund's resource; its offer declares
// EIP-2612 gas sponsoring like every offer of a per-token model.
func (*Scheme) RefundOffer() (string, map[string]json.RawMessage) {
	return "Cooperative refund of a batch-settlement channel", map[string]json.RawMessage{"eip2612GasSponsoring": eip712.GasSponsoringDeclaration()}
}

// Refund verifies a refund payload and sends it (claim what was charged,
// refund, sweep, in one transaction).
func (s *Scheme) Refund(ctx context.Context, pay *x402.Payment, req *x402.Requirement) (*x402.Refund, error) {
	if req == nil {
		return nil, &x402.Error{Reason: channel.ReasonNetworkMismatch, Message: "network " + pay.Network + " is not offered."}
	}
	cp, err := channel.DecodePayload(pay.Payload)
	if err == nil && cp.Type != channel.TypeRefund {
		err = &channel.Error{Reason: channel.ReasonPayloadType, Message: "GET /v1/responses serves refunds only; POST a call to pay for it"}
	}
	if err != nil {
		var ce *channel.Error
		if errors.As(err, &ce) {
			return nil, ce.X402()
		}
		return nil, x402.Refusal(err, channel.ReasonPayloadType)
	}
	r, err := s.svc.Refund(ctx, cp, req)
	if err != nil {
		var me *MismatchError
		if errors.As(err, &me) && me.State.Refundable().Sign() == 0 {
			// Resynchronising would only lead to this answer.
			return nil, &x402.Error{Reason: channel.ReasonRefundNoBalance, Message: "nothing is left to refund in this channel."}
		}
		return nil, s.refusal(err, req)
	}
	return &x402.Refund{Receipt: r.X402(), ID: common.Hash(cp.Voucher.ChannelID).Hex(), Amount: r.Amount,
		Payer: r.Payer, Transaction: r.Transaction, Network: r.Network}, nil
}
