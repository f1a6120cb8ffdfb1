package gateway

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/upto"
)

// uptoScheme is the upto scheme with farebox's own chain settler as its
// facilitator: the relayer, declared in the offer and bound by the payer's
// witness, sends the proxy's settle for the actual charge after the answer.
type uptoScheme struct {
	settler  *evm.Settler
	verifier *upto.Verifier
}

func newUptoScheme(st *evm.Settler, now func() time.Time) *uptoScheme {
	c := upto.NewContracts(st.ChainID(), contracts.CanonicalPermit2, contracts.CanonicalUptoPermit2Proxy)
	return &uptoScheme{settler: st, verifier: &upto.Verifier{Contracts: c, Facilitator: st.Relayer(), Now: now}}
}

var (
	tokenABI   = contracts.NewFareboxUSDv2() // the ERC-20 reads every USDC answers
	permit2ABI = contracts.NewPermit2()
)

// completeUpto fills the x402 payment of an upto payload the way the
// settlement journal keys and times it: its Permit2 nonce (unordered,
// single use per owner, like an EIP-3009 nonce), its deadline as
// validBefore, its ceiling as the value.
func completeUpto(pay *x402.Payment, up *upto.Payload) {
	var nonce [32]byte
	up.Permit.Nonce.FillBytes(nonce[:])
	pay.Authorization = x402.Authorization{From: up.From, To: up.Witness.To, Value: up.Permit.Amount,
		ValidAfter: up.Witness.ValidAfter, ValidBefore: up.Permit.Deadline, Nonce: nonce}
	pay.Signature = up.Signature
}

// decodeUpto decodes the upto payload of a payment and completes it.
func decodeUpto(pay *x402.Payment) (*upto.Payload, error) {
	up, err := upto.DecodePayload(pay.Payload, pay.Extensions)
	if err != nil {
		return nil, err
	}
	completeUpto(pay, up)
	return up, nil
}

// authorizeUpto verifies an upto payment locally, reserves it in the
// settlement journal (replays and holds as for exact, at the ceiling) and
// simulates its settlement at the ceiling from the relayer.
func (p *payments) authorizeUpto(ctx context.Context, pay *x402.Payment, rt *route, o *offer, body []byte, version int) (*charge, error) {
	u := p.upto
	if u == nil || rt.perToken == nil {
		return nil, refuse(o, x402.ReasonUnsupportedScheme, "Payment refused: this model takes upto payments only when priced per token and settled by farebox's own chain settler. Pay with one of the offers.")
	}
	req := o.requirement(pay.Network, upto.Scheme)
	if req == nil {
		return nil, refuse(o, upto.ReasonNetworkMismatch, "Payment refused: network "+pay.Network+" is not offered.")
	}
	up, err := decodeUpto(pay)
	if err != nil {
		return nil, p.undecodable(o, err, version, "Payment refused: ")
	}
	if err := u.verifier.Verify(up, req); err != nil {
		xe := asX402(err, x402.ReasonUnexpectedVerifyError)
		return nil, refuse(o, xe.Reason, "Payment refused: "+xe.Message)
	}
	id, err := paymentID(pay)
	if err != nil {
		p.counts.refused.Add(1)
		return nil, err
	}
	pu, err := p.engine.BeginWait(ctx, settle.Purchase{Payment: pay, Requirement: req, BodyHash: sha256.Sum256(body), PaymentID: id})
	if err != nil {
		return nil, p.beginError(o, err)
	}
	if !pu.Replay() {
		if err := u.simulate(ctx, up, req); err != nil {
			if rerr := pu.Release(ctx); rerr != nil {
				p.log.Error("releasing a purchase the chain refused", "err", rerr)
			}
			var xe *x402.Error
			if !errors.As(err, &xe) {
				return nil, errPaymentsUnavailable(err)
			}
			return nil, refuse(o, xe.Reason, "Payment refused: "+xe.Message)
		}
	}
	return &charge{route: rt, payment: pay, req: req, offer: o, pay: journaled{pu: pu, metered: true}}, nil
}

// simulate runs the settlement at the ceiling (the worst case) from the
// relayer; a revert is explained by the payer's balance and Permit2
// allowance when they fall short.
func (u *uptoScheme) simulate(ctx context.Context, up *upto.Payload, req *x402.Requirement) error {
	data, err := upto.SettleCalldata(up, req.Amount)
	if err != nil {
		return err
	}
	err = u.settler.SimulateCall(ctx, u.verifier.Contracts.Proxy, data)
	if err == nil || !errors.Is(err, evm.ErrCallReverted) {
		return err
	}
	refuse := func(reason, msg string) error { return &x402.Error{Reason: reason, Message: msg} }
	b := u.settler.Backend()
	asset := req.Network.Asset
	if out, cerr := b.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: tokenABI.PackBalanceOf(up.From)}, nil); cerr == nil {
		if bal, uerr := tokenABI.UnpackBalanceOf(out); uerr == nil && bal.Cmp(req.Amount) < 0 {
			return refuse(upto.ReasonInsufficientBalance, "the payer's balance does not cover "+req.Amount.String())
		}
	}
	if up.GasSponsoring == nil {
		data := tokenABI.PackAllowance(up.From, u.verifier.Contracts.Permit2)
		if out, cerr := b.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: data}, nil); cerr == nil {
			if al, uerr := tokenABI.UnpackAllowance(out); uerr == nil && al.Cmp(req.Amount) < 0 {
				return refuse(upto.ReasonAllowanceRequired, "the payer has not approved Permit2 for "+req.Amount.String()+" (or send the eip2612GasSponsoring extension)")
			}
		}
	}
	return refuse(upto.ReasonSimulationFailed, "the settlement would fail: "+err.Error())
}

// schemeChain is the chain settler as the settlement engine sees it: exact
// transfers go to the batching settler, upto settlements are sent by the
// same relayer as one proxy call each.
type schemeChain struct {
	*evm.Settler
	upto *uptoScheme
}

// Broadcast sends the settlement of p for req.Amount (upto: the charge).
func (c schemeChain) Broadcast(ctx context.Context, p *x402.Payment, req *x402.Requirement, onSigned func(common.Hash) error) (*x402.Receipt, error) {
	if p.Scheme != upto.Scheme {
		return c.Settler.Broadcast(ctx, p, req, onSigned)
	}
	rc := &x402.Receipt{Payer: p.Authorization.From.Hex(), Network: req.Network.CAIP2, Amount: req.Amount.String(),
		Extra: x402.ReceiptExtra{ChargedAmount: req.Amount.String()}}
	fail := func(reason string, err error) (*x402.Receipt, error) {
		rc.ErrorReason = reason
		return rc, err
	}
	up, err := decodeUpto(p)
	if err != nil {
		return fail(upto.ReasonInvalidPayload, err)
	}
	data, err := upto.SettleCalldata(up, req.Amount)
	if err != nil {
		return fail(asX402(err, upto.ReasonInvalidPayload).Reason, err)
	}
	hash, err := c.Call(ctx, c.upto.verifier.Contracts.Proxy, data, onSigned)
	switch {
	case errors.Is(err, x402.ErrSettlementPending):
		rc.Transaction = hash.Hex()
		return fail(x402.ReasonSettlementPending, err)
	case errors.Is(err, evm.ErrCallReverted):
		return fail(upto.ReasonTransactionFailed, &x402.Error{Reason: upto.ReasonTransactionFailed, Message: err.Error()})
	case err != nil:
		return fail(x402.ReasonUnexpectedSettleError, err)
	}
	rc.Success, rc.Transaction = true, hash.Hex()
	return rc, nil
}

// Await waits for the settlement transaction of p.
func (c schemeChain) Await(ctx context.Context, tx common.Hash, p *x402.Payment) error {
	if p.Scheme != upto.Scheme {
		return c.Settler.Await(ctx, tx, p)
	}
	_, err := c.AwaitCall(ctx, tx)
	if errors.Is(err, evm.ErrCallReverted) {
		return &x402.Error{Reason: upto.ReasonTransactionFailed, Message: err.Error()}
	}
	return err
}

// AuthorizationUsed reads, for upto, Permit2's nonce bitmap: a used nonce
// means the permit was spent (by this settlement or another).
func (c schemeChain) AuthorizationUsed(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error) {
	if p.Scheme != upto.Scheme {
		return c.Settler.AuthorizationUsed(ctx, p, req)
	}
	nonce := new(big.Int).SetBytes(p.Authorization.Nonce[:])
	word, bit := new(big.Int).Rsh(nonce, 8), uint(nonce.Uint64()&0xff)
	permit2 := c.upto.verifier.Contracts.Permit2
	out, err := c.Backend().CallContract(ctx, ethereum.CallMsg{To: &permit2, Data: permit2ABI.PackNonceBitmap(p.Authorization.From, word)}, nil)
	if err != nil {
		return false, fmt.Errorf("reading Permit2's nonce bitmap: %w", err)
	}
	bitmap, err := permit2ABI.UnpackNonceBitmap(out)
	if err != nil {
		return false, err
	}
	return bitmap.Bit(int(bit)) == 1, nil
}

// completeJournaled completes a journaled payment of another scheme on
// Resume (settle.Config.Complete).
func completeJournaled(pay *x402.Payment) error {
	if pay.Scheme != upto.Scheme {
		return fmt.Errorf("no settlement for a journaled %q payment", pay.Scheme)
	}
	_, err := decodeUpto(pay)
	return err
}
