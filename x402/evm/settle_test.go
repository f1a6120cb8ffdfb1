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
)

func TestSettleMovesExactlyTheValueFromPayerToPayTo(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		p, req := f.pay(1000)
		payer := p.Authorization.From
		before := f.balance(t, payer)
		if err := evm.NewChecker(f.backend, true).Check(ctx, p, req); err != nil {
			t.Fatalf("check before settling: %v", err)
		}
		rc, err := f.settler.Settle(ctx, p, req)
		if err != nil {
			t.Fatalf("settle: %v (%+v)", err, rc)
		}
		if !rc.Success || rc.Payer != payer.Hex() || rc.Network != f.net.CAIP2 || rc.ErrorReason != "" {
			t.Fatalf("receipt = %+v", rc)
		}
		mined, err := f.backend.TransactionReceipt(ctx, common.HexToHash(rc.Transaction))
		if err != nil || mined.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("transaction %s: %v %v", rc.Transaction, mined, err)
		}
		if got, want := new(big.Int).Sub(before, f.balance(t, payer)), big.NewInt(1000); got.Cmp(want) != 0 {
			t.Fatalf("payer paid %s, want %s", got, want)
		}
		if got := f.balance(t, req.PayTo); got.Int64() != 1000 {
			t.Fatalf("payTo received %s, want 1000", got)
		}
	})
}

func TestSimulationDiagnosesWhyATransferWouldFail(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		used, usedReq := f.pay(10)
		if _, err := f.settler.Settle(ctx, used, usedReq); err != nil {
			t.Fatal(err)
		}
		broke, _ := crypto.GenerateKey()
		now := time.Now().Unix()
		cases := []struct {
			name   string
			edit   func(p *x402.Payment, req *x402.Requirement) (*x402.Payment, *x402.Requirement)
			reason string
		}{
			{"used nonce", func(*x402.Payment, *x402.Requirement) (*x402.Payment, *x402.Requirement) { return used, usedReq },
				x402.ReasonNonceAlreadyUsed},
			{"expired", func(p *x402.Payment, req *x402.Requirement) (*x402.Payment, *x402.Requirement) {
				p.Authorization.ValidBefore = big.NewInt(now - 60)
				f.resign(p, f.payer)
				return p, req
			}, x402.ReasonValidBefore},
			{"not yet valid", func(p *x402.Payment, req *x402.Requirement) (*x402.Payment, *x402.Requirement) {
				p.Authorization.ValidAfter = big.NewInt(now + 3600)
				p.Authorization.ValidBefore = big.NewInt(now + 7200)
				f.resign(p, f.payer)
				return p, req
			}, x402.ReasonValidAfter},
			{"insufficient balance", func(p *x402.Payment, req *x402.Requirement) (*x402.Payment, *x402.Requirement) {
				p.Authorization.From = crypto.PubkeyToAddress(broke.PublicKey)
				f.resign(p, broke)
				return p, req
			}, x402.ReasonInsufficientFunds},
			{"value above balance", func(p *x402.Payment, req *x402.Requirement) (*x402.Payment, *x402.Requirement) {
				p.Authorization.Value = new(big.Int).Mul(big.NewInt(1e15), big.NewInt(1e6))
				f.resign(p, f.payer)
				return p, req
			}, x402.ReasonInsufficientFunds},
			{"signed by someone else", func(p *x402.Payment, req *x402.Requirement) (*x402.Payment, *x402.Requirement) {
				f.resign(p, broke)
				return p, req
			}, x402.ReasonSignature},
			{"token domain differs from configuration", func(p *x402.Payment, req *x402.Requirement) (*x402.Payment, *x402.Requirement) {
				n := x402.NewNetwork("", "", f.net.ChainID, f.net.Asset, "USD Coin", f.net.Version)
				p.Signature = sign(n.Digest(&p.Authorization), f.payer)
				return p, &x402.Requirement{Scheme: "exact", Network: n, Amount: req.Amount, PayTo: req.PayTo}
			}, x402.ReasonInvalidRequirements},
			{"no token at the asset address", func(p *x402.Payment, req *x402.Requirement) (*x402.Payment, *x402.Requirement) {
				n := x402.NewNetwork("", "", f.net.ChainID, common.HexToAddress("0x000000000000000000000000000000000000dEaD"), f.net.Name, f.net.Version)
				p.Signature = sign(n.Digest(&p.Authorization), f.payer)
				return p, &x402.Requirement{Scheme: "exact", Network: n, Amount: req.Amount, PayTo: req.PayTo}
			}, x402.ReasonInvalidRequirements},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				p, req := tc.edit(f.pay(10))
				err := evm.NewChecker(f.backend, true).Check(ctx, p, req)
				var xe *x402.Error
				if !errors.As(err, &xe) || xe.Reason != tc.reason {
					t.Fatalf("check = %v, want reason %s", err, tc.reason)
				}
				rc, err := f.settler.Settle(ctx, p, req)
				if err == nil || rc.Success || rc.ErrorReason != tc.reason || rc.Transaction != "" {
					t.Fatalf("settle = %+v, %v; want failure %s", rc, err, tc.reason)
				}
			})
		}
	})
}

func TestContractWalletPaysWithEIP1271(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		p, req := f.authorize(f.wallet, 2500, f.walletSign)
		checker := evm.NewChecker(f.backend, true)
		if err := checker.VerifyContractSignature(ctx, p, req); err != nil {
			t.Fatalf("EIP-1271 verification: %v", err)
		}
		if err := checker.Check(ctx, p, req); err != nil {
			t.Fatalf("check: %v", err)
		}
		forged := *p
		forged.Signature = append([]byte(nil), p.Signature...)
		forged.Signature[10] ^= 0xff
		var xe *x402.Error
		if err := checker.VerifyContractSignature(ctx, &forged, req); !errors.As(err, &xe) || xe.Reason != x402.ReasonSignature {
			t.Fatalf("forged wallet signature: %v, want %s", err, x402.ReasonSignature)
		}
		before := f.balance(t, f.wallet)
		rc, err := f.settler.Settle(ctx, p, req)
		if err != nil || !rc.Success {
			t.Fatalf("settle: %+v %v", rc, err)
		}
		if got := new(big.Int).Sub(before, f.balance(t, f.wallet)); got.Int64() != 2500 {
			t.Fatalf("wallet paid %s, want 2500", got)
		}
		if got := f.balance(t, req.PayTo); got.Int64() != 2500 {
			t.Fatalf("payTo received %s, want 2500", got)
		}
	})
}

func TestLongSignatureFromAnAccountWithoutCodeIsRefused(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		p, req := f.pay(1)
		p.Signature = append(p.Signature, p.Signature...)
		var xe *x402.Error
		if err := evm.NewChecker(f.backend, false).Check(context.Background(), p, req); !errors.As(err, &xe) || xe.Reason != x402.ReasonSignature {
			t.Fatalf("check = %v, want %s", err, x402.ReasonSignature)
		}
	})
}

func TestFiftyConcurrentSettlementsEachMoveTheirValueOnce(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		const n = 50
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		payTo := common.BytesToAddress(randomBytes(20))
		var wg sync.WaitGroup
		payments := make([]*x402.Payment, n)
		hashes := make([]string, n)
		errs := make([]error, n)
		for i := range n {
			p, req := f.pay(7)
			p.Authorization.To, req.PayTo = payTo, payTo
			f.resign(p, f.payer)
			payments[i] = p
			wg.Add(1)
			go func() {
				defer wg.Done()
				rc, err := f.settler.Settle(ctx, p, req)
				if err == nil && !rc.Success {
					err = errors.New(rc.ErrorReason)
				}
				hashes[i], errs[i] = rc.Transaction, err
			}()
		}
		wg.Wait()
		receipts := map[string]*types.Receipt{}
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("settlement %d: %v", i, errs[i])
			}
			// Batched transfers share a transaction: each must find its own
			// AuthorizationUsed log in the receipt it was given.
			r, ok := receipts[hashes[i]]
			if !ok {
				var err error
				if r, err = f.backend.TransactionReceipt(ctx, common.HexToHash(hashes[i])); err != nil || r.Status != types.ReceiptStatusSuccessful {
					t.Fatalf("transaction %s: %v %v", hashes[i], r, err)
				}
				receipts[hashes[i]] = r
			}
			if !hasAuthorizationUsed(r, payments[i]) {
				t.Fatalf("transaction %s has no AuthorizationUsed log for settlement %d", hashes[i], i)
			}
		}
		if got := f.balance(t, payTo); got.Int64() != n*7 {
			t.Fatalf("payTo received %s, want %d", got, n*7)
		}
	})
}

func TestSettleForAnotherChainIsRefused(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		p, req := f.pay(1)
		req.Network = x402.Base
		rc, err := f.settler.Settle(context.Background(), p, req)
		if err == nil || rc.Success || rc.ErrorReason != x402.ReasonInvalidNetwork {
			t.Fatalf("settle = %+v, %v; want %s", rc, err, x402.ReasonInvalidNetwork)
		}
	})
}

func TestRelayerBalanceAndReadiness(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		bal, err := f.settler.RelayerBalance(ctx)
		if err != nil || bal.Sign() <= 0 {
			t.Fatalf("relayer balance = %v, %v", bal, err)
		}
		if err := f.settler.Ready(ctx); err != nil {
			t.Fatalf("funded relayer not ready: %v", err)
		}
		broke, _ := crypto.GenerateKey()
		s, err := evm.NewSettler(ctx, f.backend, broke)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Ready(ctx); err == nil {
			t.Fatal("a relayer without ETH reports ready")
		}
	})
}
