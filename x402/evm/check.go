package evm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/eip712"
)

// Checker is the on-chain verification step (x402.Checker): EIP-1271
// signatures of smart wallets, and optionally an eth_call simulation of
// transferWithAuthorization that catches a used nonce, a low balance or a
// token that does not match its configured EIP-712 domain before the model
// is called.
type Checker struct {
	backend Backend
	// Simulate runs the eth_call simulation on every Check.
	Simulate bool
	// From is the account the simulation calls from (the relayer); zero is fine
	// for FiatToken, which lets anyone submit an authorization.
	From common.Address

	// HeadMaxAge is how old the header whose timestamp the simulation
	// starts from may be (default 250 ms).
	HeadMaxAge time.Duration

	// PerPayer (with Simulate) simulates a payer's payment only until one
	// passes; its next payments skip the simulation (CheckPayer) until one
	// of them fails at settlement, VouchFor passes, or MaxUnchecked of its
	// unsimulated payments are in flight. The settler simulates every
	// batch right before sending it, so a payment that would fail is still
	// refused before its answer leaves; what skipping risks is the
	// upstream call of a payer whose state changed since (a nonce it
	// cancelled, funds it moved, a blacklisting), at most MaxUnchecked
	// calls at a time, each costing that payer a transaction.
	PerPayer bool
	// VouchFor is how long a passed simulation vouches for its payer
	// (default 1 min).
	VouchFor time.Duration
	// MaxUnchecked bounds a payer's unsimulated payments in flight
	// (default 8); past it they are simulated.
	MaxUnchecked int

	assets deployedAssets
	latest latestHead

	mu     sync.Mutex
	payers map[payerKey]*vouch
}

// payerKey is one payer of one token.
type payerKey struct {
	asset, from common.Address
}

// vouch is what PerPayer knows of a payer: when a simulation of its last
// passed (zero: none since its last failure), its unsimulated payments in
// flight, and a generation that every failure bumps, so a simulation that
// began before a failure does not vouch after it.
type vouch struct {
	passed    time.Time
	unchecked int
	gen       uint64
}

// vouchPruneAt is the number of payers past which idle ones are forgotten.
const vouchPruneAt = 4096

var _ x402.Checker = (*Checker)(nil)

// NewChecker returns a Checker over backend; simulate turns the eth_call
// simulation on.
func NewChecker(backend Backend, simulate bool) *Checker {
	return &Checker{backend: backend, Simulate: simulate, HeadMaxAge: 250 * time.Millisecond,
		VouchFor: time.Minute, MaxUnchecked: 8}
}

var _ x402.PayerChecker = (*Checker)(nil)

// CheckPayer is Check, except that with PerPayer a payer whose last
// simulation passed skips it (see PerPayer). x402.Verifier.CheckPayer
// sends contract wallets' payments to Check.
func (c *Checker) CheckPayer(ctx context.Context, p *x402.Payment, req *x402.Requirement) (func(failed bool), error) {
	if !c.Simulate || !c.PerPayer || len(p.Signature) > 65 {
		return func(bool) {}, c.Check(ctx, p, req)
	}
	k := payerKey{req.Network.Asset, p.Authorization.From}
	now := time.Now()
	c.mu.Lock()
	v := c.payers[k]
	if v != nil && !v.passed.IsZero() && now.Sub(v.passed) < c.VouchFor && v.unchecked < c.MaxUnchecked {
		v.unchecked++
		c.mu.Unlock()
		return c.ender(k, true), nil
	}
	var gen uint64
	if v != nil {
		gen = v.gen
	}
	c.mu.Unlock()
	if err := c.SimulateTransfer(ctx, p, req); err != nil {
		var xe *x402.Error
		if errors.As(err, &xe) {
			c.failed(k)
		}
		return func(bool) {}, err
	}
	c.mu.Lock()
	v = c.vouchFor(k, now)
	if v.gen == gen && v.passed.Before(now) {
		v.passed = now
	}
	c.mu.Unlock()
	return c.ender(k, false), nil
}

// vouchFor returns k's record, made when missing; caller holds mu.
func (c *Checker) vouchFor(k payerKey, now time.Time) *vouch {
	if c.payers == nil {
		c.payers = make(map[payerKey]*vouch)
	}
	v := c.payers[k]
	if v == nil {
		if len(c.payers) >= vouchPruneAt {
			for pk, pv := range c.payers {
				if pv.unchecked == 0 && now.Sub(pv.passed) >= c.VouchFor {
					delete(c.payers, pk)
				}
			}
		}
		v = &vouch{}
		c.payers[k] = v
	}
	return v
}

// ender is the end func of a purchase of k's: it counts an unsimulated
// payment out once, and a failure takes the payer's vouch away.
func (c *Checker) ender(k payerKey, unchecked bool) func(failed bool) {
	var once sync.Once
	return func(failed bool) {
		if unchecked {
			once.Do(func() {
				c.mu.Lock()
				if v := c.payers[k]; v != nil && v.unchecked > 0 {
					v.unchecked--
				}
				c.mu.Unlock()
			})
		}
		if failed {
			c.failed(k)
		}
	}
}

// failed takes k's vouch away: its next payments are simulated.
func (c *Checker) failed(k payerKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.vouchFor(k, time.Now())
	v.passed = time.Time{}
	v.gen++
}

// Check verifies what only the chain can tell: a signature longer than 65
// bytes against `from`'s EIP-1271 isValidSignature, then (when Simulate is
// on) that transferWithAuthorization would succeed now. Refusals are
// *x402.Error values; transport failures are plain errors.
func (c *Checker) Check(ctx context.Context, p *x402.Payment, req *x402.Requirement) error {
	if len(p.Signature) > 65 {
		if err := c.VerifyContractSignature(ctx, p, req); err != nil {
			return err
		}
	}
	if c.Simulate {
		return c.SimulateTransfer(ctx, p, req)
	}
	return nil
}

// VerifyContractSignature checks the payment's signature with EIP-1271:
// `from` must be a contract whose isValidSignature(digest, signature)
// returns 0x1626ba7e. The local verifier calls it when a signature does not
// recover to `from`, so smart wallets with 65-byte signatures pay too.
func (c *Checker) VerifyContractSignature(ctx context.Context, p *x402.Payment, req *x402.Requirement) error {
	from := p.Authorization.From
	code, err := c.backend.CodeAt(ctx, from, nil)
	if err != nil {
		return fmt.Errorf("evm: reading code of %s: %w", from, err)
	}
	if len(code) == 0 {
		return &x402.Error{Reason: x402.ReasonSignature,
			Message: "the payer is not a deployed contract wallet, so a signature that is not a plain 65-byte ECDSA signature cannot be checked (undeployed EIP-6492 wallets are not supported)"}
	}
	digest := req.Network.Digest(&p.Authorization)
	out, err := c.backend.CallContract(ctx, ethereum.CallMsg{To: &from, Data: eip712.IsValidSignatureCalldata(digest, p.Signature)}, nil)
	if err != nil && !isRevert(err) {
		return fmt.Errorf("evm: EIP-1271 isValidSignature on %s: %w", from, err)
	}
	if err != nil || len(out) < 4 || !bytes.Equal(out[:4], eip712.EIP1271Magic[:]) {
		return &x402.Error{Reason: x402.ReasonSignature,
			Message: "the payer's smart wallet did not accept the signature (EIP-1271 isValidSignature)"}
	}
	return nil
}

// SimulateTransfer runs transferWithAuthorization with eth_call on the
// latest state in a block stamped with the timestamp the next block is
// expected to carry (see nextBlockTime), so validAfter = now passes. When it would revert, the returned *x402.Error carries the
// most precise reason the chain can give (see Diagnose).
func (c *Checker) SimulateTransfer(ctx context.Context, p *x402.Payment, req *x402.Requirement) error {
	if err := c.assets.check(ctx, c.backend, req.Network); err != nil {
		return err
	}
	data, err := transferCalldata(p)
	if err != nil {
		return &x402.Error{Reason: x402.ReasonInvalidPayload, Message: err.Error()}
	}
	asset := req.Network.Asset
	var ht uint64
	if head, err := c.latest.get(ctx, c.backend, c.HeadMaxAge); err == nil {
		ht = head.Time
	}
	at := nextBlockTime(ht)
	_, err = callAt(ctx, c.backend, ethereum.CallMsg{From: c.From, To: &asset, Data: data}, at)
	if err == nil {
		return nil
	}
	if !isRevert(err) {
		return fmt.Errorf("evm: simulating transferWithAuthorization: %w", err)
	}
	return refusal(ctx, c.backend, p, req, revertReason(err))
}

// refusal explains a revert: Diagnose first (it names the cause even when
// the token reverts without a string), else the revert string mapped.
func refusal(ctx context.Context, b Backend, p *x402.Payment, req *x402.Requirement, revert string) *x402.Error {
	if e := Diagnose(ctx, b, p, req); e != nil {
		return e
	}
	return &x402.Error{Reason: reasonForRevert(revert),
		Message: "transferWithAuthorization would fail on chain: " + revert}
}

// Diagnose asks the chain why an authorization cannot be settled: no token
// at the asset address, a token without EIP-3009, an EIP-712 domain that
// differs from the configured one, an authorization outside its validity
// window at the next block's expected timestamp, a used nonce, or a balance below the value.
// It returns nil when none of these holds (or the chain cannot be read).
func Diagnose(ctx context.Context, b Backend, p *x402.Payment, req *x402.Requirement) *x402.Error {
	a := &p.Authorization
	n := req.Network
	code, err := b.CodeAt(ctx, n.Asset, nil)
	if err != nil {
		return nil
	}
	if len(code) == 0 {
		return &x402.Error{Reason: x402.ReasonInvalidRequirements,
			Message: fmt.Sprintf("no token contract at %s on %s", n.Asset, n.CAIP2)}
	}
	used, err := callBool(ctx, b, n.Asset, tokenCall("authorizationState", a.From, a.Nonce))
	if err != nil {
		return &x402.Error{Reason: x402.ReasonInvalidRequirements,
			Message: fmt.Sprintf("the token at %s on %s does not implement EIP-3009 (authorizationState failed)", n.Asset, n.CAIP2)}
	}
	if e := checkDomain(ctx, b, n); e != nil {
		return e
	}
	if head, err := b.HeaderByNumber(ctx, nil); err == nil {
		now := new(big.Int).SetUint64(nextBlockTime(head.Time))
		if a.ValidAfter != nil && now.Cmp(a.ValidAfter) <= 0 {
			return &x402.Error{Reason: x402.ReasonValidAfter, Message: "the authorization is not valid yet on chain"}
		}
		if a.ValidBefore != nil && now.Cmp(a.ValidBefore) >= 0 {
			return &x402.Error{Reason: x402.ReasonValidBefore, Message: "the authorization has expired on chain"}
		}
	}
	if used {
		return &x402.Error{Reason: x402.ReasonNonceAlreadyUsed, Message: "this authorization nonce has already been used on chain"}
	}
	out, err := b.CallContract(ctx, ethereum.CallMsg{To: &n.Asset, Data: tokenCall("balanceOf", a.From)}, nil)
	if err == nil {
		if bal, err := tokenResult[*big.Int]("balanceOf", out); err == nil && a.Value != nil && bal.Cmp(a.Value) < 0 {
			return &x402.Error{Reason: x402.ReasonInsufficientFunds,
				Message: fmt.Sprintf("the payer holds %s atomic units, the payment needs %s", bal, a.Value)}
		}
	}
	return nil
}

// checkDomain compares the token's EIP-712 name and version (and domain
// separator, which also covers chain id and address) with the network's.
func checkDomain(ctx context.Context, b Backend, n *x402.Network) *x402.Error {
	name, nerr := callString(ctx, b, n.Asset, tokenCall("name"))
	version, verr := callString(ctx, b, n.Asset, tokenCall("version"))
	if nerr == nil && verr == nil && (name != n.Name || version != n.Version) {
		return &x402.Error{Reason: x402.ReasonInvalidRequirements,
			Message: fmt.Sprintf("the token's EIP-712 domain is name %q version %q, but farebox is configured with %q %q", name, version, n.Name, n.Version)}
	}
	out, err := b.CallContract(ctx, ethereum.CallMsg{To: &n.Asset, Data: tokenCall("DOMAIN_SEPARATOR")}, nil)
	if err == nil {
		if sep, err := tokenResult[[32]byte]("DOMAIN_SEPARATOR", out); err == nil && sep != n.DomainSeparator() {
			return &x402.Error{Reason: x402.ReasonInvalidRequirements,
				Message: "the token's EIP-712 domain separator differs from the configured network's (chain id or address)"}
		}
	}
	return nil
}

func callBool(ctx context.Context, b Backend, to common.Address, data []byte) (bool, error) {
	out, err := b.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return false, err
	}
	return tokenResult[bool]("authorizationState", out)
}

func callString(ctx context.Context, b Backend, to common.Address, data []byte) (string, error) {
	out, err := b.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return "", err
	}
	return tokenResult[string]("name", out)
}
