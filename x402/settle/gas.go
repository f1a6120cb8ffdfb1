package settle

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

type gasLabelKey struct{}

// WithGasLabel returns ctx carrying label (a model's name): the fee of a
// relayer call made with it is reported under that label, so the books
// can charge it to the model it served whatever chain sent it.
func WithGasLabel(ctx context.Context, label string) context.Context {
	return context.WithValue(ctx, gasLabelKey{}, label)
}

// GasLabel is the label WithGasLabel put on ctx, "" when none: a chain
// settler reads it when it sends a call.
func GasLabel(ctx context.Context) string {
	l, _ := ctx.Value(gasLabelKey{}).(string)
	return l
}

// CallGas is what one relayer call (a deposit, claim, refund or metered
// settlement, not a batch of transfers) cost once mined: a plain fact, so
// the books count gas without knowing the chain that charged it.
type CallGas struct {
	Tx       common.Hash
	Wei      *big.Int // gas used times the effective gas price
	Label    string   // the WithGasLabel of the context the call was made with ("" when none)
	Reverted bool
}
