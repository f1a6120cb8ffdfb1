package settle_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/facilitator"
	"github.com/farebox/farebox/x402/settle"
)

// pendingFacilitator is a facilitator whose /settle broadcasts a transfer
// from its own relayer (the test chain's) and answers at once, before the
// block, with success false, errorReason settlement_pending and the
// transaction's hash, as x402's facilitators answer when their wait for the
// receipt gives up. send picks what it broadcasts for the payment farebox
// asked it to settle (the test sets the payment in pay).
type pendingFacilitator struct {
	pay   atomic.Pointer[x402.Payment]
	req   *x402.Requirement
	send  func(ctx context.Context, p *x402.Payment, req *x402.Requirement) (*x402.Receipt, error)
	sent  atomic.Value // the hash it answered with (string)
	calls atomic.Int32
}

func newPendingFacilitator(t *testing.T, req *x402.Requirement) (*pendingFacilitator, *facilitator.Client) {
	t.Helper()
	pf := &pendingFacilitator{req: req}
	pf.send = func(ctx context.Context, p *x402.Payment, req *x402.Requirement) (*x402.Receipt, error) {
		return settler.Settler.Broadcast(ctx, p, req, func(common.Hash) error { return nil })
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/settle" {
			http.NotFound(w, r)
			return
		}
		pf.calls.Add(1)
		p := pf.pay.Load()
		rc, err := pf.send(r.Context(), p, pf.req)
		if err != nil {
			t.Errorf("the facilitator's relayer could not broadcast: %v", err)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		pf.sent.Store(rc.Transaction)
		_ = json.NewEncoder(w).Encode(map[string]any{"success": false, "errorReason": "settlement_pending",
			"transaction": rc.Transaction, "network": pf.req.Network.CAIP2, "payer": p.Authorization.From.Hex()})
	}))
	t.Cleanup(srv.Close)
	c, err := facilitator.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return pf, c
}

// followAwait bounds one wait for the facilitator's transaction: should
// its relayer replace it (a fee bump on a busy machine), the token's
// authorizationState decides soon after.
const followAwait = 10 * time.Second

// reader is the chain reader a facilitator settler gets from
// payments.chain.rpc_url, polling the test chain often.
func reader() *evm.Reader {
	r := evm.NewReader(chain.Client)
	r.PollInterval = 20 * time.Millisecond
	return r
}

// settlePending begins and settles one purchase of b's through the
// facilitator: the client's receipt is pending and names the facilitator's
// transaction.
func settlePending(t *testing.T, e *settle.Engine, pf *pendingFacilitator, b *buyer, body string) *settle.Purchase {
	t.Helper()
	ctx := context.Background()
	pay := b.pay(t)
	pf.pay.Store(pay)
	p, err := e.Begin(ctx, b.purchase(pay, body))
	if err != nil {
		t.Fatal(err)
	}
	p.Running()
	rc, err := p.Settle(ctx)
	if !errors.Is(err, x402.ErrSettlementPending) || rc == nil || rc.Success || rc.ErrorReason != x402.ReasonSettlementPending {
		t.Fatalf("Settle = %+v, %v; want a pending receipt", rc, err)
	}
	if sent, _ := pf.sent.Load().(string); sent == "" || rc.Transaction != sent {
		t.Fatalf("the client's receipt names transaction %q, the facilitator answered %q", rc.Transaction, sent)
	}
	return p
}

// A facilitator's settlement_pending with a transaction hash is followed
// on the chain that payments.chain.rpc_url reads: the entry is confirmed
// once that transaction carried this authorization's transfer, a replay
// reads a successful receipt naming it, and the chain shows the payer
// down and the payee up by exactly the price, once.
func TestPendingFacilitatorSettlementIsFollowedToConfirmed(t *testing.T) {
	ctx := context.Background()
	b := newBuyer(t, 3*price)
	pf, c := newPendingFacilitator(t, b.req)
	j := settle.NewMemoryJournal(100)
	e, ev := newEngine(t, settle.Config{Journal: j, Settler: c, Reader: reader(), AwaitTimeout: followAwait})
	p := settlePending(t, e, pf, b, "pending")
	name := p.Entry().Name()
	ev.await(t, settle.EventConfirmed, name)
	tx, _ := pf.sent.Load().(string)
	en, err := j.Get(ctx, p.Payment.Key(chain.Network))
	if err != nil || en.State != settle.Confirmed || en.Receipt == nil || !en.Receipt.Success || en.Receipt.Transaction != en.Tx.Hex() || en.Tx == (common.Hash{}) {
		t.Fatalf("entry after the follow = %+v, %v", en, err)
	}
	again, err := e.Begin(ctx, b.purchase(p.Payment, "pending"))
	if err != nil || !again.Replay() {
		t.Fatalf("a retry = %v, want a replay", err)
	}
	if rc, err := again.Settle(ctx); err != nil || !rc.Success || rc.Transaction != tx {
		t.Fatalf("the replay's receipt = %+v, %v; want success naming the facilitator's %s", rc, err, tx)
	}
	if from, to := b.balances(t); from != 2*price || to != price {
		t.Fatalf("payer %d, payee %d; want %d and %d", from, to, 2*price, price)
	}
	if debt, _, _ := e.Debt(ctx, b.addr); debt != nil {
		t.Fatalf("a paid payer owes %s", debt)
	}
	if pf.calls.Load() != 1 {
		t.Fatalf("the facilitator was asked to settle %d times, want once", pf.calls.Load())
	}
}

// A pending answer naming a transaction that carried another payment's
// transfer never books this one as paid: the authorization is still
// unused and nobody will send it, so the answered payer owes the price;
// the chain shows this payer's money unmoved.
func TestPendingFacilitatorNamingAnotherTransferIsNotPaid(t *testing.T) {
	ctx := context.Background()
	b, other := newBuyer(t, 3*price), newBuyer(t, price)
	pf, c := newPendingFacilitator(t, b.req)
	otherPay := other.pay(t)
	pf.send = func(ctx context.Context, _ *x402.Payment, _ *x402.Requirement) (*x402.Receipt, error) {
		return settler.Settle(ctx, otherPay, other.req) // mined: the hash is the one that moved the other's money
	}
	j := settle.NewMemoryJournal(100)
	e, ev := newEngine(t, settle.Config{Journal: j, Settler: c, Reader: reader()})
	p := settlePending(t, e, pf, b, "another's hash")
	ev.await(t, settle.EventFailed, p.Entry().Name())
	tx, _ := pf.sent.Load().(string)
	en, err := j.Get(ctx, p.Payment.Key(chain.Network))
	if err != nil || en.State != settle.Failed {
		t.Fatalf("entry = %+v, %v; want failed", en, err)
	}
	if debt, _, _ := e.Debt(ctx, b.addr); debt == nil || debt.Int64() != price {
		t.Fatalf("debt %v, want %d: the payer was answered and did not pay", debt, price)
	}
	if from, to := b.balancesAfter(t, tx); from != 3*price || to != 0 {
		t.Fatalf("payer %d, payee %d; want %d and 0", from, to, 3*price)
	}
	if from, to := other.balancesAfter(t, tx); from != 0 || to != price {
		t.Fatalf("the other payment: payer %d, payee %d; want 0 and %d", from, to, price)
	}
}

// blindReader is a chain reader whose node answers nothing.
type blindReader struct{}

func (blindReader) AwaitTransfer(ctx context.Context, tx common.Hash, _ *x402.Payment, _ *x402.Requirement) error {
	<-ctx.Done()
	return ctx.Err()
}

func (blindReader) AuthorizationUsed(context.Context, *x402.Payment, *x402.Requirement) (bool, error) {
	return false, errors.New("the node does not answer")
}

// A pending settlement still unknown when farebox stops is followed by the
// next process's Resume: confirmed from the facilitator's transaction, the
// chain showing the price moved once.
func TestResumeFollowsAPendingFacilitatorSettlement(t *testing.T) {
	ctx := context.Background()
	b := newBuyer(t, 2*price)
	pf, c := newPendingFacilitator(t, b.req)
	j := settle.NewMemoryJournal(100)
	e1, ev1 := newEngine(t, settle.Config{Journal: j, Settler: c, Reader: blindReader{}, RetryInterval: 10 * time.Millisecond})
	p := settlePending(t, e1, pf, b, "resumed")
	ev1.await(t, settle.EventBroadcast, p.Entry().Name())
	if err := e1.Close(); err != nil {
		t.Fatal(err)
	}
	en, err := j.Get(ctx, p.Payment.Key(chain.Network))
	if err != nil || en.State != settle.Broadcast {
		t.Fatalf("entry left by the first process = %+v, %v; want broadcast", en, err)
	}

	e2, ev2 := newEngine(t, settle.Config{Journal: j, Settler: c, Reader: reader(), AwaitTimeout: followAwait})
	if n, err := e2.Resume(ctx); err != nil || n != 1 {
		t.Fatalf("Resume = %d, %v; want 1", n, err)
	}
	ev2.await(t, settle.EventConfirmed, p.Entry().Name())
	if en, err = j.Get(ctx, p.Payment.Key(chain.Network)); err != nil || en.State != settle.Confirmed || en.Receipt == nil || !en.Receipt.Success {
		t.Fatalf("entry after Resume = %+v, %v", en, err)
	}
	if from, to := b.balances(t); from != price || to != price {
		t.Fatalf("payer %d, payee %d; want %d and %d", from, to, price, price)
	}
	if pf.calls.Load() != 1 {
		t.Fatalf("the facilitator was asked to settle %d times, want once", pf.calls.Load())
	}
}

// A settle request the facilitator took and never answered in time while
// its relayer paid: with a chain reader the authorization's state decides.
// The entry is confirmed, its receipt naming the transaction that moved
// the money (found by its AuthorizationUsed log), and the chain shows the
// price moved once.
func TestUnansweredFacilitatorSettlementIsFoundOnChain(t *testing.T) {
	ctx := context.Background()
	b := newBuyer(t, 2*price)
	var pay atomic.Pointer[x402.Payment]
	mined, done := make(chan string, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc, err := settler.Settle(context.WithoutCancel(r.Context()), pay.Load(), b.req)
		if err != nil {
			t.Errorf("the facilitator's relayer: %v", err)
		}
		mined <- rc.Transaction
		// No answer: farebox gives up waiting; the handler ends with the test.
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // before srv.Close, which waits for the handler
	c, err := facilitator.New(srv.URL, facilitator.WithTimeout(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	j := settle.NewMemoryJournal(100)
	e, ev := newEngine(t, settle.Config{Journal: j, Settler: c, Reader: reader(), RetryInterval: 20 * time.Millisecond})
	p0 := b.pay(t)
	pay.Store(p0)
	p, err := e.Begin(ctx, b.purchase(p0, "unanswered"))
	if err != nil {
		t.Fatal(err)
	}
	p.Running()
	if rc, err := p.Settle(ctx); !errors.Is(err, x402.ErrSettlementPending) || rc.Success {
		t.Fatalf("Settle = %+v, %v; want pending", rc, err)
	}
	ev.await(t, settle.EventConfirmed, p.Entry().Name())
	tx := <-mined
	en, err := j.Get(ctx, p0.Key(chain.Network))
	if err != nil || en.State != settle.Confirmed || en.Receipt == nil || !en.Receipt.Success || en.Receipt.Transaction != tx || en.Tx != common.HexToHash(tx) {
		t.Fatalf("entry = %+v, %v; want confirmed naming %s", en, err, tx)
	}
	if from, to := b.balancesAfter(t, tx); from != price || to != price {
		t.Fatalf("payer %d, payee %d; want %d and %d", from, to, price, price)
	}
}
