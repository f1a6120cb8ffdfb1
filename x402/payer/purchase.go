package payer

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"slices"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// ErrOutcomeUnknown is returned (wrapped) when a request retries a purchase
// whose authorization can no longer be presented (it expired) and nothing
// proves it did not move money: the transport does not pay a second time.
var ErrOutcomeUnknown = errors.New("payer: the earlier payment for this request may have been spent; not paying again")

// purchaseKey identifies one purchase: the request's method, URL and body.
type purchaseKey [32]byte

func keyOf(req *http.Request, body []byte) purchaseKey {
	h := sha256.New()
	io.WriteString(h, req.Method)
	h.Write([]byte{0})
	io.WriteString(h, req.URL.String())
	h.Write([]byte{0})
	h.Write(body)
	var k purchaseKey
	h.Sum(k[:0])
	return k
}

// purchase is a signed authorization whose request has not been answered.
type purchase struct {
	key           purchaseKey
	header, value string // the payment header
	payment       x402.Payment
	req           *x402.Requirement
	id            string // the payment-identifier extension's id, "" when the server declares none
	hooks         *Hooks // of the request that signed it
	// busy says a request is presenting it now (guarded by Transport.mu):
	// an identical request sent meanwhile is another purchase, not a retry.
	busy bool
	// batch and upto are set for those schemes' payments.
	batch *batchBuy
	upto  *uptoBuy
	// holds are what its signatures count against the budgets.
	holds []*hold
	// unlock releases the batch-settlement channel while it is held.
	unlock func()
	// endpoint is where the request went (endpointOf); preempted says the
	// payment was sent without a 402 first.
	endpoint  string
	preempted bool
	// call, when set, is the only caller that may present it again.
	call *Call
}

// usableUntil is when presenting the authorization again stops making
// sense: servers refuse one with less than x402.MinValidity left.
func (p *purchase) usableUntil() time.Time {
	return time.Unix(p.payment.Authorization.ValidBefore.Int64(), 0).Add(-x402.MinValidity)
}

// forgetAfter is how long past its validBefore an unanswered purchase is
// kept for a late retry to find; it bounds the memory of a long-lived
// transport.
const forgetAfter = time.Hour

// remember keeps p under its key, busy: the request that signed it is
// about to present it.
func (t *Transport) remember(p *purchase) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p.busy = true
	t.pending[p.key] = append(t.pending[p.key], p)
	if p.call != nil {
		p.call.set(p)
	}
	if len(t.pending) > 64 {
		old := time.Now().Add(-forgetAfter).Unix()
		for k, ps := range t.pending {
			ps = slices.DeleteFunc(ps, func(q *purchase) bool { return !q.busy && q.payment.Authorization.ValidBefore.Int64() < old })
			if len(ps) == 0 {
				delete(t.pending, k)
			} else {
				t.pending[k] = ps
			}
		}
	}
}

// idle marks p presentable again: its outcome is unknown, so the next
// retry of its request presents it.
func (t *Transport) idle(p *purchase) {
	t.mu.Lock()
	p.busy = false
	if !slices.Contains(t.pending[p.key], p) {
		t.pending[p.key] = append(t.pending[p.key], p)
	}
	t.mu.Unlock()
}

// void tells the hooks that signed p that it can never be spent.
func (t *Transport) void(p *purchase) {
	if p.batch == nil {
		release(p.holds) // a deposit stays counted: only the chain proves it unused
	}
	if p.hooks != nil && p.hooks.Void != nil {
		p.hooks.Void(p.req, &p.payment)
	}
}

// forget drops p: its purchase is over.
func (t *Transport) forget(p *purchase) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ps := slices.DeleteFunc(t.pending[p.key], func(q *purchase) bool { return q == p })
	if len(ps) == 0 {
		delete(t.pending, p.key)
	} else {
		t.pending[p.key] = ps
	}
}

// recall takes (marks busy) a remembered purchase for k that no request is
// presenting, oldest first: nil when there is none or when the old one
// provably cannot move money any more, and ErrOutcomeUnknown when it
// expired unproven.
func (t *Transport) recall(ctx context.Context, k purchaseKey) (*purchase, error) {
	t.mu.Lock()
	var p *purchase
	for _, q := range t.pending[k] {
		if !q.busy && q.call == nil { // a call's payment is presented by its own retries only
			p, q.busy = q, true
			break
		}
	}
	t.mu.Unlock()
	if p == nil {
		return nil, nil
	}
	return t.usable(ctx, p)
}

// usable returns p, taken for a retry, while it can still be presented;
// once it expired, nil when it provably moved no money (it is voided) and
// ErrOutcomeUnknown when nothing proves it.
func (t *Transport) usable(ctx context.Context, p *purchase) (*purchase, error) {
	if time.Now().Before(p.usableUntil()) {
		return p, nil
	}
	t.forget(p) // told once; a later identical request is a new purchase
	if t.provablyUnsettled(ctx, p) {
		t.void(p)
		return nil, nil
	}
	return nil, fmt.Errorf("%w (nonce 0x%s expired before an answer arrived; configure payer.WithChain to check it on chain)",
		ErrOutcomeUnknown, hex.EncodeToString(p.payment.Authorization.Nonce[:]))
}

// answerBody is a 2xx body: a read that fails before the end (a stream cut
// short) makes the purchase's outcome unknown again, so a retry of the
// request presents the same authorization. watch, when set, looks for a
// stream's in-band receipt.
type answerBody struct {
	io.ReadCloser
	t     *Transport
	p     *purchase
	ctx   context.Context
	watch *streamReceipt
}

func (b *answerBody) Read(buf []byte) (int, error) {
	n, err := b.ReadCloser.Read(buf)
	if b.watch != nil {
		b.watch.feed(buf[:n])
		if err == io.EOF {
			b.watch.finish()
		}
	}
	if err != nil && err != io.EOF && b.ctx.Err() == nil {
		b.t.idle(b.p) // cut short: the outcome is unknown again
	}
	return n, err
}

// Close settles a watched stream closed before its receipt.
func (b *answerBody) Close() error {
	if b.watch != nil {
		b.watch.finish()
	}
	return b.ReadCloser.Close()
}

// refusalReason is the x402 reason of a 402: error.code of the body, else
// the PAYMENT-REQUIRED header's error.
func refusalReason(resp *http.Response) string {
	body, _ := peekBody(resp)
	if c := gjson.GetBytes(body, "error.code").String(); c != "" {
		return c
	}
	if raw, err := base64.StdEncoding.DecodeString(resp.Header.Get(x402.HeaderPaymentRequired)); err == nil {
		return gjson.GetBytes(raw, "error").String()
	}
	return ""
}

// neverSpendable reports whether the refusal reason proves p's
// authorization could never be settled by anyone.
func (t *Transport) neverSpendable(p *purchase, reason string) bool {
	if p.upto != nil {
		return uptoNeverSpendable(reason)
	}
	return exactNeverSpendable(reason)
}

// exactNeverSpendable lists the exact refusals that prove it: a bad
// signature, the wrong terms, or a transfer the token would refuse (the
// simulation runs after the nonce check, so a balance refusal also says
// the nonce was unused). "Already used" and "expired" prove nothing: the
// money may have moved.
func exactNeverSpendable(reason string) bool {
	switch reason {
	case x402.ReasonSignature, x402.ReasonValue, x402.ReasonRecipientMismatch, x402.ReasonValidAfter,
		x402.ReasonInvalidNetwork, x402.ReasonInvalidPayload, x402.ReasonInvalidRequirements,
		x402.ReasonInvalidScheme, x402.ReasonUnsupportedScheme, x402.ReasonInvalidVersion,
		x402.ReasonInsufficientFunds, "invalid_exact_evm_insufficient_balance":
		return true
	}
	return false
}

// signOffer signs req, adding the payment-identifier extension when the
// server declared it (schema is its declaration).
func (t *Transport) signOffer(ctx context.Context, req *x402.Requirement, version int, schema string) (*purchase, error) {
	holds, err := t.spend(ctx, req.Network, req.Amount, "an exact authorization")
	if err != nil {
		return nil, err
	}
	p, err := t.signer.Sign(req, version)
	if err != nil {
		release(holds)
		return nil, err
	}
	value, err := x402.EncodePayment(p, req)
	if err != nil {
		release(holds)
		return nil, err
	}
	pu := &purchase{header: x402.HeaderPaymentSignature, value: value, payment: *p, req: req, holds: holds}
	t.provableLater(pu)
	if version == 1 {
		pu.header = x402.HeaderXPayment
		return pu, nil
	}
	if schema != "" {
		if err := pu.identify(schema); err != nil {
			return nil, err
		}
	}
	return pu, nil
}

// identify adds the payment-identifier extension (schema is the server's
// declaration) to a v2 payment.
func (p *purchase) identify(schema string) error {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return err
	}
	p.id = "pay_" + hex.EncodeToString(id[:])
	ext := `{"info":{"id":"` + p.id + `"}}`
	if s := gjson.Get(schema, "schema"); s.Exists() {
		ext, _ = sjson.SetRaw(ext, "schema", s.Raw)
	}
	raw, err := sjson.SetRawBytes(p.payment.Raw, "extensions.payment-identifier", []byte(ext))
	if err != nil {
		return err
	}
	p.payment.Raw = raw
	p.value = base64.StdEncoding.EncodeToString(raw)
	return nil
}

// PaymentID returns the payment-identifier id sent with the payment
// header value v (v2), "" when it carries none.
func PaymentID(v string) string {
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return ""
	}
	return gjson.GetBytes(raw, `extensions.payment-identifier.info.id`).String()
}

// Hooks are per-request callbacks, carried by the request's context (see
// WithHooks), so one Transport can serve callers with their own budgets
// and ledgers.
type Hooks struct {
	// Budget, when set, counts what this request signs, beside the
	// transport's own budget (WithBudget).
	Budget *Budget
	// Authorize is called before an authorization for req is signed; an
	// error refuses to pay (the caller gets the server's 402) and is passed
	// to Refused.
	Authorize func(req *x402.Requirement) error
	// AuthorizeDeposit is called before a batch-settlement deposit is
	// signed: money leaving the wallet for the seller's escrow, locked
	// until a refund or the channel's withdraw delay. An error refuses to
	// pay, as with Authorize.
	AuthorizeDeposit func(d *DepositOffer) error
	// Signed is called once per authorization signed, before it is sent:
	// from then on the amount may be spent.
	Signed func(req *x402.Requirement, p *x402.Payment)
	// Void is called when an authorization Signed reported is proven never
	// spendable (refused as such, or expired unused on chain).
	Void func(req *x402.Requirement, p *x402.Payment)
	// Receipt receives every receipt header of a paid answer.
	Receipt func(*x402.Receipt)
	// Settled is told what every paid (2xx) answer cost.
	Settled func(*Settlement)
	// Refused is told why a 402 was not paid.
	Refused func(error)
}

// DepositOffer is a batch-settlement deposit about to be signed.
type DepositOffer struct {
	Requirement *x402.Requirement // the call's offer (Amount: its ceiling)
	Amount      *big.Int          // what the deposit would move
	// MinDeposit is the seller's extra.minDeposit (nil when it names none):
	// a deposit cut below it would be refused.
	MinDeposit    *big.Int
	WithdrawDelay uint64 // seconds the payer waits to withdraw unilaterally
}

type hooksKey struct{}

// WithHooks returns a context whose requests through a Transport call h.
func WithHooks(ctx context.Context, h *Hooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

func hooksFrom(ctx context.Context) *Hooks {
	h, _ := ctx.Value(hooksKey{}).(*Hooks)
	return h
}
