package settle_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/settle"
)

// lateSettler is the dev chain's settler whose follower learns that a
// transfer was mined only once late is closed: the chain mined it long
// before (Broadcast returns once it is mined), as a follower polling a
// remote node learns of a block late, made as late as the test needs.
type lateSettler struct {
	*devSettler
	late chan struct{}
}

func newLateSettler(t *testing.T) *lateSettler {
	l := &lateSettler{devSettler: settler, late: make(chan struct{})}
	t.Cleanup(l.catchUp)
	return l
}

// catchUp lets the follower learn what was mined.
func (l *lateSettler) catchUp() {
	select {
	case <-l.late:
	default:
		close(l.late)
	}
}

func (l *lateSettler) Await(ctx context.Context, tx common.Hash, p *x402.Payment) error {
	select {
	case <-l.late:
	case <-ctx.Done():
		return fmt.Errorf("not mined: %w", ctx.Err())
	}
	return l.devSettler.Await(ctx, tx, p)
}

// AwaitFee is Await with the fee (the engine prefers it when the settler
// has it, so it must wait for late too).
func (l *lateSettler) AwaitFee(ctx context.Context, tx common.Hash, p *x402.Payment) (*big.Int, error) {
	select {
	case <-l.late:
	case <-ctx.Done():
		return nil, fmt.Errorf("not mined: %w", ctx.Err())
	}
	return l.devSettler.AwaitFee(ctx, tx, p)
}

// settleMined settles n purchases of b one after the other on e, each one
// mined before the next begins.
func settleMined(t *testing.T, e *settle.Engine, b *buyer, n int) {
	t.Helper()
	for i := range n {
		p, err := e.Begin(context.Background(), b.purchase(b.pay(t), fmt.Sprint("mined ", i)))
		if err != nil {
			t.Fatalf("purchase %d of %d: %v", i+1, n, err)
		}
		if rc, err := p.Settle(context.Background()); err != nil || !rc.Success {
			t.Fatalf("Settle = %+v, %v", rc, err)
		}
	}
}

// A payer funded for 5 calls has 3 mined whose holds the follower has not
// released yet, then signs 20 authorizations and sends them at once,
// spread over two engines when the holds are in Redis: exactly 2 are
// served (the balance shows the 3 mined transfers once), and the chain
// moves exactly 5 prices. A transfer mined before its hold is released
// never lets a payer spend its balance twice.
func TestHostileOverSigningWithMinedHoldsIsServedExactly(t *testing.T) {
	for name, open := range stores(t) {
		if name == "bolt" {
			continue // holds are memory or Redis; the journal does not count
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			b := newBuyer(t, 5*price)
			j, h := open(t)
			late := newLateSettler(t)
			e, _ := newEngine(t, settle.Config{Journal: j, Holds: h, Settler: late, Instance: "a"})
			engines := []*settle.Engine{e}
			if name == "redis" {
				other, _ := newEngine(t, settle.Config{Journal: j, Holds: h, Settler: late, Instance: "b"})
				engines = append(engines, other)
			}
			settleMined(t, e, b, 3)
			var ok []*settle.Purchase
			refused := 0
			for i, en := range engines {
				pus := make([]settle.Purchase, 20/len(engines))
				for k := range pus {
					pus[k] = b.purchase(b.pay(t), fmt.Sprint("race ", i, k))
				}
				got, ref, other := begins(en, pus)
				if len(other) != 0 {
					t.Fatalf("other errors: %v", other)
				}
				ok, refused = append(ok, got...), refused+ref[settle.ErrInsufficientFunds]
			}
			if len(ok) != 2 || refused != 18 {
				t.Fatalf("%d served, %d refused insufficient_funds; want 2 and 18", len(ok), refused)
			}
			var last string
			for _, p := range ok {
				rc, err := p.Settle(ctx)
				if err != nil || !rc.Success {
					t.Fatalf("Settle = %+v, %v", rc, err)
				}
				last = rc.Transaction // mined before Settle returned
			}
			if from, to := b.balancesAfter(t, last); from != 0 || to != 5*price {
				t.Fatalf("payer %d, payee %d; want 0 and %d", from, to, 5*price)
			}
		})
	}
}

// A hold of another scheme (upto, whose nonce is Permit2's) is never left
// out on the token's word: a payer can mark any nonce used on the token
// (spend or cancel an EIP-3009 authorization with it) while its Permit2
// permit stays payable. Here the token shows the nonce used and the payer
// is still refused a call its balance covers only without that hold.
func TestHostileUsedTokenNonceDoesNotFreeAnotherSchemesHold(t *testing.T) {
	ctx := context.Background()
	b := newBuyer(t, 2*price)
	late := newLateSettler(t)
	e, _ := newEngine(t, settle.Config{Settler: late, BalanceMaxAge: -1})
	pay := b.pay(t)
	other := *pay
	other.Raw = bytes.Replace(pay.Raw, []byte(`"scheme":"exact"`), []byte(`"scheme":"upto"`), 1)
	if bytes.Equal(other.Raw, pay.Raw) {
		t.Fatalf("no scheme to replace in %s", pay.Raw)
	}
	p, err := e.Begin(ctx, b.purchase(&other, "another scheme"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(ctx)
	// The nonce is used on the token (here by its own transfer; a cancel
	// or the payer's transfer to itself does the same).
	if rc, err := settler.Settle(ctx, pay, b.req); err != nil || !rc.Success {
		t.Fatalf("Settle = %+v, %v", rc, err)
	}
	if _, err := e.Begin(ctx, b.purchase(b.pay(t), "next")); !errors.Is(err, settle.ErrInsufficientFunds) {
		t.Fatalf("Begin = %v, want ErrInsufficientFunds: the other scheme's hold still counts", err)
	}
}

// BalanceShowing reads the balance and which authorizations it shows used
// in one Multicall3 call, and the same answer without Multicall3 (a chain
// that lacks it): nonces first, then the balance.
func TestBalanceShowingWithAndWithoutMulticall3(t *testing.T) {
	testenv.SkipShort(t, "a second dev chain")
	ctx := context.Background()
	bare, err := devchain.Start(ctx, devchain.Config{ExtraAlloc: types.GenesisAlloc{evm.Multicall3: {Balance: new(big.Int)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	for name, c := range map[string]*devchain.Chain{"multicall3": chain, "no multicall3": bare} {
		t.Run(name, func(t *testing.T) {
			if code, err := c.Client.CodeAt(ctx, evm.Multicall3, nil); err != nil || (len(code) == 0) != (c == bare) {
				t.Fatalf("Multicall3 code %d bytes, %v", len(code), err)
			}
			s, err := evm.NewSettler(ctx, c.Client, c.RelayerKey)
			if err != nil {
				t.Fatal(err)
			}
			b := newBuyer(t, 0)
			b.req.Network = c.Network
			if err := c.Fund(ctx, b.addr, big.NewInt(3*price)); err != nil {
				t.Fatal(err)
			}
			used, unused := b.pay(t), b.pay(t)
			if rc, err := s.Settle(ctx, used, b.req); err != nil || !rc.Success {
				t.Fatalf("Settle = %+v, %v", rc, err)
			}
			// The receipt may come before the latest state has its block.
			for deadline := time.Now().Add(10 * time.Second); ; {
				if bal, err := s.BalanceOf(ctx, b.req, b.addr); err == nil && bal.Int64() == 2*price {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the transfer never showed in the latest balance")
				}
				time.Sleep(10 * time.Millisecond)
			}
			bal, shown, err := s.BalanceShowing(ctx, b.req, b.addr, [][32]byte{unused.Authorization.Nonce, used.Authorization.Nonce})
			if err != nil || bal.Int64() != 2*price || !slices.Equal(shown, []bool{false, true}) {
				t.Fatalf("BalanceShowing = %v, %v, %v; want %d, [false true]", bal, shown, err, 2*price)
			}
		})
	}
	// Without Multicall3 the reads are separate calls: a transfer mined
	// between them must not show in the balance unless its nonce shows as
	// used (else it would be counted twice, once in the balance and once
	// as held).
	t.Run("no multicall3, a block mined between the reads", func(t *testing.T) {
		mb := &mineBetween{Backend: bare.Client}
		s, err := evm.NewSettler(ctx, mb, bare.RelayerKey)
		if err != nil {
			t.Fatal(err)
		}
		b := newBuyer(t, 0)
		b.req.Network = bare.Network
		if err := bare.Fund(ctx, b.addr, big.NewInt(3*price)); err != nil {
			t.Fatal(err)
		}
		used, mid := b.pay(t), b.pay(t)
		if rc, err := s.Settle(ctx, used, b.req); err != nil || !rc.Success {
			t.Fatalf("Settle = %+v, %v", rc, err)
		}
		mb.between = func() {
			if rc, err := s.Settle(ctx, mid, b.req); err != nil || !rc.Success {
				t.Errorf("Settle between the reads = %+v, %v", rc, err)
			}
			for deadline := time.Now().Add(10 * time.Second); ; {
				if bal, err := s.BalanceOf(ctx, b.req, b.addr); err == nil && bal.Int64() == price {
					return
				}
				if time.Now().After(deadline) {
					t.Error("the transfer mined between the reads never showed in the latest balance")
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		bal, shown, err := s.BalanceShowing(ctx, b.req, b.addr, [][32]byte{mid.Authorization.Nonce, used.Authorization.Nonce})
		if !mb.fired.Load() {
			t.Fatal("no block was mined between the reads")
		}
		// One state: before mid (2 prices left, mid unused) or after it (1
		// left, mid used); never 1 left with mid unused.
		ok := (bal.Int64() == 2*price && slices.Equal(shown, []bool{false, true})) ||
			(bal.Int64() == price && slices.Equal(shown, []bool{true, true}))
		if err != nil || !ok {
			t.Fatalf("BalanceShowing = %v, %v, %v; want one chain state", bal, shown, err)
		}
	})
}

// mineBetween is a chain backend that, at the first balanceOf read, runs
// between (which mines a block) before answering: a block landing between
// BalanceShowing's reads of the nonces and of the balance.
type mineBetween struct {
	evm.Backend
	between func()
	fired   atomic.Bool
}

var balanceOfSelector = crypto.Keccak256([]byte("balanceOf(address)"))[:4]

func (m *mineBetween) CallContract(ctx context.Context, call ethereum.CallMsg, block *big.Int) ([]byte, error) {
	if m.between != nil && bytes.HasPrefix(call.Data, balanceOfSelector) && m.fired.CompareAndSwap(false, true) {
		m.between()
	}
	return m.Backend.CallContract(ctx, call, block)
}

// releaseAfterRefusal is holds whose first refusal waits, before it is
// returned, until the follower caught up and released a hold: the real
// follower's confirmation landing between a refused hold and its recount.
type releaseAfterRefusal struct {
	settle.Holds
	late     *lateSettler
	released chan struct{} // closed by the first release
	once     sync.Once
	refused  atomic.Bool
}

func (r *releaseAfterRefusal) Hold(ctx context.Context, a settle.Account, id string, amount, balance *big.Int, expires time.Time, shown ...string) error {
	err := r.Holds.Hold(ctx, a, id, amount, balance, expires, shown...)
	if errors.Is(err, settle.ErrInsufficientFunds) && r.refused.CompareAndSwap(false, true) {
		r.late.catchUp()
		select {
		case <-r.released:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return err
}

func (r *releaseAfterRefusal) Release(ctx context.Context, a settle.Account, id string) error {
	err := r.Holds.Release(ctx, a, id)
	r.once.Do(func() { close(r.released) })
	return err
}

// A payer funded for 2 calls has one mined whose hold the follower has
// not released when the second call reads the balance (so the first hold
// is refused: the transfer counts in the balance and as held), and the
// follower releases it before the recount lists the holds. The second
// call is served: with no hold left to look up, the recount holds against
// a newer balance rather than repeating the refusal. A third is refused.
func TestHoldReleasedBetweenRefusalAndRecountIsServed(t *testing.T) {
	for name, open := range stores(t) {
		if name == "bolt" {
			continue // holds are memory or Redis; the journal does not count
		}
		t.Run(name, func(t *testing.T) {
			b := newBuyer(t, 2*price)
			j, h := open(t)
			late := newLateSettler(t)
			holds := &releaseAfterRefusal{Holds: h, late: late, released: make(chan struct{})}
			e, _ := newEngine(t, settle.Config{Journal: j, Holds: holds, Settler: late, BalanceMaxAge: -1})
			settleMined(t, e, b, 1)
			p, err := e.Begin(context.Background(), b.purchase(b.pay(t), "second"))
			if err != nil {
				t.Fatalf("the second call, funded for: %v", err)
			}
			if !holds.refused.Load() {
				t.Fatal("the first hold of the second call was not refused: the race was not staged")
			}
			if rc, err := p.Settle(context.Background()); err != nil || !rc.Success {
				t.Fatalf("Settle = %+v, %v", rc, err)
			}
			if _, err := e.Begin(context.Background(), b.purchase(b.pay(t), "third")); !errors.Is(err, settle.ErrInsufficientFunds) {
				t.Fatalf("a third call, funded for two: %v, want ErrInsufficientFunds", err)
			}
			if from, to := b.balances(t); from != 0 || to != 2*price {
				t.Fatalf("payer %d, payee %d; want 0 and %d", from, to, 2*price)
			}
		})
	}
}
