package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

func init() {
	settle.RegisterTxCheck("eip155", buildTxCheck)
	settle.RegisterTransferReader("eip155", buildTransferReader)
}

// buildTxCheck reads payments.chain.rpc_url to check that a facilitator's
// transaction hash is a mined, successful transaction with a log of the
// network's token (the transfer): a made-up hash is never booked as
// settled.
func buildTxCheck(d settle.SettlerDeps) (settle.TxCheck, error) {
	client, err := DialConfigured(d.Chain.RPCURL)
	if err != nil {
		return nil, err
	}
	d.AddCloser(client.Close)
	return func(ctx context.Context, n *x402.Network, hash string) error {
		return checkTx(ctx, client, n, hash)
	}, nil
}

func checkTx(ctx context.Context, b interface {
	TransactionReceipt(context.Context, common.Hash) (*types.Receipt, error)
}, n *x402.Network, hash string) error {
	raw, err := common.ParseHexOrString(hash)
	if err != nil || len(raw) != common.HashLength {
		return fmt.Errorf("transaction %q is not a transaction hash", hash)
	}
	rc, err := b.TransactionReceipt(ctx, common.BytesToHash(raw))
	if err != nil {
		return fmt.Errorf("transaction %s is not on the chain at payments.chain.rpc_url: %w", hash, err)
	}
	if rc.Status != types.ReceiptStatusSuccessful {
		return fmt.Errorf("transaction %s reverted", hash)
	}
	for _, l := range rc.Logs {
		if n == nil || l.Address == n.Asset {
			return nil
		}
	}
	return fmt.Errorf("transaction %s moved no %s token", hash, n.CAIP2)
}

// buildTransferReader reads payments.chain.rpc_url to follow a
// facilitator's pending transaction to its outcome. It refuses a node of
// another chain than a configured network's: there, the facilitator's
// transactions would never be found, and every call would stay pending.
func buildTransferReader(d settle.SettlerDeps) (settle.TransferReader, error) {
	client, err := DialConfigured(d.Chain.RPCURL)
	if err != nil {
		return nil, err
	}
	d.AddCloser(client.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id, err := client.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("payments.chain.rpc_url: reading its chain id: %w", err)
	}
	for _, n := range d.Networks {
		if n.ChainID.Cmp(id) != 0 {
			return nil, fmt.Errorf("payments.networks: %s is not the chain at payments.chain.rpc_url (chain id %s)", n.CAIP2, id)
		}
	}
	r := NewReader(client)
	r.Depth = d.Chain.Confirmations
	return r, nil
}

// Reader follows transfers another party sends (a facilitator's relayer):
// it only reads the chain, so it holds no key and sends nothing.
type Reader struct {
	backend Backend
	// PollInterval spaces the receipt reads while a transaction is not
	// mined (default 1 s: Base mines every 2 s).
	PollInterval time.Duration
	// Depth is how many blocks must be on top of a transfer's before it
	// counts (payments.chain.confirmations, as the own relayer's
	// Settler.Confirmations): AwaitTransfer waits for them, and
	// AuthorizationUsed and TransferTx read the chain that deep, so a
	// reorganisation above it never confirms a purchase.
	Depth uint64
}

// NewReader reads the chain at backend.
func NewReader(backend Backend) *Reader { return &Reader{backend: backend, PollInterval: time.Second} }

var _ settle.TransferReader = (*Reader)(nil)

// AwaitTransfer waits until tx is mined (Depth blocks deep): nil when it
// succeeded and holds req's token's AuthorizationUsed log for p's (from,
// nonce), so a hash of some other transfer never counts as this payment;
// an *x402.Error when it reverted or carried no such transfer; an error
// wrapping settle.ErrTransferGone when its receipt, once seen, left the
// chain and the node knows the transaction no more (a reorganisation
// whose branch did not carry it); an error wrapping ErrNotMined when ctx
// ends first.
func (r *Reader) AwaitTransfer(ctx context.Context, tx common.Hash, p *x402.Payment, req *x402.Requirement) error {
	return r.await(ctx, tx, p, req, false)
}

// AwaitMined is AwaitTransfer for a transaction its sender said was mined
// (a facilitator's success): unknown to the node at two reads a poll apart,
// it left the chain, even if this reader never saw it mined.
func (r *Reader) AwaitMined(ctx context.Context, tx common.Hash, p *x402.Payment, req *x402.Requirement) error {
	return r.await(ctx, tx, p, req, true)
}

func (r *Reader) await(ctx context.Context, tx common.Hash, p *x402.Payment, req *x402.Requirement, mined bool) error {
	poll := r.PollInterval
	if poll <= 0 {
		poll = time.Second
	}
	seen, misses := false, 0
	for {
		// Not mined yet, or a read the node failed: asked again, since
		// only a receipt decides.
		rc, err := r.backend.TransactionReceipt(ctx, tx)
		switch {
		case err == nil:
			if verdict := r.judge(ctx, rc, p, req); verdict != nil {
				return verdict
			}
			if deep, derr := r.deep(ctx, rc); derr == nil && deep {
				return nil
			}
			seen, misses = true, 0
		case errors.Is(err, ethereum.NotFound) && (seen || mined) && r.unknown(ctx, tx):
			// A node a block behind the sender's may not know it yet.
			if misses++; misses >= 2 {
				return fmt.Errorf("%w: %s", settle.ErrTransferGone, tx.Hex())
			}
		default:
			misses = 0
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: %s: %w", ErrNotMined, tx.Hex(), ctx.Err())
		case <-t.C:
		}
	}
}

// Deep reports whether a mined transfer is followed to a depth: a
// facilitator's successful settlement is then confirmed only once Depth
// blocks are on top of it.
func (r *Reader) Deep() bool { return r.Depth > 0 }

// unknown reports whether the node knows tx neither mined nor pending
// (false when the backend cannot say).
func (r *Reader) unknown(ctx context.Context, tx common.Hash) bool {
	tl, ok := r.backend.(txLookup)
	if !ok {
		return false
	}
	_, _, err := tl.TransactionByHash(ctx, tx)
	return errors.Is(err, ethereum.NotFound)
}

// deep reports whether receipt rc has Depth blocks on top of its own.
func (r *Reader) deep(ctx context.Context, rc *types.Receipt) (bool, error) {
	if r.Depth == 0 {
		return true, nil
	}
	head, err := r.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		return false, err
	}
	return deepAt(rc, head.Number.Uint64(), r.Depth), nil
}

// judge is a mined receipt's verdict on p's transfer.
func (r *Reader) judge(ctx context.Context, rc *types.Receipt, p *x402.Payment, req *x402.Requirement) error {
	a := &p.Authorization
	if rc.Status == types.ReceiptStatusSuccessful && authorizationUsed(rc, req.Network.Asset, a.From, a.Nonce) {
		return nil
	}
	reason := x402.ReasonInvalidTxState
	if e := Diagnose(ctx, r.backend, p, req); e != nil {
		reason = e.Reason
	}
	what := "reverted"
	if rc.Status == types.ReceiptStatusSuccessful {
		what = "did not carry out this authorization's transfer"
	}
	return &x402.Error{Reason: reason, Message: fmt.Sprintf("settlement transaction %s %s", rc.TxHash.Hex(), what)}
}

// AuthorizationUsed reads the token's authorizationState(from, nonce)
// Depth blocks below the head.
func (r *Reader) AuthorizationUsed(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error) {
	var at *big.Int
	if r.Depth > 0 {
		head, err := r.backend.HeaderByNumber(ctx, nil)
		if err != nil {
			return false, fmt.Errorf("evm: reading the head: %w", err)
		}
		at = belowHead(head, r.Depth)
	}
	return authorizationStateAt(ctx, r.backend, p, req, at)
}

// TransferTx finds the transaction that carried out p's transfer (its
// AuthorizationUsed log, within the last blocks, Depth below the head), so
// that a settlement the facilitator never answered names the transaction
// that paid it. The zero hash means none was found.
func (r *Reader) TransferTx(ctx context.Context, p *x402.Payment, req *x402.Requirement) (common.Hash, error) {
	head, err := r.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		return common.Hash{}, fmt.Errorf("evm: reading the head: %w", err)
	}
	return transferTxBelow(ctx, r.backend, head, r.Depth, p, req)
}
