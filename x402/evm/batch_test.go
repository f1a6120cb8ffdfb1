package evm_test

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// queued is one Broadcast of a batch built by inBatch.
type queued struct {
	p        *x402.Payment
	req      *x402.Requirement
	onSigned func(common.Hash) error
	rc       *x402.Receipt
	err      error
}

// inBatch makes the settler send every payment in one batch: a first
// transfer holds the only dispatcher in its onSigned hook until all of them
// are queued, then they are taken together. It returns once each Broadcast did.
func inBatch(t *testing.T, ctx context.Context, f *fixture, s *evm.Settler, batch []*queued) {
	t.Helper()
	dispatchers := s.Dispatchers
	s.Dispatchers = 1
	defer func() { s.Dispatchers = dispatchers }()
	entered, release := make(chan struct{}), make(chan struct{})
	blocker, blockerReq := f.pay(1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rc, err := s.Broadcast(ctx, blocker, blockerReq, func(common.Hash) error {
			close(entered)
			<-release
			return nil
		})
		if err != nil || !rc.Success {
			t.Errorf("blocker: %+v %v", rc, err)
		}
	}()
	<-entered
	s.OnQueue(func(n int) {
		if n == len(batch) {
			close(release)
		}
	})
	defer s.OnQueue(nil)
	for _, q := range batch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q.rc, q.err = s.Broadcast(ctx, q.p, q.req, q.onSigned)
		}()
	}
	wg.Wait()
}

func TestBatchRefusesTransfersThatWouldFailAndSendsTheOthersInOneTransaction(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		used, usedReq := f.pay(5)
		if rc, err := f.settler.Settle(ctx, used, usedReq); err != nil || !rc.Success {
			t.Fatalf("settling the authorization used below: %+v %v", rc, err)
		}
		broke, _ := crypto.GenerateKey()
		unfunded, unfundedReq := f.authorize(crypto.PubkeyToAddress(broke.PublicKey), 5, func(d [32]byte) []byte { return sign(d, broke) })
		var batch []*queued
		for range 4 {
			p, req := f.pay(11)
			batch = append(batch, &queued{p: p, req: req})
		}
		bad := []*queued{{p: used, req: usedReq}, {p: unfunded, req: unfundedReq}}
		batch = append(batch[:2], append(bad, batch[2:]...)...)
		// Every hook records the hashes it is told: the journal's view.
		var hmu sync.Mutex
		told := map[*queued][]common.Hash{}
		for _, q := range batch {
			q.onSigned = func(h common.Hash) error {
				hmu.Lock()
				defer hmu.Unlock()
				told[q] = append(told[q], h)
				return nil
			}
		}
		payer := crypto.PubkeyToAddress(f.payer.PublicKey)
		before := f.balance(t, payer)
		inBatch(t, ctx, f, f.settler, batch)

		wantReason := map[*queued]string{bad[0]: x402.ReasonNonceAlreadyUsed, bad[1]: x402.ReasonInsufficientFunds}
		var hash string
		for _, q := range batch {
			if reason, isBad := wantReason[q]; isBad {
				var xe *x402.Error
				if q.rc.Success || q.rc.Transaction != "" || !errors.As(q.err, &xe) || xe.Reason != reason {
					t.Fatalf("bad transfer: %+v %v, want refusal %s before sending", q.rc, q.err, reason)
				}
				// Journaled with the batch's first signing, if at all, then told it left it.
				if h := told[q]; len(h) > 0 && h[len(h)-1] != (common.Hash{}) {
					t.Fatalf("a refused transfer was last told hash %s, want the zero hash", h[len(h)-1].Hex())
				}
				continue
			}
			if q.err != nil || !q.rc.Success {
				t.Fatalf("good transfer: %+v %v", q.rc, q.err)
			}
			if h := told[q]; len(h) == 0 || h[len(h)-1].Hex() != q.rc.Transaction {
				t.Fatalf("a good transfer was told %v, want the hash it was sent in last (%s)", h, q.rc.Transaction)
			}
			if hash != "" && q.rc.Transaction != hash {
				t.Fatalf("good transfers in transactions %s and %s, want one batch", hash, q.rc.Transaction)
			}
			hash = q.rc.Transaction
		}
		for _, q := range batch {
			if _, isBad := wantReason[q]; !isBad {
				if err := f.settler.Await(ctx, common.HexToHash(hash), q.p); err != nil {
					t.Fatalf("await: %v", err)
				}
			}
		}
		r, err := f.backend.TransactionReceipt(ctx, common.HexToHash(hash))
		if err != nil || r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("batch %s: %v %v", hash, r, err)
		}
		if used := countAuthorizationUsed(r); used != 4 {
			t.Fatalf("batch carried %d transfers, want the 4 good ones only", used)
		}
		if got := new(big.Int).Sub(before, f.balance(t, payer)); got.Int64() != 4*11+1 { // +1: the blocker
			t.Fatalf("payer paid %s, want %d", got, 4*11+1)
		}
	})
}

func TestATransferThatTurnsBadInsideABatchDoesNotSinkTheOthers(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		key, err := f.newRelayer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rival, err := evm.NewTransactor(ctx, f.backend, key)
		if err != nil {
			t.Fatal(err)
		}
		var batch []*queued
		for range 3 {
			p, req := f.pay(13)
			batch = append(batch, &queued{p: p, req: req})
		}
		victim, victimReq := f.pay(17)
		var once sync.Once
		// After the batch is simulated, signed and journaled, someone else
		// submits the victim's authorization first: on chain its inner call
		// must fail alone.
		f.settler.OnSimulated(func(n int) error {
			if n != 4 {
				return nil // the blocker's transaction
			}
			var err error
			once.Do(func() {
				asset := f.net.Asset
				_, err = rival.Send(ctx, &asset, directTransfer(victim), nil)
			})
			return err
		})
		defer f.settler.OnSimulated(nil)
		batch = append(batch, &queued{p: victim, req: victimReq})
		payer := crypto.PubkeyToAddress(f.payer.PublicKey)
		before := f.balance(t, payer)
		inBatch(t, ctx, f, f.settler, batch)
		for _, q := range batch {
			if q.err != nil || !q.rc.Success || q.rc.Transaction != batch[0].rc.Transaction {
				t.Fatalf("broadcast: %+v %v", q.rc, q.err)
			}
		}
		hash := common.HexToHash(batch[0].rc.Transaction)
		for _, q := range batch[:3] {
			if err := f.settler.Await(ctx, hash, q.p); err != nil {
				t.Fatalf("await a good transfer: %v", err)
			}
		}
		var xe *x402.Error
		if err := f.settler.Await(ctx, hash, victim); !errors.As(err, &xe) || xe.Reason != x402.ReasonNonceAlreadyUsed {
			t.Fatalf("await the front-run transfer = %v, want %s", err, x402.ReasonNonceAlreadyUsed)
		}
		r, err := f.backend.TransactionReceipt(ctx, hash)
		if err != nil || r.Status != types.ReceiptStatusSuccessful || countAuthorizationUsed(r) != 3 {
			t.Fatalf("batch receipt %+v %v: want success with 3 transfers", r, err)
		}
		// The chain is the judge: 3 x 13 by the batch, 17 once by the rival, 1 for the blocker.
		if got := new(big.Int).Sub(before, f.balance(t, payer)); got.Int64() != 3*13+17+1 {
			t.Fatalf("payer paid %s, want %d", got, 3*13+17+1)
		}
		if got := f.balance(t, victimReq.PayTo); got.Int64() != 17 {
			t.Fatalf("victim's payTo received %s, want 17 exactly once", got)
		}
	})
}

// directTransfer is transferWithAuthorization calldata for a 65-byte signature.
func directTransfer(p *x402.Payment) []byte {
	a := &p.Authorization
	var r, s [32]byte
	copy(r[:], p.Signature[:32])
	copy(s[:], p.Signature[32:64])
	return contracts.NewFareboxUSDv2().PackTransferWithAuthorization0(a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, p.Signature[64], r, s)
}

func countAuthorizationUsed(r *types.Receipt) int {
	topic := crypto.Keccak256Hash([]byte("AuthorizationUsed(address,bytes32)"))
	n := 0
	for _, l := range r.Logs {
		if len(l.Topics) > 0 && l.Topics[0] == topic {
			n++
		}
	}
	return n
}
