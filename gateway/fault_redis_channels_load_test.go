package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/tidwall/gjson"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
)

// voucherBook is what the payers' transports saw answered: each voucher
// (channel and cumulative amount) answered 200, and the charges of those
// answers per channel.
type voucherBook struct {
	mu      sync.Mutex
	served  map[string]int
	charged map[common.Hash]int64
	calls   int
	// reached is closed once at calls were answered 200.
	at      int
	reached chan struct{}
}

func (v *voucherBook) RoundTrip(req *http.Request) (*http.Response, error) {
	h := req.Header.Get(x402.HeaderPaymentSignature)
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || h == "" || res.StatusCode != http.StatusOK {
		return res, err
	}
	raw, _ := base64.StdEncoding.DecodeString(h)
	vj := gjson.GetBytes(raw, "payload.voucher")
	rc, _ := base64.StdEncoding.DecodeString(res.Header.Get(x402.HeaderPaymentResponse))
	charge := gjson.GetBytes(rc, "extra.chargedAmount").Int()
	id := common.HexToHash(vj.Get("channelId").String())
	v.mu.Lock()
	v.served[id.Hex()+":"+vj.Get("maxClaimableAmount").String()]++
	v.charged[id] += charge
	v.calls++
	if v.calls == v.at {
		close(v.reached)
	}
	v.mu.Unlock()
	return res, nil
}

// channelPayer is one payer paying by channel through farebox's transport.
type channelPayer struct {
	key *ecdsa.PrivateKey
	hc  *http.Client
	id  common.Hash // the channel it paid from
}

// pay runs one call on ts and returns its status (0: no answer).
func (p *channelPayer) pay(ts *testServer, input string) int {
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/responses",
		strings.NewReader(`{"model":"`+metered+`","input":"`+input+`"}`))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := p.hc.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

// Payers on payment channels load two replicas sharing one Redis, which
// is restarted empty in the middle of the load; a payer that opens its
// channel only after the loss follows. No voucher is answered 200 twice
// (however the calls interleave with the loss, on either replica); a
// channel opened before the loss is served no more after it; the new one
// is served and claimed exactly. On chain: no channel claimed more than
// was served on it, each payer moved exactly its deposit, and payTo
// gained exactly what was claimed.
func TestFaultRedisRestartedEmptyUnderChannelLoad(t *testing.T) {
	first, second, srv, c := channelReplicas(t)
	replicas := []*testServer{first, second}
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	const payers, calls = 3, 16
	book := &voucherBook{served: map[string]int{}, charged: map[common.Hash]int64{}, at: payers * 2, reached: make(chan struct{})}
	newPayer := func() *channelPayer {
		p := &channelPayer{key: freshPayer(t, c, 1_000_000, false)}
		tr := payer.NewTransport(payer.NewSigner(p.key), payer.WithNetworks(reg), payer.WithChain(c.Client),
			payer.WithSchemes(channel.Scheme), payer.WithBase(book), payer.OnSettlement(func(s *payer.Settlement) { p.id = s.ChannelID }))
		p.hc = &http.Client{Transport: tr}
		return p
	}
	receiver := common.HexToAddress(payTo)
	receiverBefore := tokenBalance(t, c, receiver)
	var all []*channelPayer
	for range payers {
		all = append(all, newPayer())
	}
	statuses, after := map[int]int{}, 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	lost := make(chan struct{})
	go func() {
		defer close(lost)
		<-book.reached
		srv.Restart() // without persistence: empty, mid-load
	}()
	for i, p := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range calls {
				s := p.pay(replicas[(i+k)%2], "load "+strconv.Itoa(i)+"/"+strconv.Itoa(k))
				mu.Lock()
				statuses[s]++
				mu.Unlock()
			}
			<-lost
			for k := range 2 {
				if s := p.pay(replicas[(i+k)%2], "after the loss "+strconv.Itoa(k)); s != http.StatusPaymentRequired {
					t.Errorf("payer %d after the loss: answered %d, want 402 (its channel quarantined)", i, s)
				}
				mu.Lock()
				after++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	<-lost
	late := newPayer()
	for k := range 3 {
		if s := late.pay(replicas[k%2], "a channel opened after the loss "+strconv.Itoa(k)); s != http.StatusOK {
			t.Errorf("the payer who opened its channel after the loss: call %d answered %d", k, s)
		}
	}
	for _, ts := range replicas {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := ts.Shutdown(ctx); err != nil { // each claims what it holds
			t.Error(err)
		}
		cancel()
	}
	judgeChannelLoad(t, c, book, append(all, late), receiver, receiverBefore)
	t.Logf("channels under load, Redis restarted empty mid-load: answers %v, then %d calls after the loss refused 402, a payer after the loss served 3",
		statuses, after)
}

// judgeChannelLoad judges the load on chain: no voucher answered 200
// twice, no channel claimed more than was served on it (the one opened
// after the loss exactly that), each payer's wallet down by exactly its
// channel's balance, payTo up by exactly what was claimed.
func judgeChannelLoad(t *testing.T, c *devchain.Chain, book *voucherBook, payers []*channelPayer, receiver common.Address, before *big.Int) {
	t.Helper()
	for v, n := range book.served {
		if n > 1 {
			t.Errorf("voucher %s was answered 200 %d times", v, n)
		}
	}
	cs := channel.NewContracts(c.Network.ChainID, contracts.CanonicalBatchSettlement, contracts.CanonicalERC3009DepositCollector,
		contracts.CanonicalPermit2DepositCollector, contracts.CanonicalPermit2)
	var claimed, served int64
	for i, p := range payers {
		o, err := cs.ReadOnchain(context.Background(), c.Client, p.id)
		if err != nil {
			t.Fatal(err)
		}
		spent := new(big.Int).Sub(big.NewInt(1_000_000), tokenBalance(t, c, addressOf(p.key)))
		got, want := o.TotalClaimed.Int64(), book.charged[p.id]
		if spent.Cmp(o.Balance) != 0 || got > want || (i == len(payers)-1 && got != want) {
			t.Errorf("payer %d: moved %s into its channel holding %s, claimed %d of the %d served", i, spent, o.Balance, got, want)
		}
		claimed, served = claimed+got, served+want
	}
	if gained := new(big.Int).Sub(tokenBalance(t, c, receiver), before); gained.Int64() != claimed {
		t.Errorf("payTo gained %s, the channels claimed %d", gained, claimed)
	}
	t.Logf("served %d calls (%d atomic charged), claimed %d, forfeited %d (accepted before the loss, unclaimed)",
		book.calls, served, claimed, served-claimed)
}
