package settle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// SettlerConfig is the settler's part of the payments configuration
// (payments.settler, payments.facilitator, payments.chain), as plain
// values a settler kind reads without knowing the server's types.
type SettlerConfig struct {
	Kind        string
	Facilitator FacilitatorSettings
	Chain       ChainSettings
}

// FacilitatorSettings are payments.facilitator's keys.
type FacilitatorSettings struct {
	// Kind is "" or "cdp" (requests signed with the CDP API key whose id
	// and secret are in KeyIDEnv and KeySecretEnv).
	Kind          string
	URL           string
	AuthHeaderEnv string
	KeyIDEnv      string
	KeySecretEnv  string
	Verify        bool
	// Now dates the CDP tokens (nil: time.Now).
	Now func() time.Time
}

// ChainSettings are payments.chain's keys, its simulate mode resolved.
type ChainSettings struct {
	RPCURL        string
	RelayerKeyEnv string
	// RelayerKeystore and RelayerPasswordFile, when set, hold the relayer
	// key instead: an encrypted go-ethereum v3 keystore and its password.
	RelayerKeystore, RelayerPasswordFile string
	// Simulate runs a payment's transfer as eth_call before it counts;
	// PerPayer simulates a payer's payments only until one passes.
	Simulate, PerPayer bool
	// Confirmations is the depth at which the chain settler takes a mined
	// settlement as final (see evm.Settler.Confirmations).
	Confirmations uint64
}

// SettlerDeps is what a settler kind's constructor gets: its
// configuration and the environment to read secrets from.
type SettlerDeps struct {
	SettlerConfig
	Networks []*x402.Network
	Getenv   func(string) string
	// Timeout bounds one call to a remote settler.
	Timeout time.Duration
	// Checked says the verifier already has a checker (supplied in
	// process): the settler adds none.
	Checked bool
	// AddCloser runs fn when the payments close (a dialled connection).
	AddCloser func(fn func())
}

// SettlerParts are what a settler kind made.
type SettlerParts struct {
	Settler x402.Settler
	// Checker, when set, checks payments beyond local verification (on
	// chain, or by the facilitator): only when the deps were not Checked.
	Checker x402.Checker
	// Ready, when set, is part of the server's readiness (the relayer can pay gas).
	Ready func(ctx context.Context) error
	// Gate, when set, is asked before a new payment's model runs: an error
	// (an *x402.Error) refuses it, since the settler cannot settle now (a
	// facilitator seen down).
	Gate func(ctx context.Context) error
	// Prove, when set, is asked once before the server takes payments:
	// an error (one line, naming what is wrong) refuses the start, since
	// payments it takes could not settle (a facilitator that does not
	// list a configured network, a relayer without gas).
	Prove func(ctx context.Context) error
	// Reader, when set, reads the chain a remote settler's transfers land
	// on (payments.chain.rpc_url beside a facilitator): the engine follows
	// a transfer the settler reported pending to its outcome.
	Reader TransferReader
}

// SettlerBuilder makes a settler of one kind.
type SettlerBuilder func(SettlerDeps) (*SettlerParts, error)

// CheckerBuilder makes the chain check of payments (contract-wallet
// signatures, the transfer's simulation) from a chain to read.
type CheckerBuilder func(SettlerDeps) (x402.Checker, error)

var settlerRegistry struct {
	sync.Mutex
	kinds    map[string]SettlerBuilder
	checkers map[string]CheckerBuilder
}

// RegisterSettler registers the settler kind (payments.settler's value),
// from its package's init; registering a kind twice panics.
func RegisterSettler(kind string, build SettlerBuilder) {
	settlerRegistry.Lock()
	defer settlerRegistry.Unlock()
	if settlerRegistry.kinds == nil {
		settlerRegistry.kinds = map[string]SettlerBuilder{}
	}
	if _, dup := settlerRegistry.kinds[kind]; dup {
		panic("settle: settler " + kind + " registered twice")
	}
	settlerRegistry.kinds[kind] = build
}

// LookupSettler is the settler kind registered as kind, nil when none is.
func LookupSettler(kind string) SettlerBuilder {
	settlerRegistry.Lock()
	defer settlerRegistry.Unlock()
	return settlerRegistry.kinds[kind]
}

// RegisterChecker registers how a chain of family (a CAIP-2 namespace) is
// read to check payments, so that a settler that is not that chain's
// relayer (a facilitator) can still check them locally.
func RegisterChecker(family string, build CheckerBuilder) {
	settlerRegistry.Lock()
	defer settlerRegistry.Unlock()
	if settlerRegistry.checkers == nil {
		settlerRegistry.checkers = map[string]CheckerBuilder{}
	}
	settlerRegistry.checkers[family] = build
}

// BuildChecker is the chain check of d.Chain's chain for family.
func BuildChecker(family string, d SettlerDeps) (x402.Checker, error) {
	settlerRegistry.Lock()
	build := settlerRegistry.checkers[family]
	settlerRegistry.Unlock()
	if build == nil {
		return nil, fmt.Errorf("payments.chain.rpc_url: no chain of %s is linked into this build", family)
	}
	return build(d)
}

// TxCheck tells whether the transaction a remote settler (a facilitator)
// names for a payment on network is on the chain and moved that
// network's token: nil when it did.
type TxCheck func(ctx context.Context, network *x402.Network, hash string) error

var txChecks struct {
	sync.Mutex
	byFamily map[string]func(SettlerDeps) (TxCheck, error)
}

// RegisterTxCheck registers how a chain of family is read to check a
// facilitator's transaction hash (payments.chain.rpc_url).
func RegisterTxCheck(family string, build func(SettlerDeps) (TxCheck, error)) {
	txChecks.Lock()
	defer txChecks.Unlock()
	if txChecks.byFamily == nil {
		txChecks.byFamily = map[string]func(SettlerDeps) (TxCheck, error){}
	}
	txChecks.byFamily[family] = build
}

// BuildTxCheck is family's transaction check of d.Chain's chain, nil when
// none is linked.
func BuildTxCheck(family string, d SettlerDeps) (TxCheck, error) {
	txChecks.Lock()
	build := txChecks.byFamily[family]
	txChecks.Unlock()
	if build == nil {
		return nil, nil
	}
	return build(d)
}

// TransferReader reads the chain that a remote settler (a facilitator)
// sends its transfers to. It sends nothing: it only tells what happened.
type TransferReader interface {
	// AwaitTransfer waits until tx is mined: nil when it carried out p's
	// transfer (req's token, p's authorization), an *x402.Error when it
	// reverted or did not, an error wrapping ErrTransferGone when it was
	// mined and a reorganisation took it away, any other error when the
	// outcome is unknown.
	AwaitTransfer(ctx context.Context, tx common.Hash, p *x402.Payment, req *x402.Requirement) error
	// AuthorizationUsed is the token's authorizationState(from, nonce).
	AuthorizationUsed(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error)
}

// ErrTransferGone says a transaction seen mined is no longer on the chain
// nor known to the node: a reorganisation took it away, and the
// authorization it carried may be unused again.
var ErrTransferGone = errors.New("settle: the transaction left the chain (reorg)")

// deepReader is a TransferReader that follows a mined transfer to a
// confirmation depth (payments.chain.confirmations): a remote settler's
// successful settlement is then followed until it is that deep, not
// confirmed at once.
type deepReader interface {
	Deep() bool
	// AwaitMined is AwaitTransfer for a transaction its sender said was
	// mined: unknown to the node, it was taken away (ErrTransferGone)
	// even if this reader never saw it mined.
	AwaitMined(ctx context.Context, tx common.Hash, p *x402.Payment, req *x402.Requirement) error
}

var transferReaders struct {
	sync.Mutex
	byFamily map[string]func(SettlerDeps) (TransferReader, error)
}

// RegisterTransferReader registers how a chain of family is read to follow
// a remote settler's transfers (payments.chain.rpc_url).
func RegisterTransferReader(family string, build func(SettlerDeps) (TransferReader, error)) {
	transferReaders.Lock()
	defer transferReaders.Unlock()
	if transferReaders.byFamily == nil {
		transferReaders.byFamily = map[string]func(SettlerDeps) (TransferReader, error){}
	}
	transferReaders.byFamily[family] = build
}

// BuildTransferReader is family's reader of d.Chain's chain, nil when none
// is linked.
func BuildTransferReader(family string, d SettlerDeps) (TransferReader, error) {
	transferReaders.Lock()
	build := transferReaders.byFamily[family]
	transferReaders.Unlock()
	if build == nil {
		return nil, nil
	}
	return build(d)
}
