package evm

import (
	"context"
	"fmt"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

var _ settle.PendingChecker = (*Settler)(nil)

// AuthorizationPending tells whether p's authorization is spent or on its
// way: carried by a transfer this settler queued or sent and has not seen
// resolved, or used in the node's pending state (mined, or in its pool).
// The engine asks it after its journal lost entries (a Redis restarted
// empty), when the journal can no longer tell a replay from a new payment.
// The pending block costs the node a re-execution of its pool, which is
// why the ordinary checks read the latest state instead.
func (s *Settler) AuthorizationPending(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error) {
	if s.carries(authKey{p.Authorization.From, p.Authorization.Nonce}) {
		return true, nil
	}
	asset := req.Network.Asset
	msg := ethereum.CallMsg{To: &asset, Data: tokenCall("authorizationState", p.Authorization.From, p.Authorization.Nonce)}
	var out []byte
	var err error
	if rc, ok := s.backend.(rawClient); ok && rc.Client() != nil {
		var b hexutil.Bytes
		cctx, cancel := boundedBy(ctx, s.backend)
		err = rc.Client().CallContext(cctx, &b, "eth_call", toArgs(msg), "pending")
		cancel()
		out = b
	} else {
		out, err = s.backend.CallContract(ctx, msg, nil)
	}
	if err != nil {
		return false, fmt.Errorf("evm: reading the pending authorizationState on %s: %w", asset, err)
	}
	used, err := tokenResult[bool]("authorizationState", out)
	if err != nil {
		return false, err
	}
	return used, nil
}

// carries reports whether k is in the queue or in an unresolved transaction
// of this settler.
func (s *Settler) carries(k authKey) bool {
	s.qmu.Lock()
	for _, t := range s.queue {
		if t.p.Authorization.From == k.from && t.p.Authorization.Nonce == k.nonce {
			s.qmu.Unlock()
			return true
		}
	}
	s.qmu.Unlock()
	f := &s.flight
	f.mu.Lock()
	defer f.mu.Unlock()
	for rec := range f.open {
		if _, ok := rec.reqs[k]; ok {
			return true
		}
	}
	return false
}
