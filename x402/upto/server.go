package upto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/settle"
)

// Chain is what the upto scheme needs of a server's chain settler: its
// relayer is the facilitator every upto offer names and the payer's
// witness binds, and it sends the proxy's settle itself (evm.Settler).
type Chain interface {
	ChainID() *big.Int
	Relayer() common.Address
	Backend() evm.Backend
	Call(ctx context.Context, to common.Address, data []byte, onSigned func(common.Hash) error) (common.Hash, error)
	AwaitCall(ctx context.Context, hash common.Hash) (*types.Receipt, error)
	SimulateCall(ctx context.Context, to common.Address, data []byte) error
}

// Server is the upto scheme as a server runs it (an x402.JournaledScheme):
// its payments are journaled like exact authorizations, at the ceiling,
// and settled after the answer for the actual charge by the chain's relayer.
type Server struct {
	chain    Chain
	verifier *Verifier
	// Engine journals the payments: replays, holds at the ceiling,
	// settlement for the charge (set before Authorize is called).
	Engine *settle.Engine
	// Log reports a purchase that could not be released.
	Log *slog.Logger
}

var (
	_ x402.JournaledScheme = (*Server)(nil)
	_ x402.ServerScheme    = (*Server)(nil)
	_ x402.Extender        = (*Server)(nil)
)

// ErrUnserved is the refusal of an upto payment where upto is not
// served: a model priced per call, or a server that does not settle on
// chain itself.
var ErrUnserved = &x402.Error{Reason: x402.ReasonUnsupportedScheme, Message: "this model takes upto payments only when priced per token and settled by farebox's own chain settler. Pay with one of the offers."}

var (
	permit2ABI = contracts.NewPermit2()
)

// NewServer is the upto scheme settled by chain with the canonical Permit2
// and upto proxy; now is the clock deadlines are checked against.
func NewServer(chain Chain, now func() time.Time) *Server {
	c := NewContracts(chain.ChainID(), contracts.CanonicalPermit2, contracts.CanonicalUptoPermit2Proxy)
	return &Server{chain: chain, verifier: &Verifier{Contracts: c, Facilitator: chain.Relayer(), Now: now}}
}

// Name is "upto".
func (*Server) Name() string { return Scheme }

// Accept is req offered as upto, settled by the chain's relayer.
func (s *Server) Accept(req *x402.Requirement) json.RawMessage {
	return Accept(req, s.chain.Relayer())
}

// Metered is true: upto settles the actual charge.
func (*Server) Metered() bool { return true }

// Extensions declares EIP-2612 gas sponsoring, so that a payer with no
// ETH who never approved Permit2 can pay.
func (*Server) Extensions() map[string]json.RawMessage {
	return map[string]json.RawMessage{"eip2612GasSponsoring": eip712.GasSponsoringDeclaration()}
}

// Authorize verifies an upto payment locally, reserves it in the
// settlement journal (replays and holds as for exact, at the ceiling) and
// simulates its settlement at the ceiling from the relayer.
func (s *Server) Authorize(ctx context.Context, pay *x402.Payment, req *x402.Requirement, f x402.Facts) (x402.Hold, error) {
	if !f.PerToken {
		return nil, ErrUnserved
	}
	if req == nil {
		return nil, &x402.Error{Reason: ReasonNetworkMismatch, Message: "network " + pay.Network + " is not offered."}
	}
	if err := s.Complete(pay); err != nil {
		return nil, x402.AsError(err, x402.ReasonInvalidPayload)
	}
	if err := s.Verify(pay, req); err != nil {
		return nil, x402.Refusal(err, x402.ReasonUnexpectedVerifyError)
	}
	id, err := settle.PaymentID(pay)
	if err != nil {
		return nil, err
	}
	h, err := s.Engine.Reserve(ctx, settle.Purchase{Payment: pay, Requirement: req, BodyHash: f.BodyHash, PaymentID: id, Model: f.Model}, true)
	if err != nil {
		return nil, err
	}
	if !h.Replay() {
		if err := s.Simulate(ctx, pay, req); err != nil {
			if rerr := h.Release(ctx); rerr != nil && s.Log != nil {
				s.Log.Error("releasing a purchase the chain refused", "err", rerr)
			}
			var xe *x402.Error
			if !errors.As(err, &xe) {
				return nil, err
			}
			return nil, x402.Refusal(xe, "")
		}
	}
	return h, nil
}

// Complete decodes p's upto payload into p.Decoded and fills the x402
// payment the way the settlement journal keys and times it: its Permit2
// nonce (unordered, single use per owner, like an EIP-3009 nonce), its
// deadline as validBefore, its ceiling as the value.
func (*Server) Complete(p *x402.Payment) error {
	up, err := DecodePayload(p.Payload, p.Extensions)
	if err != nil {
		return err
	}
	var nonce [32]byte
	up.Permit.Nonce.FillBytes(nonce[:])
	p.Authorization = x402.Authorization{From: up.From, To: up.Witness.To, Value: up.Permit.Amount,
		ValidAfter: up.Witness.ValidAfter, ValidBefore: up.Permit.Deadline, Nonce: nonce}
	p.Signature = up.Signature
	p.Decoded = up
	return nil
}

// payload is p's decoded upto payload, decoding it when p was not
// completed by this process.
func (s *Server) payload(p *x402.Payment) (*Payload, error) {
	if up, ok := p.Decoded.(*Payload); ok {
		return up, nil
	}
	if err := s.Complete(p); err != nil {
		return nil, err
	}
	return p.Decoded.(*Payload), nil
}

// Verify checks a completed payment against req locally (signature,
// witness, amounts, deadline).
func (s *Server) Verify(p *x402.Payment, req *x402.Requirement) error {
	up, err := s.payload(p)
	if err != nil {
		return err
	}
	return s.verifier.Verify(up, req)
}

// Simulate runs the settlement at the ceiling (the worst case) from the
// relayer; a revert is explained by the payer's balance and Permit2
// allowance when they fall short. A refusal is an *x402.Error.
func (s *Server) Simulate(ctx context.Context, p *x402.Payment, req *x402.Requirement) error {
	up, err := s.payload(p)
	if err != nil {
		return err
	}
	data, err := SettleCalldata(up, req.Amount)
	if err != nil {
		return err
	}
	err = s.chain.SimulateCall(ctx, s.verifier.Contracts.Proxy, data)
	if err == nil || !errors.Is(err, evm.ErrCallReverted) {
		return err
	}
	refuse := func(reason, msg string) error { return &x402.Error{Reason: reason, Message: msg} }
	b := s.chain.Backend()
	asset := req.Network.Asset
	if out, cerr := b.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: erc20Call(selBalanceOf, up.From)}, nil); cerr == nil {
		if bal, ok := uint256Result(out); ok && bal.Cmp(req.Amount) < 0 {
			return refuse(ReasonInsufficientBalance, "the payer's balance does not cover "+req.Amount.String())
		}
	}
	if up.GasSponsoring == nil {
		data := erc20Call(selAllowance, up.From, s.verifier.Contracts.Permit2)
		if out, cerr := b.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: data}, nil); cerr == nil {
			if al, ok := uint256Result(out); ok && al.Cmp(req.Amount) < 0 {
				return refuse(ReasonAllowanceRequired, "the payer has not approved Permit2 for "+req.Amount.String()+" (or send the eip2612GasSponsoring extension)")
			}
		}
	}
	return refuse(ReasonSimulationFailed, "the settlement would fail: "+err.Error())
}

// Broadcast sends the proxy's settle of p for req.Amount (the charge).
func (s *Server) Broadcast(ctx context.Context, p *x402.Payment, req *x402.Requirement, onSigned func(common.Hash) error) (*x402.Receipt, error) {
	rc := &x402.Receipt{Payer: p.Authorization.From.Hex(), Network: req.Network.CAIP2, Amount: req.Amount.String(),
		Extra: x402.ReceiptExtra{ChargedAmount: req.Amount.String()}}
	fail := func(reason string, err error) (*x402.Receipt, error) {
		rc.ErrorReason = reason
		return rc, err
	}
	up, err := s.payload(p)
	if err != nil {
		return fail(ReasonInvalidPayload, err)
	}
	data, err := SettleCalldata(up, req.Amount)
	if err != nil {
		return fail(x402.AsError(err, ReasonInvalidPayload).Reason, err)
	}
	hash, err := s.chain.Call(ctx, s.verifier.Contracts.Proxy, data, onSigned)
	switch {
	case errors.Is(err, x402.ErrSettlementPending):
		rc.Transaction = hash.Hex()
		return fail(x402.ReasonSettlementPending, err)
	case errors.Is(err, evm.ErrCallReverted):
		return fail(ReasonTransactionFailed, &x402.Error{Reason: ReasonTransactionFailed, Message: err.Error()})
	case err != nil:
		return fail(x402.ReasonUnexpectedSettleError, err)
	}
	rc.Success, rc.Transaction = true, hash.Hex()
	return rc, nil
}

// Await waits for the settlement transaction of p.
func (s *Server) Await(ctx context.Context, tx common.Hash, _ *x402.Payment) error {
	_, err := s.chain.AwaitCall(ctx, tx)
	if errors.Is(err, evm.ErrCallReverted) {
		return &x402.Error{Reason: ReasonTransactionFailed, Message: err.Error()}
	}
	return err
}

// AuthorizationUsed reads Permit2's nonce bitmap: a used nonce means the
// permit was spent (by this settlement or another).
func (s *Server) AuthorizationUsed(ctx context.Context, p *x402.Payment, _ *x402.Requirement) (bool, error) {
	nonce := new(big.Int).SetBytes(p.Authorization.Nonce[:])
	word, bit := new(big.Int).Rsh(nonce, 8), uint(nonce.Uint64()&0xff)
	permit2 := s.verifier.Contracts.Permit2
	out, err := s.chain.Backend().CallContract(ctx, ethereum.CallMsg{To: &permit2, Data: permit2ABI.PackNonceBitmap(p.Authorization.From, word)}, nil)
	if err != nil {
		return false, fmt.Errorf("reading Permit2's nonce bitmap: %w", err)
	}
	bitmap, err := permit2ABI.UnpackNonceBitmap(out)
	if err != nil {
		return false, err
	}
	return bitmap.Bit(int(bit)) == 1, nil
}
