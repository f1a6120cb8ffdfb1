// Package resell puts a paid x402 Responses endpoint behind farebox, so an
// operator can resell it: another farebox, or any OpenAI-Responses server
// that charges with x402. The request goes up as the openai upstream sends
// it (the client's own tools only: the client's calls come back to the
// client), and every 402 the endpoint answers is paid from the operator's
// wallet by farebox's retry-safe paying transport, within limits checked
// before anything is signed: the most one call may cost, the most a day
// may cost, and what the wallet holds.
package resell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/openai"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// Config describes one paid upstream.
type Config struct {
	// BaseURL of the paid Responses endpoint, e.g. https://seller.example/v1.
	BaseURL string
	// Model is the upstream's model name.
	Model string
	// Signer pays: the operator's wallet.
	Signer *payer.Signer
	// Networks the wallet pays on (default Base and Base Sepolia).
	Networks *x402.Registry
	// MaxPrice is the most one call may cost upstream, in atomic units.
	MaxPrice *big.Int
	// MaxSpendPerDay caps what the wallet pays upstream per UTC day,
	// channel deposits included; nil is no cap.
	MaxSpendPerDay *big.Int
	// MaxDeposit is the most one batch-settlement deposit may lock in a
	// seller's channel (default DepositPrices x MaxPrice): a seller whose
	// minimum deposit is larger is not paid.
	MaxDeposit *big.Int
	// MaxWithdrawDelay is the longest withdraw delay of a seller's channel
	// the wallet deposits into (default DefaultMaxWithdrawDelay): the time
	// a deposit stays locked should the seller stop answering.
	MaxWithdrawDelay time.Duration
	// Balance, when set, reads the wallet's balance of the token an offer
	// asks for, so a call the wallet cannot pay is refused before anything
	// is signed.
	Balance func(ctx context.Context, req *x402.Requirement, who common.Address) (*big.Int, error)
	// Chain, when set, is read to prove what an upto seller's settlement
	// moved, so that is booked as the cost instead of the signed maximum.
	Chain payer.ChainReader
	// Timeouts for the upstream call.
	Timeouts upstreamhttp.Timeouts
	// Log receives one line per upstream purchase (default: discard).
	Log *slog.Logger
	// Now is the clock for the daily cap (default time.Now).
	Now func() time.Time
}

// Defaults of the deposit limits.
const (
	// DepositPrices is the default MaxDeposit in upstream prices.
	DepositPrices = 10
	// DefaultMaxWithdrawDelay is the default MaxWithdrawDelay.
	DefaultMaxWithdrawDelay = 24 * time.Hour
)

// Model is a paid upstream; it implements responses.Model.
type Model struct {
	cfg   Config
	inner *openai.Model

	mu        sync.Mutex
	day       string   // the UTC day spentToday counts
	today     *big.Int // signed today, in atomic units
	paid      *big.Int // signed and not refused by the seller's receipt, all time
	signed    *big.Int // authorizations signed, all time
	walletLow bool     // the last balance check found the wallet short
	inflight  *big.Int // signed for calls still running: not yet off the balance
	offer     offerCache
	proofs    map[*proof]struct{} // upto charges awaiting the chain's proof
}

var _ responses.Model = (*Model)(nil)

// New builds the paid upstream.
func New(cfg Config) (*Model, error) {
	if cfg.Signer == nil {
		return nil, errors.New("x402 upstream: a payer key is required")
	}
	if cfg.MaxPrice == nil || cfg.MaxPrice.Sign() <= 0 {
		return nil, errors.New("x402 upstream: max_upstream_price is required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxDeposit == nil {
		cfg.MaxDeposit = new(big.Int).Mul(cfg.MaxPrice, big.NewInt(DepositPrices))
	}
	if cfg.MaxWithdrawDelay == 0 {
		cfg.MaxWithdrawDelay = DefaultMaxWithdrawDelay
	}
	m := &Model{cfg: cfg, today: new(big.Int), paid: new(big.Int), signed: new(big.Int), inflight: new(big.Int), proofs: map[*proof]struct{}{}}
	// The price is checked by authorize, which names the cause; the
	// transport's own cap would only say "no acceptable offer".
	opts := []payer.Option{payer.WithSpendCap(nil), payer.WithMaxDeposit(cfg.MaxDeposit), payer.WithMaxWithdrawDelay(cfg.MaxWithdrawDelay)}
	if cfg.Networks != nil {
		opts = append(opts, payer.WithNetworks(cfg.Networks))
	}
	if cfg.Chain != nil {
		opts = append(opts, payer.WithChain(cfg.Chain))
	}
	pay := func(base http.RoundTripper) http.RoundTripper {
		return payer.NewTransport(cfg.Signer, append(opts, payer.WithBase(base))...)
	}
	inner, err := openai.New(openai.Config{BaseURL: cfg.BaseURL, Model: cfg.Model, Timeouts: cfg.Timeouts, Transport: pay})
	if err != nil {
		return nil, fmt.Errorf("x402 upstream: %w", err)
	}
	m.inner = inner
	return m, nil
}

// purchase is what one Respond learned about paying the upstream.
type purchase struct {
	mu      sync.Mutex
	refused error         // why a 402 was not paid
	signed  *x402.Payment // the authorization sent, if any
	req     *x402.Requirement
	cost    *big.Int // what the signed authorization may move: its ceiling and any deposit
	deposit *big.Int // the deposit authorized for the next signature, if any
	receipt *x402.Receipt
	settled *payer.Settlement // what the paying transport read of the answer's receipt
}

// Respond forwards req to the paid endpoint, paying its 402, and maps a
// payment that could not be made to a clear 5xx naming the cause. Once
// paid, a failure before any of the answer went out is retried at the
// same seller with the same payment (see respondPaying), never paid anew.
func (m *Model) Respond(ctx context.Context, req *responses.Request, out responses.Output) error {
	p := &purchase{}
	ctx = payer.WithHooks(ctx, &payer.Hooks{
		Authorize: func(r *x402.Requirement) error {
			m.sawPrice(r.Amount)
			if err := m.authorize(ctx, r, nil); err != nil {
				return err
			}
			// From the signature on, the client's charge is owed.
			return responses.Commit(ctx)
		},
		AuthorizeDeposit: func(d *payer.DepositOffer) error {
			if err := m.authorizeDeposit(ctx, d); err != nil {
				return err
			}
			if err := responses.Commit(ctx); err != nil {
				return err
			}
			p.mu.Lock()
			p.deposit = d.Amount
			p.mu.Unlock()
			return nil
		},
		Signed: func(r *x402.Requirement, pay *x402.Payment) {
			p.mu.Lock()
			p.signed, p.req = pay, r
			p.cost = new(big.Int).Set(r.Amount)
			if p.deposit != nil {
				p.cost.Add(p.cost, p.deposit)
				p.deposit = nil
			}
			cost := p.cost
			p.mu.Unlock()
			m.spend(cost)
		},
		Receipt: func(r *x402.Receipt) { p.mu.Lock(); p.receipt = r; p.mu.Unlock() },
		Settled: func(s *payer.Settlement) { p.mu.Lock(); p.settled = s; p.mu.Unlock() },
		Refused: func(err error) { p.mu.Lock(); p.refused = err; p.mu.Unlock() },
	})
	call := payer.NewCall()
	ctx = payer.WithCall(ctx, call)
	err := m.respondPaying(ctx, call, func(out responses.Output) error {
		return m.inner.RespondFinal(ctx, req, out, func(response []byte) {
			// A stream's receipt comes in-band, in the final response object.
			if raw := gjson.GetBytes(response, "x402"); raw.IsObject() {
				var r x402.Receipt
				if json.Unmarshal([]byte(raw.Raw), &r) == nil {
					p.mu.Lock()
					p.receipt = &r
					p.mu.Unlock()
				}
			}
		})
	}, out)
	p.mu.Lock()
	defer p.mu.Unlock()
	m.record(p, err)
	if err == nil {
		return nil
	}
	if p.refused != nil {
		return refusedError(p.refused)
	}
	var e *responses.Error
	if p.signed != nil && errors.As(err, &e) && e.Code == upstreamhttp.CodePaymentRequired {
		return &responses.Error{Status: http.StatusBadGateway, Type: "server_error", Code: CodePaymentRefused,
			Message: "The upstream model refused this server's payment; nothing was charged.", Cause: err}
	}
	return err
}

// Codes of the errors a reseller's client may see.
const (
	// CodePriceTooHigh: the upstream asks more than max_upstream_price.
	CodePriceTooHigh = "upstream_price_too_high"
	// CodeDailyLimit: paying would pass max_spend_per_day.
	CodeDailyLimit = "upstream_spend_limit_reached"
	// CodeWalletLow: the operator's wallet cannot pay the upstream.
	CodeWalletLow = "reseller_wallet_low"
	// CodeOfferUnacceptable: the upstream offers no payment farebox can make.
	CodeOfferUnacceptable = "upstream_offer_unacceptable"
	// CodeDepositTooHigh: the upstream's channel asks a larger deposit
	// than max_upstream_deposit.
	CodeDepositTooHigh = "upstream_deposit_too_high"
	// CodeWithdrawDelayTooLong: the upstream's channel would lock a
	// deposit longer than max_upstream_withdraw_delay.
	CodeWithdrawDelayTooLong = "upstream_withdraw_delay_too_long"
	// CodePaymentRefused: the upstream refused farebox's payment.
	CodePaymentRefused = "upstream_payment_refused"
)

// limitError is a payment farebox chose not to make.
type limitError struct {
	status int
	code   string
	msg    string
}

func (e *limitError) Error() string { return e.msg }

// authorize runs before an authorization is signed: it is the only place
// the operator's limits are checked, so nothing over them is ever signed.
// deposit, when set, is what a channel deposit signed with it moves.
func (m *Model) authorize(ctx context.Context, r *x402.Requirement, deposit *big.Int) error {
	cost := r.Amount
	if deposit != nil {
		cost = new(big.Int).Add(r.Amount, deposit)
	}
	if r.Amount.Cmp(m.cfg.MaxPrice) > 0 {
		return &limitError{http.StatusBadGateway, CodePriceTooHigh, fmt.Sprintf(
			"The upstream model asks %s USDC per call, more than this server's limit of %s USDC.",
			x402.FormatUSDC(r.Amount), x402.FormatUSDC(m.cfg.MaxPrice))}
	}
	if max := m.cfg.MaxSpendPerDay; max != nil {
		m.mu.Lock()
		m.rollDay()
		over := new(big.Int).Add(m.today, cost).Cmp(max) > 0
		m.mu.Unlock()
		if over {
			return &limitError{http.StatusServiceUnavailable, CodeDailyLimit,
				"This model has reached its spending limit for today; try again tomorrow (UTC)."}
		}
	}
	if m.cfg.Balance != nil {
		bal, err := m.cfg.Balance(ctx, r, m.cfg.Signer.Address())
		if err != nil {
			return &limitError{http.StatusServiceUnavailable, CodeWalletLow, "The reseller cannot read its wallet's balance right now."}
		}
		m.mu.Lock()
		// Calls signed for and still running may not have moved yet.
		low := new(big.Int).Sub(bal, m.inflight).Cmp(cost) < 0
		m.walletLow = low
		m.mu.Unlock()
		if low {
			return &limitError{http.StatusServiceUnavailable, CodeWalletLow,
				"The reseller's wallet cannot pay the upstream model right now; nothing was charged."}
		}
	}
	return nil
}

// authorizeDeposit runs before a channel deposit is signed: a seller's
// channel may not lock more of the wallet than MaxDeposit, nor for longer
// than MaxWithdrawDelay, and the deposit counts against the daily cap and
// the balance like any payment.
func (m *Model) authorizeDeposit(ctx context.Context, d *payer.DepositOffer) error {
	for _, amount := range []*big.Int{d.MinDeposit, d.Amount} {
		if amount != nil && amount.Cmp(m.cfg.MaxDeposit) > 0 {
			return &limitError{http.StatusBadGateway, CodeDepositTooHigh, fmt.Sprintf(
				"The upstream model asks for a deposit of %s USDC, more than this server's limit of %s USDC.",
				x402.FormatUSDC(amount), x402.FormatUSDC(m.cfg.MaxDeposit))}
		}
	}
	if delay := time.Duration(d.WithdrawDelay) * time.Second; delay > m.cfg.MaxWithdrawDelay {
		return &limitError{http.StatusBadGateway, CodeWithdrawDelayTooLong, fmt.Sprintf(
			"The upstream model's channel locks deposits for %s, longer than this server's limit of %s.",
			delay, m.cfg.MaxWithdrawDelay)}
	}
	return m.authorize(ctx, d.Requirement, d.Amount)
}

// spend counts a signed authorization toward today's cap: once signed, the
// amount may move, so it counts whether or not it settles.
func (m *Model) spend(amount *big.Int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rollDay()
	m.today.Add(m.today, amount) // a deposit counts whole: it leaves the wallet
	m.signed.Add(m.signed, amount)
	m.inflight.Add(m.inflight, amount)
}

func (m *Model) rollDay() {
	if d := m.cfg.Now().UTC().Format(time.DateOnly); d != m.day {
		m.day, m.today = d, new(big.Int)
	}
}

// record logs one upstream purchase and counts what it paid.
func (m *Model) record(p *purchase, err error) {
	if p.signed == nil {
		return
	}
	m.mu.Lock()
	m.inflight.Sub(m.inflight, p.cost)
	m.mu.Unlock()
	attrs := []any{"upstream", m.cfg.BaseURL, "amount", p.req.Amount.String(), "network", p.req.Network.CAIP2,
		"payer", p.signed.Authorization.From.Hex(), "nonce", common.Hash(p.signed.Authorization.Nonce).Hex()}
	if r := p.receipt; r != nil {
		attrs = append(attrs, "transaction", r.Transaction, "success", r.Success, "reason", r.ErrorReason)
	}
	if r := p.receipt; r == nil || r.Success {
		// What was signed may move whatever the seller answers: a seller
		// that took the payment and dropped its answer and receipt is
		// paid all the same, so the books count it unless the seller said
		// the payment failed. An upto charge below the maximum is only the
		// seller's word until the chain proves it (see proveLater).
		if !m.proveLater(p) {
			m.mu.Lock()
			m.paid.Add(m.paid, p.req.Amount)
			m.mu.Unlock()
		}
	}
	if err != nil {
		attrs = append(attrs, "err", err)
	}
	m.cfg.Log.Info("upstream purchase", attrs...)
}

// Spent reports what this upstream cost: authorizations and deposits
// signed, and the payments of them not refused by the upstream's receipt
// (the books' cost), each at what was signed, or for an upto seller at
// the charge the chain proved it moved. A purchase whose proof is still
// awaited counts once it is booked (Settle).
func (m *Model) Spent() (signed, settled *big.Int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return new(big.Int).Set(m.signed), new(big.Int).Set(m.paid)
}

// WalletLow reports whether the last balance check found the wallet
// unable to pay the upstream: the operator's alert.
func (m *Model) WalletLow() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.walletLow
}

// refusedError is the client's view of a 402 farebox did not pay.
func refusedError(err error) *responses.Error {
	var le *limitError
	if errors.As(err, &le) {
		return &responses.Error{Status: le.status, Type: "server_error", Code: le.code, Message: le.msg, Cause: err}
	}
	switch {
	case errors.Is(err, payer.ErrDepositTooHigh):
		return &responses.Error{Status: http.StatusBadGateway, Type: "server_error", Code: CodeDepositTooHigh,
			Message: "The upstream model asks for a deposit over this server's limit; nothing was signed.", Cause: err}
	case errors.Is(err, payer.ErrWithdrawDelayTooLong):
		return &responses.Error{Status: http.StatusBadGateway, Type: "server_error", Code: CodeWithdrawDelayTooLong,
			Message: "The upstream model's channel locks deposits for longer than this server's limit; nothing was signed.", Cause: err}
	}
	return &responses.Error{Status: http.StatusBadGateway, Type: "server_error", Code: CodeOfferUnacceptable,
		Message: "The upstream model asks for a payment this server cannot make (network, token or recipient).", Cause: err}
}

// TokenBalance reads who's balance of an ERC-20 token through a chain
// client (balanceOf).
func TokenBalance(ctx context.Context, c ethereum.ContractCaller, token, who common.Address) (*big.Int, error) {
	data := append(common.FromHex("0x70a08231"), common.LeftPadBytes(who.Bytes(), 32)...)
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &token, Data: data}, nil)
	if err != nil {
		return nil, err
	}
	return new(big.Int).SetBytes(out), nil
}
