package evm

import (
	"context"
	"errors"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Stranded reports whether hash, a transaction another relayer sent (a
// replica that died, whose purchases this one adopted), can no longer be
// mined as it stands: the node does not know it (it died before sending
// it), or it waits in the pool behind a nonce its sender never sent (a gap
// only that relayer could fill). Waiting for it would last the whole
// await; the authorization it carries, unused, can be sent again at once.
// A transaction of this settler's own relayer is never stranded: its own
// next sends fill such gaps. False, with the error, when the node cannot
// be read, or the backend cannot look a transaction up.
func (s *Settler) Stranded(ctx context.Context, hash common.Hash) (bool, error) {
	tl, ok := s.backend.(txLookup)
	if !ok {
		return false, nil
	}
	tx, pending, err := tl.TransactionByHash(ctx, hash)
	switch {
	case errors.Is(err, ethereum.NotFound):
		return true, nil
	case err != nil:
		return false, err
	case !pending:
		return false, nil // mined: its receipt decides
	}
	from, err := types.Sender(types.LatestSignerForChainID(s.chainID), tx)
	if err != nil || from == s.from {
		return false, err
	}
	next, err := s.backend.PendingNonceAt(ctx, from)
	if err != nil {
		return false, err
	}
	// The pool's next nonce counts only the sender's gapless pending
	// transactions (geth, anvil): one at or past it waits behind a gap.
	return tx.Nonce() >= next, nil
}
