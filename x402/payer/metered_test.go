package payer_test

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
)

// meteredShop is a per-token paid endpoint built from the server-side
// packages (channel and upto verifiers, x402's exact verifier): its 402
// offers exact, upto and batch-settlement at the ceiling with the
// gas-sponsoring extension, it charges charge(n) for its n-th answer, and
// with a chain it deposits, settles, claims and refunds for real.
type meteredShop struct {
	t         *testing.T
	net       *x402.Network
	ceiling   *big.Int
	payTo     common.Address
	schemes   []string // offered, in this order
	terms     *channel.Terms
	contracts *channel.Contracts
	upto      *upto.Contracts
	relayer   common.Address // receiver authorizer and upto facilitator
	chain     *evm.Transactor
	caller    ethereum.ContractCaller
	charge    func(n int) *big.Int

	mu       sync.Mutex
	n        int
	states   map[[32]byte]*channel.State
	headers  []string // every payment header received
	types    []string // scheme (and batch payload type) of every payment
	dropNext bool     // answer the next paid request without a receipt
	failNext bool     // answer the next paid request 502, charging nothing
	replay   *x402.MemoryStore
	refused  []string // refusal codes sent
}

func newMeteredShop(t *testing.T, net *x402.Network, ceiling int64, charge func(int) *big.Int) (*meteredShop, *httptest.Server) {
	d := contracts.Canonical()
	relayer := common.HexToAddress("0x00000000000000000000000000000000000a0701")
	s := &meteredShop{t: t, net: net, ceiling: big.NewInt(ceiling), payTo: payTo,
		schemes:   []string{x402.SchemeExact, upto.Scheme, channel.Scheme},
		terms:     &channel.Terms{ReceiverAuthorizer: relayer, WithdrawDelay: 900},
		contracts: channel.NewContracts(net.ChainID, d.BatchSettlement, d.ERC3009DepositCollector, d.Permit2DepositCollector, d.Permit2),
		upto:      upto.NewContracts(net.ChainID, d.Permit2, d.UptoPermit2Proxy),
		relayer:   relayer, charge: charge, states: map[[32]byte]*channel.State{}, replay: x402.NewMemoryStore(100)}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

// onChain makes the shop send its transactions from relayer on a real chain.
func (s *meteredShop) onChain(relayer *evm.Transactor, caller ethereum.ContractCaller) {
	s.chain, s.caller, s.relayer = relayer, caller, relayer.From()
	s.terms.ReceiverAuthorizer = relayer.From()
}

func (s *meteredShop) req(scheme string) *x402.Requirement {
	return &x402.Requirement{Scheme: scheme, Network: s.net, Amount: new(big.Int).Set(s.ceiling), PayTo: s.payTo,
		MaxTimeoutSeconds: 300, Resource: "http://shop/v1/responses", Description: "metered", MimeType: "application/json"}
}

// required renders the v2 402 header; corrective adds a batch state.
func (s *meteredShop) required(errCode string, corrective *channel.State) string {
	var accepts []json.RawMessage
	for _, sc := range s.schemes {
		switch sc {
		case channel.Scheme:
			accepts = append(accepts, channel.Accept(s.req(sc), s.terms, corrective))
		case upto.Scheme:
			accepts = append(accepts, upto.Accept(s.req(sc), s.relayer))
		default:
			h := x402.PaymentRequiredHeader([]*x402.Requirement{s.req(sc)}, "")
			raw, _ := base64.StdEncoding.DecodeString(h)
			accepts = append(accepts, json.RawMessage(gjson.GetBytes(raw, "accepts.0").Raw))
		}
	}
	b, _ := json.Marshal(map[string]any{"x402Version": 2, "error": errCode, "accepts": accepts,
		"resource":   map[string]string{"url": "http://shop/v1/responses", "description": "metered", "mimeType": "application/json"},
		"extensions": map[string]json.RawMessage{eip712.GasSponsoringKey: eip712.GasSponsoringDeclaration()}})
	return base64.StdEncoding.EncodeToString(b)
}

func (s *meteredShop) refuse(w http.ResponseWriter, code, msg string, corrective *channel.State) {
	if code != "payment_required" {
		s.refused = append(s.refused, code)
	}
	w.Header().Set(x402.HeaderPaymentRequired, s.required(code, corrective))
	w.WriteHeader(http.StatusPaymentRequired)
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": msg, "type": "invalid_request_error", "code": code}})
	w.Write(b)
}

func (s *meteredShop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	h := r.Header.Get(x402.HeaderPaymentSignature)
	if h == "" {
		s.refuse(w, "payment_required", "pay", nil)
		return
	}
	raw, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		s.refuse(w, x402.ReasonInvalidPayload, "not base64", nil)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.headers = append(s.headers, h)
	env := gjson.ParseBytes(raw)
	scheme := env.Get("accepted.scheme").String()
	if s.failNext {
		s.failNext = false
		s.types = append(s.types, scheme+":502")
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
	if s.dropNext {
		s.dropNext = false
	} else {
		b, _ := json.Marshal(receipt)
		w.Header().Set(x402.HeaderPaymentResponse, base64.StdEncoding.EncodeToString(b))
	}
	io.WriteString(w, `{"ok":true}`)
}

// next is the charge of this answer (the mutex is held).
func (s *meteredShop) next() *big.Int {
	s.n++
	return s.charge(s.n)
}

func (s *meteredShop) send(ctx context.Context, to common.Address, data []byte) (string, error) {
	r, err := s.chain.Send(ctx, &to, data, nil)
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
func (s *meteredShop) batch(ctx context.Context, payload, ext []byte) (any, string, string, *channel.State) {
	p, err := channel.DecodePayload(payload)
	if err != nil {
		c, m := reason(err)
		return nil, c, m, nil
	}
	s.types = append(s.types, channel.Scheme+":"+p.Type)
	req := s.req(channel.Scheme)
	id := p.Voucher.ChannelID
	st := s.states[id]
	if st == nil {
		o := channel.Onchain{}
		if s.caller != nil {
			if o, err = s.contracts.ReadOnchain(ctx, s.caller, id); err != nil {
				return nil, channel.ReasonChannelStateReadFailed, err.Error(), nil
			}
		}
		st = channel.NewState(id, p.Config, o, time.Now())
	}
	v := &channel.Verifier{Contracts: s.contracts}
	if p.Type == channel.TypeRefund {
		amount, err := v.VerifyRefund(p, req, s.terms, st)
		if err != nil {
			c, m := reason(err)
			return nil, c, m, st
		}
		tx := ""
		if s.chain != nil {
			if tx, err = s.send(ctx, s.contracts.Settlement, channel.RefundWithClaim(st, amount)); err != nil {
				return nil, channel.ReasonRefundTransactionFailed, err.Error(), nil
			}
		}
		st = s.mirror(ctx, st, new(big.Int).Neg(amount))
		s.states[id] = st
		return st.RefundReceipt(s.net.CAIP2, tx, amount), "", "", nil
	}
	if err := v.Verify(p, req, s.terms, st); err != nil {
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
			if r := g.Verify(s.net, s.contracts.Permit2, p.Config.Payer, p.Deposit.Amount, time.Now()); r != "" {
				return nil, r, "bad EIP-2612 permit", nil
			}
			permit = g.CollectorData()
		}
		if s.chain != nil {
			data, err := s.contracts.DepositCalldata(p, permit)
			if err == nil {
				tx, err = s.send(ctx, s.contracts.Settlement, data)
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
	s.states[id] = st
	if p.Type == channel.TypeDeposit {
		return st.DepositReceipt(s.net.CAIP2, tx, p.Deposit.Amount, charge), "", "", nil
	}
	return st.VoucherReceipt(s.net.CAIP2, charge), "", "", nil
}

// mirror reads the channel from chain, or (no chain) moves its balance by delta.
func (s *meteredShop) mirror(ctx context.Context, st *channel.State, delta *big.Int) *channel.State {
	if s.caller != nil {
		o, err := s.contracts.ReadOnchain(ctx, s.caller, st.ChannelID)
		if err != nil {
			s.t.Errorf("reading the channel: %v", err)
		}
		return st.Mirror(o, time.Now())
	}
	o := st.Onchain
	o.Balance = new(big.Int).Add(st.Balance, delta)
	return st.Mirror(o, time.Now())
}

// claim claims and sweeps every channel to the receiver (chain only).
func (s *meteredShop) claim(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var states []*channel.State
	for _, st := range s.states {
		states = append(states, st)
	}
	if _, err := s.send(ctx, s.contracts.Settlement, channel.ClaimAndSettleCalldata(channel.Claims(states), s.payTo, s.net.Asset)); err != nil {
		s.t.Fatalf("claim: %v", err)
	}
	for id, st := range s.states {
		s.states[id] = s.mirror(ctx, st, nil)
	}
}

func (s *meteredShop) uptoPay(ctx context.Context, payload, ext []byte) (any, string, string) {
	s.types = append(s.types, upto.Scheme)
	p, err := upto.DecodePayload(payload, ext)
	if err != nil {
		c, m := reason(err)
		return nil, c, m
	}
	if err := (&upto.Verifier{Contracts: s.upto, Facilitator: s.relayer}).Verify(p, s.req(upto.Scheme)); err != nil {
		c, m := reason(err)
		return nil, c, m
	}
	if err := s.replay.Reserve(ctx, p.Key(s.net), time.Unix(p.Permit.Deadline.Int64(), 0)); err != nil {
		return nil, x402.ReasonNonceAlreadyUsed, err.Error()
	}
	charge := s.next()
	tx := ""
	if s.chain != nil && charge.Sign() > 0 {
		data, err := upto.SettleCalldata(p, charge)
		if err == nil {
			tx, err = s.send(ctx, s.upto.Proxy, data)
		}
		if err != nil {
			return nil, upto.ReasonTransactionFailed, err.Error()
		}
	}
	return &upto.Receipt{Success: true, Payer: p.From.Hex(), Transaction: tx, Network: s.net.CAIP2, Amount: charge.String()}, "", ""
}

func (s *meteredShop) exact(ctx context.Context, h string) (any, string, string) {
	s.types = append(s.types, x402.SchemeExact)
	p, err := x402.DecodePayment(h, 2)
	if err == nil {
		_, err = (&x402.Verifier{}).Verify(ctx, p, []*x402.Requirement{s.req(x402.SchemeExact)})
	}
	if err != nil {
		c, m := reason(err)
		return nil, c, m
	}
	s.next()
	return &x402.Receipt{Success: true, Payer: p.Authorization.From.Hex(), Transaction: "0x01", Network: p.Network}, "", ""
}

// seen returns the payments' kinds so far.
func (s *meteredShop) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.types...)
}

func (s *meteredShop) state() *channel.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.states {
		return st
	}
	return nil
}
