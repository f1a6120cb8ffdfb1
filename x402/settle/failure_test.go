package settle_test

import (
	"context"
	"errors"
	storeredis "github.com/farebox/farebox/store/redis"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// entryOf is the journal entry Begin would write for pu.
func entryOf(pu settle.Purchase, state settle.State, tx common.Hash) *settle.Entry {
	k := pu.Payment.Key(pu.Requirement.Network)
	now := time.Now()
	e := &settle.Entry{ChainID: k.ChainID, Asset: k.Asset, Payer: k.From, Nonce: k.Nonce,
		Version: pu.Payment.Version, Payment: pu.Payment.Raw, Network: pu.Requirement.Network.CAIP2,
		Amount: pu.Requirement.Amount, PayTo: pu.Requirement.PayTo, BodyHash: pu.BodyHash,
		State: state, Tx: tx, Created: now, Updated: now, Expires: pu.Payment.Authorization.Expires()}
	if state == settle.Broadcast {
		e.Receipt = &x402.Receipt{Success: true, Payer: k.From.Hex(), Transaction: tx.Hex(), Network: e.Network}
	}
	return e
}

// revertedTransfer mines a transaction carrying p's transfer that reverts
// (sent with fixed gas from a throwaway key, past any simulation).
func revertedTransfer(t *testing.T, p *x402.Payment) common.Hash {
	t.Helper()
	ctx := context.Background()
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	if err := chain.FundETH(ctx, from, big.NewInt(params.Ether)); err != nil {
		t.Fatal(err)
	}
	a := &p.Authorization
	var r, s [32]byte
	copy(r[:], p.Signature[:32])
	copy(s[:], p.Signature[32:64])
	data := tok.PackTransferWithAuthorization0(a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, p.Signature[64], r, s)
	price, err := chain.Client.SuggestGasPrice(ctx)
	if err != nil {
		t.Fatal(err)
	}
	asset := chain.Network.Asset
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chain.Network.ChainID),
		&types.LegacyTx{Nonce: 0, GasPrice: new(big.Int).Mul(price, big.NewInt(2)), Gas: 200_000, To: &asset, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if err := chain.Client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	actx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var xe *x402.Error
	if err := settler.Await(actx, tx.Hash(), p); !errors.As(err, &xe) {
		t.Fatalf("the crafted transfer did not revert: %v", err)
	}
	return tx.Hash()
}

// A transfer answered with a receipt whose transaction then reverts (the
// payer emptied its balance) is sent again only if the chain would take it;
// it would not, so the entry fails, the payer is in debt, and nothing moved.
func TestRevertedAfterBroadcastPutsThePayerInDebt(t *testing.T) {
	ctx := context.Background()
	b := newBuyer(t, 0)
	pu := b.purchase(b.pay(t), "served on credit")
	tx := revertedTransfer(t, pu.Payment)
	j := settle.NewMemoryJournal(100)
	if _, err := j.Create(ctx, entryOf(pu, settle.Broadcast, tx)); err != nil {
		t.Fatal(err)
	}
	e, ev := newEngine(t, settle.Config{Journal: j})
	if n, err := e.Resume(ctx); n != 1 || err != nil {
		t.Fatalf("Resume = %d, %v", n, err)
	}
	got := ev.await(t, settle.EventFailed, entryOf(pu, settle.Broadcast, tx).Name())
	if got.Entry.Reason != x402.ReasonInsufficientFunds {
		t.Fatalf("failed with %q, want insufficient_funds", got.Entry.Reason)
	}
	if _, err := e.Begin(ctx, b.purchase(b.pay(t), "next")); !errors.Is(err, settle.ErrPayerInDebt) {
		t.Fatalf("Begin = %v, want ErrPayerInDebt", err)
	}
	if _, err := e.Begin(ctx, pu); !errors.Is(err, settle.ErrPayerInDebt) {
		t.Fatalf("retry of the failed purchase = %v, want ErrPayerInDebt", err)
	}
	owed, _, err := e.Debt(ctx, b.addr)
	if err != nil || owed == nil || owed.Cmp(pu.Requirement.Amount) != 0 {
		t.Fatalf("Debt = %v, %v; want the failed transfer's %s", owed, err, pu.Requirement.Amount)
	}
	forgiven, err := e.Forgive(ctx, b.addr)
	if err != nil || len(forgiven) != 1 || forgiven[0].Amount.Cmp(owed) != 0 || forgiven[0].Reason != x402.ReasonInsufficientFunds {
		t.Fatalf("Forgive = %+v, %v; want the one debt of %s", forgiven, err, owed)
	}
	if again, err := e.Forgive(ctx, b.addr); err != nil || len(again) != 0 {
		t.Fatalf("a second Forgive = %+v, %v; want nothing", again, err)
	}
	if _, err := e.Begin(ctx, pu); !errors.Is(err, settle.ErrNonceUsed) {
		t.Fatalf("retry of the failed purchase after Forgive = %v, want ErrNonceUsed", err)
	}
	if used, err := settler.AuthorizationUsed(ctx, pu.Payment, pu.Requirement); err != nil || used {
		t.Fatalf("authorizationState = %v, %v; want unused", used, err)
	}
	if from, to := b.balances(t); from != 0 || to != 0 {
		t.Fatalf("payer %d, payee %d; want nothing moved", from, to)
	}
	if e.Count(settle.EventFailed) != 1 || e.Count(settle.EventResubmitted) != 1 {
		t.Fatalf("counted %d failed, %d resubmitted; want 1 and 1", e.Count(settle.EventFailed), e.Count(settle.EventResubmitted))
	}
}

// Replicas share a Redis journal: Resume takes only this instance's
// entries; another replica's entries are adopted only once idle for
// StaleAfter and their replica no longer beats (here: it stopped).
func TestReplicasResumeTheirOwnAndAdoptOrphans(t *testing.T) {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
	defer rdb.Close()
	j := storeredis.NewJournal(rdb, "replicas:")
	h := storeredis.NewHolds(rdb, "replicas:")
	b := newBuyer(t, 10*price)
	a, _ := newEngine(t, settle.Config{Journal: j, Holds: h, Instance: "a"})
	pa, err := a.Begin(ctx, b.purchase(b.pay(t), "a"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	clock := func() time.Time { return now }
	other, _ := newEngine(t, settle.Config{Journal: j, Holds: h, Instance: "b", Now: clock, StaleAfter: time.Minute})
	if n, err := other.Resume(ctx); n != 0 || err != nil {
		t.Fatalf("replica b resumed %d of a's live entries (%v)", n, err)
	}
	if n, err := other.Adopt(ctx); n != 0 || err != nil {
		t.Fatalf("replica b adopted %d fresh entries (%v)", n, err)
	}
	now = now.Add(2 * time.Minute)
	if n, err := other.Adopt(ctx); n != 0 || err != nil {
		t.Fatalf("replica b adopted %d entries of a replica still beating (%v)", n, err)
	}
	a.Close() // replica a stops: its beat ends
	if n, err := other.Adopt(ctx); n != 1 || err != nil {
		t.Fatalf("Adopt = %d, %v; want a's entry", n, err)
	}
	if _, err := j.Get(ctx, pa.Payment.Key(chain.Network)); !errors.Is(err, settle.ErrNotFound) {
		t.Fatalf("the orphaned reservation was not released: %v", err)
	}
	acct := settle.Account{ChainID: chain.Network.ChainID.String(), Asset: chain.Network.Asset, Payer: b.addr}
	if held, err := h.Held(ctx, acct); err != nil || held.Sign() != 0 {
		t.Fatalf("held %v, %v after adoption", held, err)
	}
	if p, err := other.Begin(ctx, b.purchase(pa.Payment, "a")); err != nil || p.Replay() {
		t.Fatalf("the client's retry on replica b = %v", err)
	}
}
