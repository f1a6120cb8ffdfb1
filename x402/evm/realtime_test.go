package evm_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402/evm"
)

// pauseMining stops the 2 s anvil's blocks until the returned func resumes
// them (also on cleanup), so what happens between broadcast and mining is
// observable without racing the block timer.
func pauseMining(t *testing.T, f *fixture) (resume func()) {
	t.Helper()
	rpc := f.anvil.Client.Client()
	if err := rpc.CallContext(context.Background(), nil, "evm_setIntervalMining", 0); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume = func() {
		if !resumed {
			resumed = true
			if err := rpc.CallContext(context.Background(), nil, "evm_setIntervalMining", 2); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(resume)
	return resume
}

func TestBroadcastAnswersBeforeTheBlockAndAwaitConfirmsIt(t *testing.T) {
	realTimeChains(t, func(t *testing.T, f *fixture) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		resume := func() {}
		if f.anvil != nil {
			resume = pauseMining(t, f)
		}
		p, req := f.pay(23)
		payer := p.Authorization.From
		before := f.balance(t, payer)
		var journaled common.Hash
		rc, err := f.settler.Broadcast(ctx, p, req, func(h common.Hash) error { journaled = h; return nil })
		if err != nil || !rc.Success || rc.Transaction == "" {
			t.Fatalf("broadcast: %+v %v", rc, err)
		}
		if journaled.Hex() != rc.Transaction {
			t.Fatalf("onSigned saw %s, the receipt names %s", journaled.Hex(), rc.Transaction)
		}
		hash := common.HexToHash(rc.Transaction)
		if f.anvil != nil {
			// No block was mined: the answer did not wait for one.
			if _, err := f.backend.TransactionReceipt(ctx, hash); !errors.Is(err, ethereum.NotFound) {
				t.Fatalf("receipt before any block: %v, want not found", err)
			}
			if got := f.balance(t, payer); got.Cmp(before) != 0 {
				t.Fatalf("payer balance moved before mining: %s -> %s", before, got)
			}
			resume()
		}
		if err := f.settler.Await(ctx, hash, p); err != nil {
			t.Fatalf("await: %v", err)
		}
		if got := new(big.Int).Sub(before, f.balance(t, payer)); got.Int64() != 23 {
			t.Fatalf("payer paid %s, want 23", got)
		}
		if used, err := f.settler.AuthorizationUsed(ctx, p, req); err != nil || !used {
			t.Fatalf("authorization used = %v, %v", used, err)
		}
		if bal, err := f.settler.BalanceOf(ctx, req, req.PayTo); err != nil || bal.Int64() != 23 {
			t.Fatalf("payTo balance = %v, %v", bal, err)
		}
	})
}

func TestAuthorizationValidFromTheCurrentSecondIsAccepted(t *testing.T) {
	realTimeChains(t, func(t *testing.T, f *fixture) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		p, req := f.pay(29)
		now := time.Now().Unix()
		p.Authorization.ValidAfter, p.Authorization.ValidBefore = big.NewInt(now), big.NewInt(now+120)
		f.resign(p, f.payer)
		if err := evm.NewChecker(f.backend, true).Check(ctx, p, req); err != nil {
			t.Fatalf("check of validAfter = now: %v", err)
		}
		before := f.balance(t, p.Authorization.From)
		rc, err := f.settler.Settle(ctx, p, req)
		if err != nil || !rc.Success {
			t.Fatalf("settle: %+v %v", rc, err)
		}
		if got := new(big.Int).Sub(before, f.balance(t, p.Authorization.From)); got.Int64() != 29 {
			t.Fatalf("payer paid %s, want 29", got)
		}
	})
}

func TestStuckTransactionIsReplacedWithAFeeBump(t *testing.T) {
	f := slow
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := ownSettler(t, f)
	s.BumpAfterBlocks = 1
	resume := pauseMining(t, f)
	p, req := f.pay(31)
	rc, err := s.Broadcast(ctx, p, req, nil)
	if err != nil || !rc.Success {
		t.Fatalf("broadcast: %+v %v", rc, err)
	}
	// The next blocks' base fee leaps above the transaction's fee cap: only
	// a replacement with higher fees can be mined.
	rpc := f.anvil.Client.Client()
	head, err := f.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	sent, _, err := f.anvil.Client.TransactionByHash(ctx, common.HexToHash(rc.Transaction))
	if err != nil {
		t.Fatal(err)
	}
	high := new(big.Int).Mul(sent.GasFeeCap(), big.NewInt(4))
	if err := rpc.CallContext(ctx, nil, "anvil_setNextBlockBaseFeePerGas", hexutil.EncodeBig(high)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rpc.CallContext(context.Background(), nil, "anvil_setNextBlockBaseFeePerGas", hexutil.EncodeBig(head.BaseFee))
	})
	resume()
	if err := s.Await(ctx, common.HexToHash(rc.Transaction), p); err != nil {
		t.Fatalf("await the broadcast hash: %v", err)
	}
	if _, err := f.backend.TransactionReceipt(ctx, common.HexToHash(rc.Transaction)); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("the underpriced original was mined (%v): nothing was replaced", err)
	}
	if st := s.Stats(); st.FeeBumps < 1 {
		t.Fatalf("stats %+v: no fee bump", st)
	}
	if got := f.balance(t, req.PayTo); got.Int64() != 31 {
		t.Fatalf("payTo received %s, want 31", got)
	}
}

func TestTransactionsDroppedByTheNodeAreSentAgain(t *testing.T) {
	f := slow
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := ownSettler(t, f)
	resume := pauseMining(t, f)
	p, req := f.pay(37)
	rc, err := s.Broadcast(ctx, p, req, nil)
	if err != nil || !rc.Success {
		t.Fatalf("broadcast: %+v %v", rc, err)
	}
	hash := common.HexToHash(rc.Transaction)
	rpc := f.anvil.Client.Client()
	if err := rpc.CallContext(ctx, nil, "anvil_dropAllTransactions"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.anvil.Client.TransactionByHash(ctx, hash); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("transaction after anvil_dropAllTransactions: %v, want not found", err)
	}
	resume()
	if err := s.Await(ctx, hash, p); err != nil {
		t.Fatalf("await: %v", err)
	}
	if got := f.balance(t, req.PayTo); got.Int64() != 37 {
		t.Fatalf("payTo received %s, want 37", got)
	}
}

// ownSettler is a settler with a relayer of its own, so its nonces and
// stuck transactions do not hold up the fixture's shared settler.
func ownSettler(t *testing.T, f *fixture) *evm.Settler {
	t.Helper()
	return ownSettlerOn(t, f, f.backend)
}

// ownSettlerOn is ownSettler talking to f's chain through b (a counting
// proxy, say).
func ownSettlerOn(t *testing.T, f *fixture, b evm.Backend) *evm.Settler {
	t.Helper()
	ctx := context.Background()
	key, err := f.newRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := evm.NewSettler(ctx, b, key)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := f.backend.BalanceAt(ctx, crypto.PubkeyToAddress(key.PublicKey), nil); err != nil || b.Sign() == 0 {
		t.Fatalf("relayer balance %v %v", b, err)
	}
	return s
}

func TestAwaitFollowsNewHeadsOverAWebSocket(t *testing.T) {
	f := slow
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// anvil serves ws on its HTTP port; over ws the settler subscribes to new heads.
	client, err := evm.Dial(ctx, "ws"+strings.TrimPrefix(f.anvil.RPCURL, "http"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	key, err := f.newRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := evm.NewSettler(ctx, client, key)
	if err != nil {
		t.Fatal(err)
	}
	p, req := f.pay(41)
	rc, err := s.Settle(ctx, p, req)
	if err != nil || !rc.Success {
		t.Fatalf("settle over ws: %+v %v", rc, err)
	}
	r, err := client.TransactionReceipt(ctx, common.HexToHash(rc.Transaction))
	if err != nil || !hasAuthorizationUsed(r, p) {
		t.Fatalf("receipt %v %v", r, err)
	}
	if got := f.balance(t, req.PayTo); got.Int64() != 41 {
		t.Fatalf("payTo received %s, want 41", got)
	}
}
