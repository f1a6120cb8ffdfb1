package payer_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/farebox/farebox/x402/upto"
)

// refusals collects what a transport refused to pay, and why.
type refusals struct {
	mu  sync.Mutex
	all []error
}

func (r *refusals) option() payer.Option {
	return payer.OnRefusal(func(err error) { r.mu.Lock(); r.all = append(r.all, err); r.mu.Unlock() })
}

func (r *refusals) last(t *testing.T) error {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.all) == 0 {
		t.Fatal("nothing was refused")
	}
	return r.all[len(r.all)-1]
}

// devShop is a hostile shop settling on an in-process dev chain, and the
// payer's USDC there before it pays.
func devShop(t *testing.T, ceiling int64, charge func(int) *big.Int) (*payertest.Shop, string, *devchain.Chain, *big.Int) {
	t.Helper()
	testenv.SkipShort(t, "the in-process dev chain")
	ctx := context.Background()
	chain, err := devchain.Start(ctx, devchain.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })
	relayer, err := evm.NewTransactor(ctx, chain.Client, chain.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	s, srv := payertest.NewShop(t, chain.Network, ceiling, charge)
	s.OnChain(relayer, chain.Client)
	return s, srv.URL, chain, usdcOf(t, chain, chain.Payer)
}

// TestHostileUptoReceiptOfZeroCountsTheSignedMaximum: a seller settles
// each upto permit's full maximum on chain but answers with a receipt of
// amount 0. The budget counts what was signed, so it stops the payer after
// budget/maximum payments (the chain, which the transport reads, shows the
// receipt false, so nothing is freed), and the chain shows no more moved
// than that.
func TestHostileUptoReceiptOfZeroCountsTheSignedMaximum(t *testing.T) {
	s, url, chain, funds := devShop(t, 1000, payertest.Charges(1000))
	s.Schemes, s.LieCharge = []string{upto.Scheme}, true
	reg, _ := x402.NewRegistry(chain.Network)
	budget := payer.NewBudget(big.NewInt(2500))
	var why refusals
	tr := payer.NewTransport(payer.NewSigner(chain.PayerKey), payer.WithNetworks(reg), payer.WithBudget(budget),
		payer.WithSpendCap(big.NewInt(1000)), payer.WithChain(chain.Client), why.option())
	var codes []int
	for i := range 5 {
		codes = append(codes, pay(t, tr, url, fmt.Sprintf(`{"n":%d}`, i)))
	}
	if want := []int{200, 200, 402, 402, 402}; !slices.Equal(codes, want) {
		t.Fatalf("statuses %v, want %v (refusals %v)", codes, want, s.Refused)
	}
	var over *payer.OverBudgetError
	if err := why.last(t); !errors.As(err, &over) || !strings.Contains(err.Error(), "over the budget of 0.0025 USDC") {
		t.Fatalf("refusal %v: want the budget named", err)
	}
	if n := len(s.Seen()); n != 2 {
		t.Fatalf("the seller received %d authorizations, want 2", n)
	}
	if budget.Signed().Int64() != 2000 || budget.Charged().Sign() != 0 {
		t.Fatalf("budget signed %s charged %s, want 2000 and the receipts' 0", budget.Signed(), budget.Charged())
	}
	awaitRelayer(t, chain)
	if lost := new(big.Int).Sub(funds, usdcOf(t, chain, chain.Payer)); lost.Int64() != 2000 {
		t.Fatalf("the payer lost %s on chain, want the 2000 signed (budget 2500)", lost)
	}
}

// TestUptoChargeBelowTheMaximumIsFreedByTheChain: an honest upto seller
// charges 300 of a 1000 maximum. Without a chain the budget keeps each
// signed maximum; with one, a budget running short reads each settlement
// (Permit2 nonce used, the named transaction moving exactly the charge)
// and counts the charge instead, so the same budget pays more calls, and
// never more than it: the chain shows what the budget counts.
func TestUptoChargeBelowTheMaximumIsFreedByTheChain(t *testing.T) {
	s, url, chain, funds := devShop(t, 1000, payertest.Charges(300))
	s.Schemes = []string{upto.Scheme}
	reg, _ := x402.NewRegistry(chain.Network)
	for _, tc := range []struct {
		name  string
		chain []payer.Option
		paid  int
	}{
		{"no chain", nil, 2},
		{"chain", []payer.Option{payer.WithChain(chain.Client)}, 6},
	} {
		budget := payer.NewBudget(big.NewInt(2500))
		tr := payer.NewTransport(payer.NewSigner(chain.PayerKey), append(tc.chain, payer.WithNetworks(reg), payer.WithBudget(budget))...)
		paid := 0
		for i := range 8 {
			if pay(t, tr, url, fmt.Sprintf(`{"%s":%d}`, tc.name, i)) == http.StatusOK {
				paid++
			}
		}
		if paid != tc.paid {
			t.Errorf("%s: %d calls paid, want %d (budget signed %s)", tc.name, paid, tc.paid, budget.Signed())
		}
	}
	awaitRelayer(t, chain)
	lost := new(big.Int).Sub(funds, usdcOf(t, chain, chain.Payer))
	if lost.Int64() != 300*(2+6) {
		t.Errorf("the payer lost %s on chain, want the %d charges of 300", lost, 2+6)
	}
}

// TestHostileNewReceiverAuthorizerEachCallOpensOneChannel: a seller whose
// every 402 names a new receiverAuthorizer would get a new channel (and a
// deposit) per call; the payer keeps to the one it opened and deposits
// once, as the chain shows.
func TestHostileNewReceiverAuthorizerEachCallOpensOneChannel(t *testing.T) {
	s, url, chain, funds := devShop(t, 1000, payertest.Charges(1000))
	s.Schemes, s.NewAuthorizer = []string{channel.Scheme}, true
	reg, _ := x402.NewRegistry(chain.Network)
	var why refusals
	tr := payer.NewTransport(payer.NewSigner(chain.PayerKey), payer.WithNetworks(reg), payer.WithSpendCap(big.NewInt(1000)),
		payer.WithBudget(payer.NewBudget(big.NewInt(1_000_000))), payer.WithPreemptivePayment(false), why.option())
	var codes []int
	for i := range 4 {
		codes = append(codes, pay(t, tr, url, fmt.Sprintf(`{"n":%d}`, i)))
	}
	if want := []int{200, 402, 402, 402}; !slices.Equal(codes, want) {
		t.Fatalf("statuses %v, want %v (refusals %v)", codes, want, s.Refused)
	}
	if seen := s.Seen(); !slices.Equal(seen, []string{"batch-settlement:deposit"}) {
		t.Fatalf("payments %v, want one deposit", seen)
	}
	if err := why.last(t); !strings.Contains(err.Error(), "already has an open channel") {
		t.Fatalf("refusal %v: want the open channel named", err)
	}
	awaitRelayer(t, chain)
	if lost := new(big.Int).Sub(funds, usdcOf(t, chain, chain.Payer)); lost.Int64() != 1000 {
		t.Fatalf("the payer deposited %s on chain, want one deposit of 1000", lost)
	}
}

// TestHostileChannelTermsAreRefusedBeforeSigning: a 30-day withdraw delay
// or a minimum deposit over the max deposit gets nothing signed, and the
// refusal names the limit and the seller's value.
func TestHostileChannelTermsAreRefusedBeforeSigning(t *testing.T) {
	for _, tc := range []struct {
		name  string
		terms func(*channel.Terms)
		want  []string
	}{
		{"30-day withdraw delay", func(c *channel.Terms) { c.WithdrawDelay = 30 * 24 * 3600 },
			[]string{"withdrawDelay of 720h0m0s", "max withdraw delay of 24h0m0s"}},
		{"huge minDeposit", func(c *channel.Terms) { c.MinDeposit = big.NewInt(1_000_000_000_000) },
			[]string{"minDeposit of 1000000 USDC", "max deposit of 0.005 USDC"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(1000))
			s.Schemes = []string{channel.Scheme}
			tc.terms(s.Terms)
			var why refusals
			tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithMaxDeposit(big.NewInt(5000)), why.option())
			if code := pay(t, tr, srv.URL, `{}`); code != http.StatusPaymentRequired {
				t.Fatalf("status %d, want the seller's 402 back", code)
			}
			if n := len(s.Seen()); n != 0 {
				t.Fatalf("the seller received %d payments, want none", n)
			}
			err := why.last(t)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestTokenDecimalsScaleEveryLimit: limits are USDC amounts; a token of
// 18 decimals is paid up to the same value (not refused for its large
// numbers), and one of 2 decimals cannot slip 100 times the cap through.
func TestTokenDecimalsScaleEveryLimit(t *testing.T) {
	for _, tc := range []struct {
		decimals uint8
		ceiling  int64
		want     []int
	}{
		{18, 10_000_000_000_000_000, []int{200, 200, 402}}, // 0.01 a call, budget 0.025
		{2, 100, []int{402}}, // 1.00 a call, cap 0.1
	} {
		t.Run(fmt.Sprintf("%d decimals", tc.decimals), func(t *testing.T) {
			net := x402.NewNetwork("eip155:999", "", big.NewInt(999), payTo, "Token", "1")
			s, srv := payertest.NewShop(t, net, tc.ceiling, payertest.Charges(tc.ceiling))
			s.Schemes = []string{x402.SchemeExact}
			reg, _ := x402.NewRegistry(net)
			budget := payer.NewBudget(big.NewInt(25_000))
			tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithNetworks(reg), payer.WithBudget(budget),
				payer.WithTokenDecimals(net.CAIP2, net.Asset, tc.decimals))
			var codes []int
			for i := range tc.want {
				codes = append(codes, pay(t, tr, srv.URL, fmt.Sprintf(`{"n":%d}`, i)))
			}
			if !slices.Equal(codes, tc.want) {
				t.Fatalf("statuses %v, want %v", codes, tc.want)
			}
		})
	}
}

// TestBudgetIsSharedByConcurrentRequests: many requests at once cannot
// sign past the budget between them.
func TestBudgetIsSharedByConcurrentRequests(t *testing.T) {
	s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(1000))
	s.Schemes = []string{x402.SchemeExact}
	budget := payer.NewBudget(big.NewInt(5500))
	tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithBudget(budget))
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() { pay(t, tr, srv.URL, fmt.Sprintf(`{"n":%d}`, i)) })
	}
	wg.Wait()
	if n := len(s.Seen()); n != 5 || budget.Signed().Int64() != 5000 {
		t.Fatalf("%d payments, %s signed; want 5 and 5000 within the budget of 5500", n, budget.Signed())
	}
}
