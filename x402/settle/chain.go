package settle

import (
	"context"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// ErrCallReverted means a relayer call reverted: in simulation (it was
// not sent) or on chain. A chain settler's calls wrap it, so that the
// schemes sending them tell a revert from an unreachable node without
// knowing the chain.
var ErrCallReverted = errors.New("evm: the call reverts")

// Chain is a settler that is the server's own relayer on a chain: it
// broadcasts exact transfers and, beside Broadcaster, answers the engine's
// questions about balances (and which transfers a balance already shows)
// and, after a restart or a front-run, about the transaction that moved a
// payment. The server sees a chain only through it, so that it names no
// chain package; a scheme that needs more of its chain (upto's proxy
// calls, the channels' transactions) asserts for it.
type Chain interface {
	x402.Settler
	Broadcaster
	Balances
	ShownBalances
	FeeAwaiter
	// TransferTx is the transaction this relayer sent with p's transfer.
	TransferTx(ctx context.Context, p *x402.Payment, req *x402.Requirement) (common.Hash, error)
	// PaidBy is the transaction that moved p's authorization to req.PayTo
	// in full, the zero hash when none did.
	PaidBy(ctx context.Context, p *x402.Payment, req *x402.Requirement) (common.Hash, time.Time, error)
	// OnCallGas sets fn to be told what each relayer call (not a batch of
	// transfers) cost once mined; fn must not block.
	OnCallGas(fn func(CallGas))
}
