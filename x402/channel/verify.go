package channel

import (
	"errors"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/eip712"
)

// MinValidity is how long a deposit authorization must still be valid when
// verified: time enough to submit the deposit.
const MinValidity = 6 * time.Second

// ErrNeedsChain means every local check passed but a signature could not
// be checked locally: the channel's payer is a contract wallet (its
// payerAuthorizer is zero, as clients set it for EIP-1271 wallets) or a
// signature is longer than 65 bytes. Finish with VerifyOnChain.
var ErrNeedsChain = errors.New("channel: signature must be verified on chain")

// ErrStale means the state's on-chain mirror is older than the verifier
// allows: read the chain (Mirror) and verify again.
var ErrStale = errors.New("channel: on-chain state is stale")

// Verifier checks batch-settlement payloads locally, with one signature
// recovery per voucher. The zero Now is time.Now; a zero MaxStaleness
// accepts any mirror age.
type Verifier struct {
	Contracts    *Contracts
	Now          func() time.Time
	MaxStaleness time.Duration
}

func (v *Verifier) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

// Verify checks a deposit or voucher payload against the requirement farebox
// recomputed (req.Amount is the per-request ceiling), the server's terms and
// the channel's state: for a channel the server has no record of, st is
// NewState from the chain (a fresh channel reads all zeros). It returns an
// *Error with the spec's reason, ErrNeedsChain or ErrStale. On
// ReasonCumulativeAmountMismatch answer with the corrective 402
// (Accept(req, t, st)).
//
// The payer's signatures are checked before anything that depends on the
// channel's state: a refusal that names the state (the corrective 402, the
// balance, the claimed total) goes only to a payer who signed. A payload
// whose signatures the chain must check returns ErrNeedsChain first; after
// VerifyOnChain accepted them, finish with VerifySigned.
func (v *Verifier) Verify(p *Payload, req *x402.Requirement, t *Terms, st *State) error {
	return v.verify(p, req, t, st, false)
}

// VerifySigned is Verify for a payload whose contract-wallet signatures
// VerifyOnChain already accepted.
func (v *Verifier) VerifySigned(p *Payload, req *x402.Requirement, t *Terms, st *State) error {
	return v.verify(p, req, t, st, true)
}

func (v *Verifier) verify(p *Payload, req *x402.Requirement, t *Terms, st *State, chainChecked bool) error {
	if p.Type != TypeDeposit && p.Type != TypeVoucher {
		return refuse(ReasonPayloadType, "a paid request takes a deposit or voucher payload")
	}
	if err := v.common(p, req, t, st); err != nil {
		return err
	}
	needsChain := false
	if p.Type == TypeDeposit {
		if t.MinDeposit != nil && p.Deposit.Amount.Cmp(t.MinDeposit) < 0 {
			return refuse(ReasonDepositBelowMinDeposit, "the deposit must be at least "+t.MinDeposit.String())
		}
		var err error
		if needsChain, err = v.verifyDeposit(p, req); err != nil {
			return err
		}
	}
	if err := v.voucherSignature(p); err == ErrNeedsChain {
		needsChain = true
	} else if err != nil {
		return err
	}
	if needsChain && !chainChecked {
		return ErrNeedsChain
	}
	want := new(big.Int).Add(st.Charged, req.Amount)
	max := p.Voucher.MaxClaimable
	if max.Cmp(want) != 0 {
		return refuse(ReasonCumulativeAmountMismatch, "voucher maxClaimableAmount must be "+want.String())
	}
	avail := st.Balance
	if p.Type == TypeDeposit {
		avail = new(big.Int).Add(st.Balance, p.Deposit.Amount)
	} else if st.Balance.Sign() == 0 {
		return refuse(ReasonChannelNotFound, "the channel has no balance; deposit first")
	}
	if max.Cmp(avail) > 0 {
		return refuse(ReasonCumulativeExceedsBalance, "voucher exceeds the channel balance "+avail.String())
	}
	if max.Cmp(st.TotalClaimed) <= 0 {
		return refuse(ReasonCumulativeBelowClaimed, "voucher is not above the claimed total "+st.TotalClaimed.String())
	}
	if p.Type == TypeVoucher && v.MaxStaleness > 0 && !st.Fresh(v.now(), v.MaxStaleness) {
		return ErrStale
	}
	return nil
}

// VerifyRefund checks a cooperative refund request (a zero-charge voucher
// at exactly the charged amount) and returns the amount to refund: the
// requested amount capped at what is left, or everything left.
func (v *Verifier) VerifyRefund(p *Payload, req *x402.Requirement, t *Terms, st *State) (*big.Int, error) {
	if p.Type != TypeRefund {
		return nil, refuse(ReasonPayloadType, "not a refund payload")
	}
	if err := v.common(p, req, t, st); err != nil {
		return nil, err
	}
	if err := v.voucherSignature(p); err != nil {
		return nil, err
	}
	return v.RefundAmount(p, st)
}

// RefundAmount finishes VerifyRefund once the voucher's signature was
// accepted (by VerifyRefund, or by VerifyOnChain for a contract wallet):
// the voucher must be at exactly the charged amount; it returns the amount
// to refund.
func (v *Verifier) RefundAmount(p *Payload, st *State) (*big.Int, error) {
	if p.Voucher.MaxClaimable.Cmp(st.Charged) != 0 {
		return nil, refuse(ReasonCumulativeAmountMismatch, "refund voucher maxClaimableAmount must be "+st.Charged.String())
	}
	if p.Voucher.MaxClaimable.Cmp(st.TotalClaimed) < 0 {
		return nil, refuse(ReasonCumulativeBelowClaimed, "refund voucher is below the claimed total")
	}
	left := st.Refundable()
	if left.Sign() == 0 {
		return nil, refuse(ReasonRefundNoBalance, "nothing is left to refund")
	}
	if p.RefundAmount != nil && p.RefundAmount.Cmp(left) < 0 {
		return new(big.Int).Set(p.RefundAmount), nil
	}
	return left, nil
}

// common checks what every payload shares: the config hashes to the
// channel id and matches the requirement and the server's terms.
func (v *Verifier) common(p *Payload, req *x402.Requirement, t *Terms, st *State) error {
	if req == nil || req.Network == nil || req.Amount == nil || t == nil {
		return refuse(x402.ReasonInvalidRequirements, "incomplete batch-settlement requirement")
	}
	if req.Network.Name == "" || req.Network.Version == "" {
		return refuse(ReasonMissingEIP712Domain, "the token's EIP-712 name and version are missing")
	}
	c := &p.Config
	if v.Contracts.ChannelID(c) != p.Voucher.ChannelID {
		return refuse(ReasonChannelIDMismatch, "channelConfig does not hash to voucher.channelId")
	}
	switch {
	case c.Token != req.Network.Asset:
		return refuse(ReasonTokenMismatch, "channel token must be "+req.Network.Asset.Hex())
	case c.Receiver != req.PayTo:
		return refuse(ReasonReceiverMismatch, "channel receiver must be "+req.PayTo.Hex())
	case c.ReceiverAuthorizer != t.ReceiverAuthorizer:
		return refuse(ReasonReceiverAuthorizerMismatch, "channel receiverAuthorizer must be "+t.ReceiverAuthorizer.Hex())
	case c.WithdrawDelay < MinWithdrawDelay || c.WithdrawDelay > MaxWithdrawDelay:
		return refuse(ReasonWithdrawDelayOutOfRange, "withdrawDelay must be between 900 and 2592000 seconds")
	case c.WithdrawDelay != t.WithdrawDelay:
		return refuse(ReasonWithdrawDelayMismatch, "channel withdrawDelay does not match the offer")
	case c.Payer == (common.Address{}):
		return refuse(ReasonVoucherPayload, "channel payer is zero")
	}
	if st == nil {
		return refuse(ReasonMissingChannel, "no channel state")
	}
	if st.ChannelID != p.Voucher.ChannelID {
		return refuse(ReasonChannelIDMismatch, "state is for another channel")
	}
	return nil
}

// voucherSignature recovers the voucher's signer: the payer authorizer
// when set (ECDSA only, as the contract); else the payer, whose contract
// wallet the chain must ask.
func (v *Verifier) voucherSignature(p *Payload) error {
	if p.Config.PayerAuthorizer == (common.Address{}) {
		return ErrNeedsChain
	}
	if !ecdsaSigner(v.Contracts.VoucherDigest(p.Voucher.ChannelID, p.Voucher.MaxClaimable), p.Voucher.Signature, p.Config.PayerAuthorizer) {
		return refuse(ReasonVoucherSignature, "voucher signature does not recover to payerAuthorizer")
	}
	return nil
}

// verifyDeposit checks the token authorization of a deposit: signed by the
// payer, for exactly the deposit, to the right collector, valid now. It
// reports whether the signature is a contract wallet's, left to the chain.
func (v *Verifier) verifyDeposit(p *Payload, req *x402.Requirement) (bool, error) {
	d := p.Deposit
	now := v.now().Unix()
	wallet := p.Config.PayerAuthorizer == (common.Address{})
	if d.ERC3009 != nil {
		e := d.ERC3009
		if !e.ValidAfter.IsInt64() || e.ValidAfter.Int64() > now {
			return false, refuse(ReasonValidAfter, "erc3009Authorization.validAfter is in the future")
		}
		if !e.ValidBefore.IsInt64() || e.ValidBefore.Int64() < now+int64(MinValidity/time.Second) {
			return false, refuse(ReasonValidBefore, "erc3009Authorization expires too soon")
		}
		if wallet || len(e.Signature) > 65 {
			return true, nil
		}
		signer, err := eip712.Recover(eip712.ReceiveDigest(req.Network, v.receive(p)), e.Signature)
		if err != nil || signer != p.Config.Payer {
			return false, refuse(ReasonReceiveAuthorizationSignature, "receiveWithAuthorization signature does not recover to the payer")
		}
		return false, nil
	}
	if d.Permit2 == nil {
		return false, refuse(ReasonERC3009AuthorizationRequired, "deposit needs an erc3009Authorization")
	}
	a := d.Permit2
	switch {
	case a.From != p.Config.Payer:
		return false, refuse(ReasonPermit2InvalidSignature, "permit2Authorization.from must be the channel payer")
	case a.Permit.Spender != v.Contracts.Permit2Collector:
		return false, refuse(ReasonPermit2InvalidSpender, "permit2Authorization.spender must be "+v.Contracts.Permit2Collector.Hex())
	case a.Permit.Token != req.Network.Asset:
		return false, refuse(ReasonTokenMismatch, "permit2Authorization token must be "+req.Network.Asset.Hex())
	case a.Permit.Amount.Cmp(d.Amount) != 0:
		return false, refuse(ReasonPermit2AmountMismatch, "permit2Authorization amount must equal the deposit")
	case a.ChannelID != p.Voucher.ChannelID:
		return false, refuse(ReasonChannelIDMismatch, "permit2Authorization witness is for another channel")
	case !a.Permit.Deadline.IsInt64() || a.Permit.Deadline.Int64() < now+int64(MinValidity/time.Second):
		return false, refuse(ReasonPermit2DeadlineExpired, "permit2Authorization expires too soon")
	}
	if wallet || len(a.Signature) > 65 {
		return true, nil
	}
	signer, err := eip712.Recover(v.Contracts.Permit2DepositDigest(&a.Permit, a.ChannelID), a.Signature)
	if err != nil || signer != a.From {
		return false, refuse(ReasonPermit2InvalidSignature, "permit2Authorization signature does not recover to the payer")
	}
	return false, nil
}

// receive is the ERC-3009 authorization an ERC-3009 deposit signs.
func (v *Verifier) receive(p *Payload) *x402.Authorization {
	e := p.Deposit.ERC3009
	return &x402.Authorization{From: p.Config.Payer, To: v.Contracts.ERC3009Collector, Value: p.Deposit.Amount,
		ValidAfter: e.ValidAfter, ValidBefore: e.ValidBefore, Nonce: ERC3009Nonce(p.Voucher.ChannelID, e.Salt)}
}

// ecdsaSigner reports whether sig is want's signature of digest as the
// settlement contract recovers it (OpenZeppelin ECDSA): 65 bytes, low s,
// and v 27 or 28 only (the contract's ecrecover refuses 0 and 1, which
// eip712.Recover allows).
func ecdsaSigner(digest [32]byte, sig []byte, want common.Address) bool {
	if len(sig) != 65 || (sig[64] != 27 && sig[64] != 28) {
		return false
	}
	signer, err := eip712.Recover(digest, sig)
	return err == nil && signer == want
}
