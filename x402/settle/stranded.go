package settle

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
)

// strandedFinder tells a transaction another relayer sent that can no
// longer be mined as it stands (*evm.Settler: unknown to the node, or
// queued behind its dead sender's nonce gap).
type strandedFinder interface {
	Stranded(ctx context.Context, tx common.Hash) (bool, error)
}

// stranded reports whether a resumed entry's recorded transaction is
// stranded (an adopted replica's, which that replica will never send or
// unblock): its unused authorization is then sent again at once rather
// than after the whole AwaitTimeout, while the client retrying the same
// payment waits.
func (e *Engine) stranded(ctx context.Context, f *flight) bool {
	sf, ok := e.chain.(strandedFinder)
	tx := f.tx()
	if !ok || tx == (common.Hash{}) {
		return false
	}
	gone, err := sf.Stranded(ctx, tx)
	if err != nil {
		e.cfg.Logger.Warn("settle: reading a resumed entry's transaction", "entry", f.name(), "tx", tx.Hex(), "err", err)
	}
	if gone {
		e.cfg.Logger.Warn("settle: a resumed entry's transaction cannot be mined as it stands (never sent, or behind its relayer's nonce gap); sending the authorization again",
			"entry", f.name(), "tx", tx.Hex())
	}
	return gone
}
