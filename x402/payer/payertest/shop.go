// Package payertest holds test helpers for paying clients: Shop, a
// metered paid endpoint built from farebox's server-side scheme packages
// (x402/channel, x402/upto, x402's exact verifier) that really deposits,
// settles, claims and refunds on a chain; and Ledger, which collects a
// transport's settlements and checks a channel against the chain.
package payertest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/upto"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Shop is a per-token paid endpoint: its 402 offers Schemes (exact, upto
// and batch-settlement by default) at the Ceiling with the gas-sponsoring
// extension, it charges Charge(n) for its n-th paid answer, verifies with
// the real verifiers, keeps batch-settlement channel state like the
// gateway (corrective 402, commit after the answer), and with a chain
// (OnChain) deposits, settles upto charges, claims and refunds for real.
// Fields are read and set holding Mu.
type Shop struct {
	tb        testing.TB
	Net       *x402.Network
	Ceiling   *big.Int
	PayTo     common.Address
	Schemes   []string // offered, in this order
	Terms     *channel.Terms
	Contracts *channel.Contracts
	Upto      *upto.Contracts
	Relayer   common.Address // receiver authorizer and upto facilitator
	Chain     *evm.Transactor
	Caller    ethereum.ContractCaller
	Charge    func(n int) *big.Int

	Mu       sync.Mutex
	n        int
	States   map[[32]byte]*channel.State
	Headers  []string // every payment header received
	Types    []string // scheme (and batch payload type) of every payment, "scheme:502" for FailNext
	DropNext bool     // answer the next paid request without a receipt
	FailNext bool     // answer the next paid request 502, charging nothing
	used     sync.Map // upto's x402.Key: each permit is accepted once
	Refused  []string // refusal codes sent

	// The hostile seller's modes, for the paying side's battery.

	// NewAuthorizer names a new receiverAuthorizer in every 402, so every
	// payment would open a new channel.
	NewAuthorizer bool
	// LieCharge settles an upto payment's real charge on chain but
	// reports a charge of 0 in the receipt.
	LieCharge bool
	// StaleReceipt settles each upto payment's real charge on chain but
	// answers with the first upto receipt it gave (its transaction and
	// charge) again.
	StaleReceipt bool
	stale        *x402.Receipt
	// ReceiptText replaces the receipt's transaction, network and
	// errorReason (escape sequences, forged log lines).
	ReceiptText string
	authorizers int
}

// DefaultPayTo is the shop's receiver unless PayTo is changed.
var DefaultPayTo = common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C")

// NewShop starts a shop on net (a test HTTP server closed with the test).
func NewShop(tb testing.TB, net *x402.Network, ceiling int64, charge func(int) *big.Int) (*Shop, *httptest.Server) {
	d := contracts.Canonical()
	relayer := common.HexToAddress("0x00000000000000000000000000000000000a0701")
	s := &Shop{tb: tb, Net: net, Ceiling: big.NewInt(ceiling), PayTo: DefaultPayTo,
		Schemes:   []string{x402.SchemeExact, upto.Scheme, channel.Scheme},
		Terms:     &channel.Terms{ReceiverAuthorizer: relayer, WithdrawDelay: 900},
		Contracts: channel.NewContracts(net.ChainID, d.BatchSettlement, d.ERC3009DepositCollector, d.Permit2DepositCollector, d.Permit2),
		Upto:      upto.NewContracts(net.ChainID, d.Permit2, d.UptoPermit2Proxy),
		Relayer:   relayer, Charge: charge, States: map[[32]byte]*channel.State{}}
	srv := httptest.NewServer(s)
	tb.Cleanup(srv.Close)
	return s, srv
}

// Charges returns a Charge answering cs in turn, then the last one.
func Charges(cs ...int64) func(int) *big.Int {
	return func(n int) *big.Int { return big.NewInt(cs[min(n, len(cs))-1]) }
}

// OnChain makes the shop send its transactions from relayer (then the
// receiver authorizer and upto facilitator) and read channels with caller.
func (s *Shop) OnChain(relayer *evm.Transactor, caller ethereum.ContractCaller) {
	s.Chain, s.Caller, s.Relayer = relayer, caller, relayer.From()
	s.Terms.ReceiverAuthorizer = relayer.From()
}

// Req is the shop's requirement for scheme, at the ceiling.
func (s *Shop) Req(scheme string) *x402.Requirement {
	return &x402.Requirement{Scheme: scheme, Network: s.Net, Amount: new(big.Int).Set(s.Ceiling), PayTo: s.PayTo,
		MaxTimeoutSeconds: 300, Resource: "http://shop/v1/responses", Description: "metered", MimeType: "application/json"}
}

// required renders the v2 402 header; corrective adds a batch state.
func (s *Shop) required(errCode string, corrective *channel.State) string {
	var accepts []json.RawMessage
	for _, sc := range s.Schemes {
		switch sc {
		case channel.Scheme:
			accepts = append(accepts, channel.Accept(s.Req(sc), s.Terms, corrective))
		case upto.Scheme:
			accepts = append(accepts, upto.Accept(s.Req(sc), s.Relayer))
		default:
			h := x402.PaymentRequiredHeader([]*x402.Requirement{s.Req(sc)}, "")
			raw, _ := base64.StdEncoding.DecodeString(h)
			accepts = append(accepts, json.RawMessage(gjson.GetBytes(raw, "accepts.0").Raw))
		}
	}
	b, _ := json.Marshal(map[string]any{"x402Version": 2, "error": errCode, "accepts": accepts,
		"resource":   map[string]string{"url": "http://shop/v1/responses", "description": "metered", "mimeType": "application/json"},
		"extensions": map[string]json.RawMessage{eip712.GasSponsoringKey: eip712.GasSponsoringDeclaration()}})
	return base64.StdEncoding.EncodeToString(b)
}

func (s *Shop) refuse(w http.ResponseWriter, code, msg string, corrective *channel.State) {
	if code != "payment_required" {
		s.Refused = append(s.Refused, code)
	}
	w.Header().Set(x402.HeaderPaymentRequired, s.required(code, corrective))
	w.WriteHeader(http.StatusPaymentRequired)
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": msg, "type": "invalid_request_error", "code": code}})
	w.Write(b)
}

// ServeHTTP answers a request: a 402 without a payment, else the paid answer.
func (s *Shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqBody, _ := io.ReadAll(r.Body)
	stream := gjson.GetBytes(reqBody, "stream").Bool()
	w.Header().Set("Content-Type", "application/json")
	h := r.Header.Get(x402.HeaderPaymentSignature)
	if h == "" {
		s.Mu.Lock()
		if s.NewAuthorizer {
			s.authorizers++
			s.Terms.ReceiverAuthorizer = common.BigToAddress(big.NewInt(int64(0xa0000 + s.authorizers)))
		}
		s.refuse(w, "payment_required", "pay", nil)
		s.Mu.Unlock()
		return
	}
	raw, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		s.refuse(w, x402.ReasonInvalidPayload, "not base64", nil)
		return
	}
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.Headers = append(s.Headers, h)
	env := gjson.ParseBytes(raw)
	scheme := env.Get("accepted.scheme").String()
	if s.FailNext {
		s.FailNext = false
		s.Types = append(s.Types, scheme+":502")
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	var receipt any
	var code, msg string
	var corrective *channel.State
	switch scheme {
	case channel.Scheme:
		receipt, code, msg, corrective = s.batch(r.Context(), []byte(env.Get("payload").Raw), []byte(env.Get("extensions").Raw))
	case upto.Scheme:
		receipt, code, msg = s.uptoPay(r.Context(), []byte(env.Get("payload").Raw), []byte(env.Get("extensions").Raw))
	default:
		receipt, code, msg = s.exact(r.Context(), h)
	}
	if code != "" {
		s.refuse(w, code, msg, corrective)
		return
	}
	b, _ := json.Marshal(receipt)
	if s.ReceiptText != "" {
		for _, k := range []string{"transaction", "network", "errorReason"} {
			b, _ = sjson.SetBytes(b, k, s.ReceiptText)
		}
	}
	if s.DropNext {
		s.DropNext = false
		b = nil
	}
	if stream { // the receipt comes in-band, on the terminal event's response (docs/wire.md)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"hi\"}\n\n")
		completed := `{"type":"response.completed","response":{"id":"resp_1","status":"completed"}}`
		if b != nil {
			completed = `{"type":"response.completed","response":{"id":"resp_1","status":"completed","x402":` + string(b) + `}}`
		}
		io.WriteString(w, "event: response.completed\ndata: "+completed+"\n\ndata: [DONE]\n\n")
		return
	}
	if b != nil {
		w.Header().Set(x402.HeaderPaymentResponse, base64.StdEncoding.EncodeToString(b))
	}
	io.WriteString(w, `{"ok":true}`)
}

// next is the charge of this answer (the mutex is held).
func (s *Shop) next() *big.Int {
	s.n++
	return s.Charge(s.n)
}

func (s *Shop) send(ctx context.Context, to common.Address, data []byte) (string, error) {
	r, err := s.Chain.Send(ctx, &to, data, nil)
	if err != nil {
		return "", err
	}
	return r.TxHash.Hex(), nil
}

func reason(err error) (string, string) {
	var ce *channel.Error
	if errors.As(err, &ce) {
		return ce.Reason, ce.Message
	}
	var xe *x402.Error
	if errors.As(err, &xe) {
		return xe.Reason, xe.Message
	}
	return x402.ReasonInvalidPayload, err.Error()
}

// batch verifies and applies a batch-settlement payload like the gateway
// will: state per channel, corrective 402, commit after the answer.
func (s *Shop) batch(ctx context.Context, payload, ext []byte) (any, string, string, *channel.State) {
	p, err := channel.DecodePayload(payload)
	if err != nil {
		c, m := reason(err)
		return nil, c, m, nil
	}
	s.Types = append(s.Types, channel.Scheme+":"+p.Type)
	req := s.Req(channel.Scheme)
	id := p.Voucher.ChannelID
	st := s.States[id]
	if st == nil {
		o := channel.Onchain{}
		if s.Caller != nil {
			if o, err = s.Contracts.ReadOnchain(ctx, s.Caller, id); err != nil {
				return nil, channel.ReasonChannelStateReadFailed, err.Error(), nil
			}
		}
		st = channel.NewState(id, p.Config, o, time.Now())
	}
	v := &channel.Verifier{Contracts: s.Contracts}
	if p.Type == channel.TypeRefund {
		amount, err := v.VerifyRefund(p, req, s.Terms, st)
		if err != nil {
			c, m := reason(err)
			return nil, c, m, st
		}
		tx := ""
		if s.Chain != nil {
			if tx, err = s.send(ctx, s.Contracts.Settlement, channel.RefundWithClaim(st, amount)); err != nil {
				return nil, channel.ReasonRefundTransactionFailed, err.Error(), nil
			}
		}
		st = s.mirror(ctx, st, new(big.Int).Neg(amount))
		s.States[id] = st
		return st.RefundReceipt(s.Net.CAIP2, tx, amount), "", "", nil
	}
	if err := v.Verify(p, req, s.Terms, st); err != nil {
		c, m := reason(err)
		if c == channel.ReasonCumulativeAmountMismatch {
			return nil, c, m, st
		}
		return nil, c, m, nil
	}
	tx := ""
	if p.Type == channel.TypeDeposit {
		g, err := eip712.DecodeGasSponsoring(ext)
		if err != nil {
			return nil, channel.ReasonEIP2612InvalidFormat, err.Error(), nil
		}
		var permit []byte
		if g != nil {
			if r := g.Verify(s.Net, s.Contracts.Permit2, p.Config.Payer, p.Deposit.Amount, time.Now()); r != "" {
				return nil, r, "bad EIP-2612 permit", nil
			}
			permit = g.CollectorData()
		}
		if s.Chain != nil {
			data, err := s.Contracts.DepositCalldata(p, permit)
			if err == nil {
				tx, err = s.send(ctx, s.Contracts.Settlement, data)
			}
			if err != nil {
				return nil, channel.ReasonDepositTransactionFailed, err.Error(), nil
			}
		}
		st = s.mirror(ctx, st, p.Deposit.Amount)
	}
	charge := s.next()
	if st, err = st.Commit(&p.Voucher, charge, req.Amount, time.Now()); err != nil {
		c, m := reason(err)
		return nil, c, m, nil
	}
	s.States[id] = st
	if p.Type == channel.TypeDeposit {
		return st.DepositReceipt(s.Net.CAIP2, tx, p.Deposit.Amount, charge), "", "", nil
	}
	return st.VoucherReceipt(s.Net.CAIP2, charge), "", "", nil
}

// mirror reads the channel from chain, or (no chain) moves its balance by delta.
func (s *Shop) mirror(ctx context.Context, st *channel.State, delta *big.Int) *channel.State {
	if s.Caller != nil {
		o, err := s.Contracts.ReadOnchain(ctx, s.Caller, st.ChannelID)
		if err != nil {
			s.tb.Errorf("reading the channel: %v", err)
		}
		return st.Mirror(o, time.Now())
	}
	o := st.Onchain
	o.Balance = new(big.Int).Add(st.Balance, delta)
	return st.Mirror(o, time.Now())
}

// Claim claims and sweeps every channel to the receiver (chain only).
func (s *Shop) Claim(ctx context.Context) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	var states []*channel.State
	for _, st := range s.States {
		states = append(states, st)
	}
	if _, err := s.send(ctx, s.Contracts.Settlement, channel.ClaimAndSettleCalldata(channel.Claims(states), s.PayTo, s.Net.Asset)); err != nil {
		s.tb.Fatalf("claim: %v", err)
	}
	for id, st := range s.States {
		s.States[id] = s.mirror(ctx, st, nil)
	}
}

func (s *Shop) uptoPay(ctx context.Context, payload, ext []byte) (any, string, string) {
	s.Types = append(s.Types, upto.Scheme)
	p, err := upto.DecodePayload(payload, ext)
	if err != nil {
		c, m := reason(err)
		return nil, c, m
	}
	if err := (&upto.Verifier{Contracts: s.Upto, Facilitator: s.Relayer}).Verify(p, s.Req(upto.Scheme)); err != nil {
		c, m := reason(err)
		return nil, c, m
	}
	if _, taken := s.used.LoadOrStore(p.Key(s.Net), true); taken {
		return nil, x402.ReasonNonceAlreadyUsed, "permit already used"
	}
	charge := s.next()
	tx := ""
	if s.Chain != nil && charge.Sign() > 0 {
		data, err := upto.SettleCalldata(p, charge)
		if err == nil {
			tx, err = s.send(ctx, s.Upto.Proxy, data)
		}
		if err != nil {
			return nil, upto.ReasonTransactionFailed, err.Error()
		}
	}
	said := charge
	if s.LieCharge {
		said = new(big.Int)
	}
	r := &x402.Receipt{Success: true, Payer: p.From.Hex(), Transaction: tx, Network: s.Net.CAIP2, Amount: said.String()}
	if s.StaleReceipt {
		if s.stale == nil {
			s.stale = r
		}
		return s.stale, "", ""
	}
	return r, "", ""
}

func (s *Shop) exact(ctx context.Context, h string) (any, string, string) {
	s.Types = append(s.Types, x402.SchemeExact)
	p, err := x402.DecodePayment(h, 2)
	if err == nil {
		_, err = (&x402.Verifier{}).Verify(ctx, p, []*x402.Requirement{s.Req(x402.SchemeExact)})
	}
	if err != nil {
		c, m := reason(err)
		return nil, c, m
	}
	s.next()
	return &x402.Receipt{Success: true, Payer: p.Authorization.From.Hex(), Transaction: "0x01", Network: p.Network}, "", ""
}

// Seen returns the payments' kinds so far.
func (s *Shop) Seen() []string {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return append([]string(nil), s.Types...)
}

// State is the shop's record of the (first) channel, nil before a deposit.
func (s *Shop) State() *channel.State {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	for _, st := range s.States {
		return st
	}
	return nil
}
