package settle_test

import (
	"context"
	"crypto/rand"
	"errors"
	storebolt "github.com/farebox/farebox/store/bolt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// A process dies with purchases at every step; the next one resumes them
// against the real dev chain from the bbolt file, and the chain judges:
//   - settling, its transaction mined      -> confirmed, charged once
//   - settling, its transaction never sent -> sent again, confirmed, charged once
//   - reserved                             -> never on disk (nothing was sent):
//     gone, nothing charged, payable again
//   - broadcast (answered), never sent and
//     expired                              -> failed, the payer in debt
//   - settling, never sent and expired     -> released, no debt
func TestResumeOnChain(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, late := newBuyer(t, 10*price), newBuyer(t, 2*price)
	late.signer.Now = func() time.Time { return time.Now().Add(-time.Hour) } // validBefore long past

	j1, err := storebolt.OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	e1, err := settle.NewEngine(settle.Config{Journal: j1, Settler: settler})
	if err != nil {
		t.Fatal(err)
	}
	begin := func(by *buyer, body string) *settle.Purchase {
		p, err := e1.Begin(ctx, by.purchase(by.pay(t), body))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// leave writes what the first process had journaled when it died.
	leave := func(p *settle.Purchase, state settle.State, tx common.Hash) {
		next := p.Entry()
		next.State, next.Tx = state, tx
		if state == settle.Broadcast {
			next.Receipt = &x402.Receipt{Success: true, Payer: next.Payer.Hex(), Transaction: tx.Hex(), Network: next.Network}
		}
		if err := j1.Update(ctx, next, settle.Reserved); err != nil {
			t.Fatal(err)
		}
	}
	never := func() common.Hash { // a signed transaction that never reached the node
		var h common.Hash
		_, _ = rand.Read(h[:])
		return h
	}

	fromB, toB := b.balances(t)
	mined := begin(b, "mined")
	rc, err := settler.Settle(ctx, mined.Payment, mined.Requirement) // the transfer went out, then the crash
	if err != nil {
		t.Fatal(err)
	}
	leave(mined, settle.Settling, common.HexToHash(rc.Transaction))
	unsent := begin(b, "unsent")
	leave(unsent, settle.Settling, never())
	reserved := begin(b, "reserved")
	answered := begin(late, "answered")
	leave(answered, settle.Broadcast, never())
	expired := begin(late, "expired")
	leave(expired, settle.Settling, never())
	// The first process dies: no Engine.Close; the file is all that remains.
	if err := j1.Close(); err != nil {
		t.Fatal(err)
	}

	j2, err := storebolt.OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	e2, ev := newEngine(t, settle.Config{Journal: j2, AwaitTimeout: 2 * time.Second, RetryInterval: 100 * time.Millisecond})
	n, err := e2.Resume(ctx)
	if err != nil || n != 4 {
		t.Fatalf("Resume = %d, %v; want 4 entries (the reserved one was in memory only)", n, err)
	}
	want := map[string]settle.EventKind{
		mined.Entry().Name(): settle.EventConfirmed, unsent.Entry().Name(): settle.EventConfirmed,
		answered.Entry().Name(): settle.EventFailed,
		expired.Entry().Name():  settle.EventReleased,
	}
	for len(want) > 0 {
		select {
		case e := <-ev:
			if k, ok := want[e.Entry.Name()]; ok && (e.Kind == settle.EventConfirmed || e.Kind == settle.EventReleased || e.Kind == settle.EventFailed) {
				if e.Kind != k {
					t.Fatalf("entry %s ended %s, want %s", e.Entry.Name(), e.Kind, k)
				}
				delete(want, e.Entry.Name())
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("unresolved after Resume: %v", want)
		}
	}

	get := func(p *settle.Purchase) (*settle.Entry, error) { return j2.Get(ctx, p.Payment.Key(chain.Network)) }
	if en, err := get(mined); err != nil || en.State != settle.Confirmed || en.Tx.Hex() != rc.Transaction || !en.Receipt.Success {
		t.Fatalf("mined entry = %+v, %v", en, err)
	}
	en, err := get(unsent)
	if err != nil || en.State != settle.Confirmed || en.Tx == unsent.Entry().Tx || en.Receipt.Transaction != en.Tx.Hex() {
		t.Fatalf("resubmitted entry = %+v, %v", en, err)
	}
	if e2.Count(settle.EventResubmitted) != 1 {
		t.Fatalf("resubmitted %d times, want 1", e2.Count(settle.EventResubmitted))
	}
	for _, p := range []*settle.Purchase{reserved, expired} {
		if _, err := get(p); !errors.Is(err, settle.ErrNotFound) {
			t.Fatalf("released entry still journaled: %v", err)
		}
	}
	if en, err := get(answered); err != nil || en.State != settle.Failed || en.Reason != x402.ReasonValidBefore {
		t.Fatalf("answered entry = %+v, %v", en, err)
	}
	if fromNow, toNow := b.balancesAfter(t, en.Tx.Hex()); fromB-fromNow != 2*price || toNow-toB != 2*price {
		t.Fatalf("payer charged %d, payee paid %d; want exactly 2 prices (%d)", fromB-fromNow, toNow-toB, 2*price)
	}
	if from, to := late.balances(t); from != 2*price || to != 0 {
		t.Fatalf("the late payer has %d, its payee %d; want nothing moved", from, to)
	}

	// The client retries the resubmitted purchase: served again, same receipt.
	again, err := e2.Begin(ctx, b.purchase(unsent.Payment, "unsent"))
	if err != nil || !again.Replay() {
		t.Fatalf("retry after Resume = %v, %v; want a replay", again, err)
	}
	if r, _ := again.Settle(ctx); r.Transaction != en.Tx.Hex() {
		t.Fatalf("replayed receipt names %s, want %s", r.Transaction, en.Tx.Hex())
	}
	// The reserved one may be paid again with the same authorization.
	if p, err := e2.Begin(ctx, b.purchase(reserved.Payment, "reserved")); err != nil || p.Replay() {
		t.Fatalf("retry of the released authorization = %v", err)
	}
	// The payer whose answered transfer failed is refused until forgiven.
	if _, err := e2.Begin(ctx, late.purchase(late.pay(t), "next")); !errors.Is(err, settle.ErrPayerInDebt) {
		t.Fatalf("Begin by a payer in debt = %v, want ErrPayerInDebt", err)
	}
	debt, items, err := e2.Debt(ctx, late.addr)
	if err != nil || debt.Int64() != price || len(items) != 1 || items[0].Entry != answered.Entry().Name() {
		t.Fatalf("Debt = %v %+v %v", debt, items, err)
	}
}

// A process recorded a transaction, replaced it with a fee bump and died;
// the replacement was mined. The next process looks at the authorization
// first: confirmed at once (not after waiting for a transaction that will
// never be mined), naming the transaction that really carried the
// transfer, and the payer charged once.
func TestResumeFindsTheTransactionOfAUsedAuthorization(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := newBuyer(t, 10*price)
	j1, err := storebolt.OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	e1, err := settle.NewEngine(settle.Config{Journal: j1, Settler: settler})
	if err != nil {
		t.Fatal(err)
	}
	fromB, toB := b.balances(t)
	p, err := e1.Begin(ctx, b.purchase(b.pay(t), "bumped"))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := settler.Settle(ctx, p.Payment, p.Requirement) // the replacement, mined
	if err != nil {
		t.Fatal(err)
	}
	var replaced common.Hash // the version the journal recorded, never mined
	_, _ = rand.Read(replaced[:])
	next := p.Entry()
	next.State, next.Tx = settle.Settling, replaced
	if err := j1.Update(ctx, next, settle.Reserved); err != nil {
		t.Fatal(err)
	}
	if err := j1.Close(); err != nil {
		t.Fatal(err)
	}

	j2, err := storebolt.OpenJournal(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	// Waiting for the recorded transaction would outlast the test.
	e2, ev := newEngine(t, settle.Config{Journal: j2, AwaitTimeout: time.Hour})
	if n, err := e2.Resume(ctx); err != nil || n != 1 {
		t.Fatalf("Resume = %d, %v; want 1", n, err)
	}
	ev.await(t, settle.EventConfirmed, next.Name())
	en, err := j2.Get(ctx, p.Payment.Key(chain.Network))
	if err != nil || en.State != settle.Confirmed || en.Tx.Hex() != rc.Transaction || en.Receipt == nil || en.Receipt.Transaction != rc.Transaction {
		t.Fatalf("entry = %+v, %v; want confirmed naming %s", en, err, rc.Transaction)
	}
	if fromNow, toNow := b.balancesAfter(t, rc.Transaction); fromB-fromNow != price || toNow-toB != price {
		t.Fatalf("payer charged %d, payee paid %d; want exactly one price", fromB-fromNow, toNow-toB)
	}
}
