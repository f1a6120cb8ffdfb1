package gateway_test

import (
	"bytes"
	"context"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"

	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
)

// paidRequest is one request a payer sent with a payment: its header and body.
type paidRequest struct {
	header, body string
}

// paymentRecorder is a payer's base transport that keeps every payment it
// sends, so a test can send one again by hand.
type paymentRecorder struct {
	mu   sync.Mutex
	sent []paidRequest
}

func (r *paymentRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if h := req.Header.Get(x402.HeaderPaymentSignature); h != "" && req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		r.mu.Lock()
		r.sent = append(r.sent, paidRequest{header: h, body: string(b)})
		r.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(req)
}

func (r *paymentRecorder) last(t *testing.T) paidRequest {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.sent) == 0 {
		t.Fatal("the payer sent no payment")
	}
	return r.sent[len(r.sent)-1]
}

// A Redis restarted empty forgets every channel's vouchers, the chain
// knows only what was claimed. Every payment sent before the loss is sent
// again after it (the deposit's voucher, and the voucher accepted but not
// yet claimed), with its body and with another one, to the replica that
// served it and to the other one; then farebox's own payer, which kept its
// record, goes on paying. None is served: the channel is known on chain
// with more in it than was claimed, so vouchers may have been accepted and
// lost, and it is served no more. The chain holds the payer to exactly
// what was claimed before the loss.
func TestFaultRedisRestartedEmptyRefusesReplayedVouchers(t *testing.T) {
	first, second, srv, c := channelReplicas(t)
	key := freshPayer(t, c, 1_000_000, false)
	payerAddr, receiver := addressOf(key), common.HexToAddress(payTo)
	payerBefore, receiverBefore := tokenBalance(t, c, payerAddr), tokenBalance(t, c, receiver)
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	rec := &paymentRecorder{}
	var deposited *big.Int
	var id common.Hash
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(c.Client),
		payer.WithSchemes(channel.Scheme), payer.WithBase(rec), payer.OnSettlement(func(s *payer.Settlement) {
			if s.Deposited != nil {
				deposited = s.Deposited
			}
			id = s.ChannelID
		}))
	call := func(ts *testServer, in string) (int64, error) {
		res, err := ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr})).Responses.New(context.Background(),
			oresponses.ResponseNewParams{Model: metered, Input: userText(in)})
		if err != nil {
			return 0, err
		}
		return min((res.Usage.InputTokens*inputPerMTok+res.Usage.OutputTokens*outputPerMTok+999_999)/1_000_000, ceilingAtomics), nil
	}
	charged, err := call(first, "the deposit, claimed before the loss")
	if err != nil {
		t.Fatal(err)
	}
	withDeposit := rec.last(t)
	status, _, b := do(t, "POST", strings.TrimSuffix(first.URL, "/v1")+"/admin/api/channels/claim", nil, "Authorization", "Bearer "+adminToken)
	if claimed := gjson.GetBytes(b, "claimed").String(); status != http.StatusOK || atomicUSDC(t, claimed) != charged {
		t.Fatalf("claim now: %d %s, want %d claimed", status, b, charged)
	}
	lost, err := call(first, "a voucher accepted, not yet claimed")
	if err != nil {
		t.Fatal(err)
	}
	voucher := rec.last(t)

	nonce, err := c.Client.NonceAt(context.Background(), c.Relayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv.Restart() // without persistence: empty
	served, refused := sendAgain(t, []*testServer{second, first}, withDeposit, voucher)
	served += 2
	for _, ts := range []*testServer{second, first} {
		// The payer's record says more was charged than the server now
		// knows: resynchronised from the chain, it would sign again a
		// cumulative amount it signed before the loss.
		if _, err := call(ts, "the payer goes on after the loss"); err == nil {
			served++
			t.Error("the payer's next call on the lost channel was served")
		} else {
			refused++
		}
	}

	for _, ts := range []*testServer{first, second} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := ts.Shutdown(ctx); err != nil { // each claims what it holds
			t.Error(err)
		}
		cancel()
	}
	if n, err := c.Client.NonceAt(context.Background(), c.Relayer, nil); err != nil || n != nonce {
		t.Errorf("the relayer sent %d transactions after the loss (%v), want none", n-nonce, err)
	}
	cs := channel.NewContracts(c.Network.ChainID, contracts.CanonicalBatchSettlement, contracts.CanonicalERC3009DepositCollector,
		contracts.CanonicalPermit2DepositCollector, contracts.CanonicalPermit2)
	o, err := cs.ReadOnchain(context.Background(), c.Client, id)
	if err != nil {
		t.Fatal(err)
	}
	gained := new(big.Int).Sub(tokenBalance(t, c, receiver), receiverBefore)
	spent := new(big.Int).Sub(payerBefore, tokenBalance(t, c, payerAddr))
	if gained.Int64() != charged || o.TotalClaimed.Int64() != charged || deposited == nil || spent.Cmp(deposited) != 0 ||
		o.Balance.Cmp(deposited) != 0 {
		t.Errorf("on chain: payTo gained %s, the channel claimed %s of %s, the payer moved %s into it (deposited %v); "+
			"want exactly the %d claimed before the loss, the rest the payer's", gained, o.TotalClaimed, o.Balance, spent, deposited, charged)
	}
	t.Logf("channels after an empty Redis: served %d (2 before the loss, none after), refused %d, claimed %d (before the loss), forfeited %d (accepted, unclaimed, lost)",
		served, refused, charged, lost)
}

// channelReplicas are two farebox replicas on one Redis (restartable, no
// persistence) settling on the metered dev chain, with the admin API and
// no claim before the default hour.
func channelReplicas(t *testing.T) (first, second *testServer, srv *redistest.Server, c *devchain.Chain) {
	t.Helper()
	cfg, opts, c := meteredConfig(t, nil)
	srv = redistest.StartServer(t, redistest.Options{})
	cfg.Payments.RedisURL = "redis://" + srv.Addr()
	cfg.Payments.BatchSettlement.ClaimInterval = 0 // the default hour: claims are the operator's and the shutdown's
	cfg.Admin.TokenEnv = "FAREBOX_ADMIN_TOKEN"
	opts.Getenv = func(n string) string { return map[string]string{"FAREBOX_ADMIN_TOKEN": adminToken}[n] }
	return startServer(t, cfg, opts), startServer(t, cfg, opts), srv, c
}

// sendAgain sends each payment again to each server, with its own body and
// with another one, and counts the answers served and refused; a refusal
// must be the quarantined channel's 402.
func sendAgain(t *testing.T, servers []*testServer, sent ...paidRequest) (served, refused int) {
	t.Helper()
	for _, ts := range servers {
		for _, p := range sent {
			for _, body := range []string{p.body, `{"model":"` + metered + `","input":"another body, the same voucher"}`} {
				res, b := post(t, ts.URL+"/responses", body, x402.HeaderPaymentSignature, p.header)
				if res.StatusCode == http.StatusOK {
					served++
					t.Errorf("after the empty restart, a voucher sent before was served again: %s", b)
					continue
				}
				refused++
				if code := gjson.GetBytes(b, "error.code").String(); res.StatusCode != http.StatusPaymentRequired || code != channel.ReasonChannelQuarantined {
					t.Errorf("a voucher sent again after the loss: %d %s, want 402 %s", res.StatusCode, b, channel.ReasonChannelQuarantined)
				}
			}
		}
	}
	return served, refused
}
