package settle_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/settle"
)

// chain is the real in-process dev chain every engine test settles on.
var chain *devchain.Chain

// devSettler adapts today's *evm.Settler (Settle = send + wait mined) to
// the engine's Broadcaster until the chain helper's Broadcast/Await land:
// Broadcast settles and reports the hash afterwards (so its write-ahead is
// only as early as Settle allows), Await follows new heads and reads this
// authorization's AuthorizationUsed event from the receipt.
type devSettler struct {
	*evm.Settler
}

var tok = contracts.NewFareboxUSDv2()

func (d *devSettler) Broadcast(ctx context.Context, p *x402.Payment, req *x402.Requirement, onSigned func(common.Hash) error) (*x402.Receipt, error) {
	rc, err := d.Settle(ctx, p, req)
	if rc != nil && rc.Transaction != "" {
		if herr := onSigned(common.HexToHash(rc.Transaction)); herr != nil {
			return rc, herr
		}
	}
	return rc, err
}

func (d *devSettler) Await(ctx context.Context, tx common.Hash, p *x402.Payment) error {
	heads := make(chan *types.Header, 16)
	sub, err := chain.Client.SubscribeNewHead(ctx, heads)
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	for {
		r, err := chain.Client.TransactionReceipt(ctx, tx)
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return &x402.Error{Reason: x402.ReasonInvalidTxState, Message: "the settlement transaction reverted"}
			}
			for _, l := range r.Logs {
				ev, err := tok.UnpackAuthorizationUsedEvent(l)
				if err == nil && ev.Authorizer == p.Authorization.From && ev.Nonce == p.Authorization.Nonce {
					return nil
				}
			}
			return &x402.Error{Reason: x402.ReasonNonceAlreadyUsed, Message: "the transaction did not use this authorization"}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", evm.ErrNotMined, ctx.Err())
		case err := <-sub.Err():
			return err
		case <-heads:
		}
	}
}

func (d *devSettler) AuthorizationUsed(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error) {
	asset := req.Network.Asset
	out, err := chain.Client.CallContract(ctx, ethereum.CallMsg{To: &asset,
		Data: tok.PackAuthorizationState(p.Authorization.From, p.Authorization.Nonce)}, nil)
	if err != nil {
		return false, err
	}
	return tok.UnpackAuthorizationState(out)
}

func (d *devSettler) BalanceOf(ctx context.Context, req *x402.Requirement, who common.Address) (*big.Int, error) {
	return balanceOf(ctx, who)
}

func balanceOf(ctx context.Context, who common.Address) (*big.Int, error) {
	asset := chain.Network.Asset
	out, err := chain.Client.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: tok.PackBalanceOf(who)}, nil)
	if err != nil {
		return nil, err
	}
	return tok.UnpackBalanceOf(out)
}

var (
	_ settle.Broadcaster = (*devSettler)(nil)
	_ settle.Balances    = (*devSettler)(nil)
)

// testDrift lets the dev chain's timestamps run minutes ahead of the wall
// clock. Each block is stamped a second after its parent, so with the
// default 2 s the chain mines one block a second once ahead, and the
// package's ~90 blocks cost ~80 s of waiting for the clock. The tests'
// authorizations are valid for 600 s (the expired ones ended an hour ago),
// so three minutes ahead changes no verdict of the chain.
const testDrift = 3 * time.Minute

// settler is the one chain settler of the test binary: it owns the
// relayer's transaction nonces.
var settler *devSettler

func TestMain(m *testing.M) {
	if order := os.Getenv(crashEnv); order != "" {
		crashChild(order)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	var err error
	// JSON-RPC over HTTP too, for the child processes of TestSIGKILLInsideSettle.
	if chain, err = devchain.Start(ctx, devchain.Config{RPCAddr: "127.0.0.1:0", MaxDrift: testDrift}); err == nil {
		var s *evm.Settler
		if s, err = evm.NewSettler(ctx, chain.Client, chain.RelayerKey); err == nil {
			s.PollInterval = 20 * time.Millisecond
			settler = &devSettler{Settler: s}
		}
	}
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	chain.Close()
	os.Exit(code)
}

const price = 10_000 // 0.01 USDC

// buyer is a fresh payer funded on chain, with its own payee so balance
// deltas of one test never mix with another's.
type buyer struct {
	key    *ecdsa.PrivateKey
	addr   common.Address
	signer *payer.Signer
	req    *x402.Requirement
}

func newBuyer(t *testing.T, funds int64) *buyer {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	payTo, _ := crypto.GenerateKey()
	b := &buyer{key: key, addr: crypto.PubkeyToAddress(key.PublicKey), signer: payer.NewSigner(key),
		req: &x402.Requirement{Scheme: "exact", Network: chain.Network, Amount: big.NewInt(price),
			PayTo: crypto.PubkeyToAddress(payTo.PublicKey), MaxTimeoutSeconds: 600, Resource: "http://farebox.test/v1/responses"}}
	if funds > 0 {
		if err := chain.Fund(context.Background(), b.addr, big.NewInt(funds)); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// pay signs a fresh authorization for the buyer's requirement; the raw
// header is set as the gateway's decoder would set it.
func (b *buyer) pay(t *testing.T) *x402.Payment {
	t.Helper()
	p, err := b.signer.Sign(b.req, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x402.EncodePayment(p, b.req); err != nil {
		t.Fatal(err)
	}
	return p
}

func (b *buyer) purchase(p *x402.Payment, body string) settle.Purchase {
	return settle.Purchase{Payment: p, Requirement: b.req, BodyHash: sha256.Sum256([]byte(body))}
}

// balances reads (payer, payee) on chain at the latest block.
func (b *buyer) balances(t *testing.T) (int64, int64) {
	t.Helper()
	return b.balancesAt(t, nil)
}

// balancesAfter reads (payer, payee) in the state right after the block
// that mined tx: the dev chain may show a receipt before its latest state
// includes the block, so reads after a settlement name the block.
func (b *buyer) balancesAfter(t *testing.T, tx string) (int64, int64) {
	t.Helper()
	r, err := chain.Client.TransactionReceipt(context.Background(), common.HexToHash(tx))
	if err != nil {
		t.Fatalf("receipt of %s: %v", tx, err)
	}
	return b.balancesAt(t, r.BlockNumber)
}

func (b *buyer) balancesAt(t *testing.T, block *big.Int) (int64, int64) {
	t.Helper()
	ctx := context.Background()
	read := func(who common.Address) int64 {
		asset := chain.Network.Asset
		out, err := chain.Client.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: tok.PackBalanceOf(who)}, block)
		if err != nil {
			t.Fatal(err)
		}
		v, err := tok.UnpackBalanceOf(out)
		if err != nil {
			t.Fatal(err)
		}
		return v.Int64()
	}
	return read(b.addr), read(b.req.PayTo)
}

// events collects an engine's events so tests await them instead of sleeping.
type events chan settle.Event

func (ev events) on(e settle.Event) { ev <- e }

// await returns the next event of kind for the entry named name ("" any).
func (ev events) await(t *testing.T, kind settle.EventKind, name string) settle.Event {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case e := <-ev:
			if e.Kind == kind && (name == "" || (e.Entry != nil && e.Entry.Name() == name)) {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s event for %s", kind, name)
		}
	}
}

// newEngine is an engine on the dev chain with a memory journal unless cfg
// names another.
func newEngine(t *testing.T, cfg settle.Config) (*settle.Engine, events) {
	t.Helper()
	ev := make(events, 4096)
	if cfg.Journal == nil {
		cfg.Journal = settle.NewMemoryJournal(10_000)
	}
	if cfg.Settler == nil {
		cfg.Settler = settler
	}
	if cfg.Networks == nil {
		reg, err := x402.NewRegistry(chain.Network)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Networks = reg
	}
	cfg.OnEvent = ev.on
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	}
	e, err := settle.NewEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, ev
}

func isErr(err, want error) bool {
	if want == nil {
		return err == nil
	}
	return errors.Is(err, want)
}
