package evm

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/farebox/farebox/x402"
)

// deep reports whether receipt r, read at head n, has Confirmations blocks
// on top of its own.
func (s *Settler) deep(r *types.Receipt, n uint64) bool { return deepAt(r, n, s.Confirmations) }

// deepAt reports whether receipt r, read at head n, has depth blocks on
// top of its own.
func deepAt(r *types.Receipt, n, depth uint64) bool {
	return depth == 0 || r.BlockNumber == nil || n >= r.BlockNumber.Uint64()+depth
}

// belowHead is the block depth below head that verdicts read: nil (the
// latest) at depth 0, block 0 while the chain is shorter than depth.
func belowHead(head *types.Header, depth uint64) *big.Int {
	n := head.Number.Uint64()
	switch {
	case depth == 0:
		return nil
	case n < depth:
		return big.NewInt(0)
	}
	return new(big.Int).SetUint64(n - depth)
}

// authorizationStateAt reads the token's authorizationState(from, nonce)
// of p's authorization at block at (nil: the latest).
func authorizationStateAt(ctx context.Context, b Backend, p *x402.Payment, req *x402.Requirement, at *big.Int) (bool, error) {
	asset := req.Network.Asset
	out, err := b.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: tokenCall("authorizationState", p.Authorization.From, p.Authorization.Nonce)}, at)
	var used bool
	if err == nil {
		used, err = tokenResult[bool]("authorizationState", out)
	}
	if err != nil {
		return false, fmt.Errorf("evm: reading authorizationState on %s: %w", asset, err)
	}
	return used, nil
}

// txLookup is the part of a chain client that finds a transaction by hash,
// mined or in the pool (an *ethclient.Client has it).
type txLookup interface {
	TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error)
}

// pending reports whether rec is an own transaction whose nonce the chain
// has not mined at the head (read with error nerr, giving mined): it is
// sent again rather than looked for. A record that was seen mined is
// always looked for, so that a receipt gone in a reorganisation is noticed.
func (s *Settler) pending(rec *sentTx, nerr error, mined uint64) bool {
	return rec.own && nerr == nil && rec.nonce >= mined && s.shallowOf(rec) == nil
}

func (s *Settler) shallowOf(rec *sentTx) *types.Receipt {
	s.flight.mu.Lock()
	defer s.flight.mu.Unlock()
	return rec.shallow
}

func (s *Settler) setShallow(rec *sentTx, r *types.Receipt) {
	s.flight.mu.Lock()
	defer s.flight.mu.Unlock()
	rec.shallow = r
}

// reorged handles a record whose receipt, seen before it was deep enough,
// is gone at head n: a reorganisation dropped its block. An own
// transaction is sent again exactly as it was signed (same relayer nonce,
// so it can pay once only), and followed as pending from now on; a
// foreign one is awaited again.
func (s *Settler) reorged(ctx context.Context, rec *sentTx, n uint64) {
	s.flight.mu.Lock()
	gone := rec.shallow
	rec.shallow = nil
	var tx *types.Transaction
	for _, t := range rec.txs {
		if t.Hash() == gone.TxHash {
			tx = t
		}
	}
	if tx != nil {
		rec.signedAt = n // the fee-bump count starts again
	}
	s.flight.mu.Unlock()
	s.reorgs.Add(1)
	if tx == nil {
		s.logger().Warn("evm: a mined transaction left the chain before it was confirmed (reorg); awaiting it again",
			"tx", gone.TxHash.Hex(), "block", gone.BlockNumber, "head", n, "confirmations", s.Confirmations)
		return
	}
	err := s.backend.SendTransaction(ctx, tx)
	s.logger().Warn("evm: a mined settlement left the chain before it was confirmed (reorg); sent the same signed transaction again",
		"tx", tx.Hash().Hex(), "relayer_nonce", tx.Nonce(), "block", gone.BlockNumber, "head", n,
		"confirmations", s.Confirmations, "send_err", err)
}

// fillGap sends again, as they were signed, the relayer's transactions
// that a reorganisation deeper than Confirmations took away after they
// were resolved: the chain's next relayer nonce (mined, at head n) is
// below every open transaction's, so those wait behind the gap and would
// never be mined. Only records still kept (keepBlocks after resolution)
// can be sent again; a nonce this process holds no transaction for (one
// a previous run left in the pool) is left to the node.
func (s *Settler) fillGap(ctx context.Context, open []*sentTx, mined, n uint64) {
	lowest, found := uint64(0), false
	for _, rec := range open { // sorted by nonce
		if rec.own {
			lowest, found = rec.nonce, true
			break
		}
	}
	if !found || lowest <= mined {
		return
	}
	type gone struct {
		tx    *types.Transaction
		first bool
	}
	var resend []gone
	s.flight.mu.Lock()
	for _, rec := range s.flight.byHash {
		if !rec.own || rec.nonce < mined || rec.nonce >= lowest || rec.receipt == nil {
			continue
		}
		for _, tx := range rec.txs {
			if tx.Hash() == rec.receipt.TxHash && !slices.ContainsFunc(resend, func(g gone) bool { return g.tx == tx }) {
				resend = append(resend, gone{tx, !rec.refilled})
				rec.refilled = true
			}
		}
	}
	s.flight.mu.Unlock()
	slices.SortFunc(resend, func(a, b gone) int { return int(a.tx.Nonce()) - int(b.tx.Nonce()) })
	for _, g := range resend {
		err := s.backend.SendTransaction(ctx, g.tx) // again at every head until mined: "already known" then
		if g.first {
			s.deepReorgs.Add(1)
			s.logger().Error("evm: a confirmed settlement left the chain (a reorg deeper than the confirmations); sent the same signed transaction again",
				"tx", g.tx.Hash().Hex(), "relayer_nonce", g.tx.Nonce(), "head", n, "confirmations", s.Confirmations, "send_err", err)
		}
	}
}

// Unconfirmed is how many transactions are mined but not yet
// Confirmations deep (for metrics and tests).
func (s *Settler) Unconfirmed() int {
	s.flight.mu.Lock()
	defer s.flight.mu.Unlock()
	n := 0
	for rec := range s.flight.open {
		if rec.shallow != nil {
			n++
		}
	}
	return n
}

// awaitDone waits until rec is resolved: ReceiptTimeout for its receipt,
// extended as long as it is mined and waiting for its depth (ctx still
// bounds the whole wait).
func (s *Settler) awaitDone(ctx context.Context, rec *sentTx) error {
	t := time.NewTimer(s.ReceiptTimeout)
	defer t.Stop()
	for {
		select {
		case <-rec.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			if s.shallowOf(rec) == nil {
				return context.DeadlineExceeded
			}
			t.Reset(s.ReceiptTimeout)
		}
	}
}

// confirmedBlock is the block the settler's verdicts read (nil: the
// latest): Confirmations below the head, so that an authorization counts
// as used only once the transaction that used it is that deep.
func (s *Settler) confirmedBlock(ctx context.Context) (*big.Int, error) {
	if s.Confirmations == 0 {
		return nil, nil
	}
	head, err := s.latest.get(ctx, s.backend, 0)
	if err != nil {
		return nil, fmt.Errorf("evm: reading the latest header: %w", err)
	}
	return belowHead(head, s.Confirmations), nil
}
