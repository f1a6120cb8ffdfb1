package x402

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

// MinValidity is how long an authorization must still be valid when it is
// verified: the reference facilitator's 6 s, time enough to settle on chain.
const MinValidity = 6 * time.Second

// DefaultSkew is the clock difference allowed between payer and server when
// bounding validBefore from above. The bound keeps authorizations (and the
// replay-store entries they need) short-lived; a tighter skew refuses
// payers whose clocks run fast.
const DefaultSkew = 30 * time.Second

// secp256k1 group order n and n/2, big-endian, for the signature checks.
var (
	secpN, _    = new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)
	secpNBytes  = secpN.FillBytes(make([]byte, 32))
	secpHalfN   = new(big.Int).Rsh(secpN, 1).FillBytes(make([]byte, 32))
	zeroWord    = make([]byte, 32)
	errNoSigner = errors.New("x402: signature does not recover")
)

// Verifier checks a payment locally against the requirements farebox
// computed for the request, in the order of the reference facilitator plus
// the gaps docs/wire.md §6 asks to close. The zero value is ready to use.
type Verifier struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Skew is added to maxTimeoutSeconds when bounding validBefore; zero
	// means DefaultSkew.
	Skew time.Duration
	// Checker, when set, runs after every local check passes (on-chain
	// simulation, EIP-1271 smart-wallet signatures). Signatures longer than
	// 65 bytes are left to it; without it they are refused.
	Checker Checker
	// Gate, when set, runs before the Checker in Check and CheckPayer: the
	// settler cannot settle now (a facilitator seen down), so the payment
	// is refused before anything runs for it. Its error is an *Error.
	Gate func(ctx context.Context) error
}

func refuse(reason, msg string) *Error { return &Error{Reason: reason, Message: msg} }

// Verify returns the requirement the payment satisfies, or an *Error with
// the x402 reason code of the first check that failed. reqs are the
// requirements recomputed for this request; the payment's own echo of them
// is never consulted beyond choosing by network.
func (v *Verifier) Verify(ctx context.Context, p *Payment, reqs []*Requirement) (*Requirement, error) {
	req, err := v.VerifyLocal(ctx, p, reqs)
	if err != nil {
		return nil, err
	}
	if err := v.Check(ctx, p, req); err != nil {
		return nil, err
	}
	return req, nil
}

// VerifyLocal is Verify without the Checker's final on-chain check (a
// smart wallet's signature is still checked on chain): for a caller that
// first looks the authorization up in its own journal, where an
// authorization already used on chain may be a purchase to serve again.
func (v *Verifier) VerifyLocal(ctx context.Context, p *Payment, reqs []*Requirement) (*Requirement, error) {
	req := pick(p, reqs)
	if req == nil {
		return nil, refuse(ReasonInvalidNetwork, "no accepted requirement for network "+quote(p.Network))
	}
	if p.Scheme != SchemeExact {
		return nil, refuse(ReasonUnsupportedScheme, "scheme "+quote(p.Scheme)+" is not supported; use \"exact\"")
	}
	if req.Scheme != p.Scheme {
		return nil, refuse(ReasonInvalidScheme, "scheme "+quote(p.Scheme)+" is not accepted here")
	}
	n := req.Network
	if n.Name == "" || n.Version == "" || n.ChainID == nil || req.Amount == nil {
		return nil, refuse(ReasonInvalidRequirements, "the server's requirement for "+n.CAIP2+" is incomplete")
	}
	a := &p.Authorization
	if a.To != req.PayTo {
		return nil, refuse(ReasonRecipientMismatch, "authorization.to must be "+req.PayTo.Hex())
	}
	if a.Value == nil || a.Value.Cmp(req.Amount) != 0 {
		return nil, refuse(ReasonValue, "authorization.value must be exactly "+req.Amount.String())
	}
	if err := v.checkWindow(a, req); err != nil {
		return nil, err
	}
	if err := v.checkSignature(p, n); err != nil {
		// A 65-byte signature that does not recover to `from` may still be
		// a smart wallet's (EIP-1271): the chain decides, when it can.
		cc, ok := v.Checker.(ContractSignatureChecker)
		if !ok || err != errSignerMismatch {
			return nil, err
		}
		if cerr := cc.VerifyContractSignature(ctx, p, req); cerr != nil {
			return nil, err
		}
		p.walletSigned = true
	}
	return req, nil
}

// Check runs the Checker (on-chain simulation) for a payment VerifyLocal
// accepted; nil without a Checker.
func (v *Verifier) Check(ctx context.Context, p *Payment, req *Requirement) error {
	if err := v.gate(ctx); err != nil {
		return err
	}
	return v.check(ctx, p, req)
}

// check is Check past the Gate.
func (v *Verifier) check(ctx context.Context, p *Payment, req *Requirement) error {
	if v.Checker == nil {
		return nil
	}
	if err := v.Checker.Check(ctx, p, req); err != nil {
		return asRefusal(err, "payment could not be checked on chain")
	}
	return nil
}

// gate runs the Gate, its refusal an *Error.
func (v *Verifier) gate(ctx context.Context) error {
	if v.Gate == nil {
		return nil
	}
	if err := v.Gate(ctx); err != nil {
		return asRefusal(err, "payments cannot be settled now; try again shortly")
	}
	return nil
}

// asRefusal is err's *Error, else an unexpected_verify_error saying msg.
func asRefusal(err error, msg string) *Error {
	var xe *Error
	if errors.As(err, &xe) {
		return xe
	}
	return &Error{Reason: ReasonUnexpectedVerifyError, Message: msg}
}

// CheckPayer is Check through a PayerChecker, which may vouch for the
// payer instead of asking the chain. end (never nil) must be called when
// the purchase is over, with whether its settlement was refused or its
// transfer failed. A contract wallet's payment (a signature longer than 65
// bytes, or one accepted by EIP-1271) is always checked: the wallet may
// answer differently from one call to the next.
func (v *Verifier) CheckPayer(ctx context.Context, p *Payment, req *Requirement) (end func(failed bool), err error) {
	if err := v.gate(ctx); err != nil {
		return noEnd, err
	}
	pc, ok := v.Checker.(PayerChecker)
	if !ok || p.walletSigned || len(p.Signature) > 65 {
		return noEnd, v.check(ctx, p, req)
	}
	end, err = pc.CheckPayer(ctx, p, req)
	if err != nil {
		return noEnd, asRefusal(err, "payment could not be checked on chain")
	}
	return end, nil
}

func noEnd(bool) {}

// pick chooses the requirement on the payment's network, preferring one
// whose scheme matches too.
func pick(p *Payment, reqs []*Requirement) *Requirement {
	var found *Requirement
	for _, r := range reqs {
		if r == nil || r.Network == nil {
			continue
		}
		name := r.Network.CAIP2
		if p.Version == 1 {
			name = r.Network.V1Name
		}
		if name == "" || name != p.Network {
			continue
		}
		if r.Scheme == p.Scheme {
			return r
		}
		if found == nil {
			found = r
		}
	}
	return found
}

// checkWindow enforces validAfter <= now and
// now+MinValidity <= validBefore <= now+maxTimeoutSeconds+skew.
func (v *Verifier) checkWindow(a *Authorization, req *Requirement) *Error {
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	t := now().Unix()
	if a.ValidAfter == nil || !a.ValidAfter.IsInt64() || a.ValidAfter.Int64() > t {
		return refuse(ReasonValidAfter, "authorization.validAfter is in the future")
	}
	skew := v.Skew
	if skew == 0 {
		skew = DefaultSkew
	}
	if a.ValidBefore == nil || !a.ValidBefore.IsInt64() {
		return refuse(ReasonValidBefore, "authorization.validBefore is out of range")
	}
	vb := a.ValidBefore.Int64()
	if vb < t+int64(MinValidity/time.Second) {
		return refuse(ReasonValidBefore, "authorization expires in less than 6 seconds")
	}
	maxT := t + req.MaxTimeoutSeconds + int64(skew/time.Second)
	if vb > maxT {
		return refuse(ReasonValidBefore, "authorization.validBefore is more than "+
			strconv.FormatInt(req.MaxTimeoutSeconds, 10)+" seconds away")
	}
	return nil
}

// checkSignature validates the shape of an EOA signature (65 bytes, v in
// {0,1,27,28}, 0 < r,s < n, s <= n/2: what USDC accepts on chain) and that
// it recovers authorization.from over the EIP-712 digest.
func (v *Verifier) checkSignature(p *Payment, n *Network) *Error {
	sig := p.Signature
	if len(sig) > 65 {
		if v.Checker != nil {
			return nil // smart-wallet signature: EIP-1271 / EIP-6492, checked on chain
		}
		return refuse(ReasonSignature, "smart-wallet signatures (longer than 65 bytes) are not accepted by this server")
	}
	if len(sig) != 65 {
		return refuse(ReasonSignature, "signature must be 65 bytes")
	}
	r, s, recid := sig[0:32], sig[32:64], sig[64]
	if recid >= 27 {
		recid -= 27
	}
	if recid > 1 {
		return refuse(ReasonSignature, "signature v must be 27 or 28")
	}
	if bytes.Equal(r, zeroWord) || bytes.Equal(s, zeroWord) ||
		bytes.Compare(r, secpNBytes) >= 0 || bytes.Compare(s, secpNBytes) >= 0 {
		return refuse(ReasonSignature, "signature r or s is out of range")
	}
	if bytes.Compare(s, secpHalfN) > 0 {
		return refuse(ReasonSignature, "signature s is high; use the low-s form")
	}
	digest := n.Digest(&p.Authorization)
	signer, err := recoverAddress(digest[:], r, s, recid)
	if err != nil || signer != p.Authorization.From {
		return errSignerMismatch
	}
	return nil
}

// errSignerMismatch is a well-formed signature by someone other than `from`.
var errSignerMismatch = refuse(ReasonSignature, "signature does not match authorization.from")

// PayerChecker is a Checker that can vouch for a payer: once a payment of
// its passed the chain's check, the payer's next payments skip it until one
// of them fails (evm.Checker with PerPayer). The settler's own check right
// before the transfer is sent still refuses a payment that would fail, so
// no answer goes out unpaid; what a skipped check risks is the upstream
// call of a payment the chain then refuses.
type PayerChecker interface {
	Checker
	// CheckPayer is Check, or nothing when the payer is vouched for. end
	// is called when the purchase is over: failed when its settlement was
	// refused or its transfer failed, after which the payer's payments are
	// checked again until one passes.
	CheckPayer(ctx context.Context, p *Payment, req *Requirement) (end func(failed bool), err error)
}

// ContractSignatureChecker is a Checker that can also verify a signature
// with the payer's contract wallet (EIP-1271).
type ContractSignatureChecker interface {
	VerifyContractSignature(ctx context.Context, p *Payment, req *Requirement) error
}

// recoverAddress returns the address whose key made the signature (r, s, recid).
func recoverAddress(digest, r, s []byte, recid byte) ([20]byte, error) {
	var out [20]byte
	// The digest and signature reach cgo, and the public key the hasher,
	// from the pooled digester's buffers: no copy of them is allocated.
	d := digesterPool.Get().(*digester)
	defer digesterPool.Put(d)
	copy(d.sig[0:32], r)
	copy(d.sig[32:64], s)
	d.sig[64] = recid
	copy(d.result[:], digest)
	pub, err := crypto.Ecrecover(d.result[:], d.sig[:])
	if err != nil || len(pub) != 65 {
		return out, errNoSigner
	}
	d.k.Reset()
	d.k.Write(pub[1:])
	d.k.Read(d.result[:])
	copy(out[:], d.result[12:])
	return out, nil
}
