package evm

import (
	"context"
	"fmt"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
)

// SimulateCall runs data against to from the relayer as eth_call at the
// earliest timestamp a transaction could land at (what Call would meet):
// a revert wraps ErrCallReverted with its reason string.
func (s *Settler) SimulateCall(ctx context.Context, to common.Address, data []byte) error {
	var at uint64
	if head, err := s.latest.get(ctx, s.backend, s.HeadMaxAge); err == nil {
		at = head.Time
	}
	_, err := callAt(ctx, s.backend, ethereum.CallMsg{From: s.from, To: &to, Data: data}, earliestLanding(at))
	if err != nil && isRevert(err) {
		return fmt.Errorf("%w: %s", ErrCallReverted, revertReason(err))
	}
	return err
}

// Backend is the chain client the settler reads and sends through.
func (s *Settler) Backend() Backend { return s.backend }
