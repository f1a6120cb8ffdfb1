package evm

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
)

// ErrNotMined means a settlement transaction was broadcast but no receipt
// arrived in time: it may still be mined later, so it is not a refusal.
var ErrNotMined = errors.New("evm: settlement transaction not mined in time")

// Settler is the `chain` settler (x402.Settler): farebox's relayer key
// submits transferWithAuthorization itself. Broadcast queues a transfer;
// dispatcher goroutines simulate what is queued against the state it will
// meet, send it as one transaction (Multicall3 tryAggregate when several
// are queued) and move on to the next batch without waiting for a block,
// so relayer nonces are pipelined. A follower goroutine watches new heads
// for receipts, re-sends what a node dropped and bumps the fees of stuck
// transactions. Both run only while there is work.
type Settler struct {
	backend Backend
	key     *ecdsa.PrivateKey
	from    common.Address
	chainID *big.Int
	signer  types.Signer

	// ReceiptTimeout bounds Settle's and Await's wait for a receipt (default 2 min).
	ReceiptTimeout time.Duration
	// PollInterval is the shortest wait between polls for a new head when
	// the backend cannot push them (default 20 ms; interval-mined chains are
	// polled when the next block is due).
	PollInterval time.Duration
	// GasMarginPercent is added to the estimated gas of a transfer sent
	// alone (default 20). In batches each transfer reserves a quarter more
	// than the transfers of its token used in the last mined batch (before
	// one is mined: a fifth more than one measured alone, less the
	// transaction's base cost): unused gas is not paid for, and a transfer
	// that would run short is found by the simulation and sent alone.
	GasMarginPercent uint64
	// MaxBatch bounds the transfers in one transaction (default 500).
	MaxBatch int
	// MaxBatchGas bounds one transaction's gas (default 16M, under the
	// 16.7M per-transaction cap of EIP-7825); a batch's gas is also kept
	// under a twentieth of the block gas limit, so blocks fill.
	MaxBatchGas uint64
	// BumpAfterBlocks is how many new heads a transaction may stay pending
	// before it is replaced with fees 12.5% higher (default 3).
	BumpAfterBlocks uint64
	// MaxFeeBumps bounds the replacements of one transaction (default 8:
	// at most 2.6 times the first fees); past it, it is only re-sent.
	MaxFeeBumps int
	// SendTimeout bounds the chain calls that send one batch (default 30 s).
	SendTimeout time.Duration
	// Dispatchers is how many dispatcher goroutines serve the queue
	// (default 2). They take turns: one batch is simulated, journaled and
	// sent at a time, so the next batch collects what arrived meanwhile.
	Dispatchers int
	// BatchWindow is how long a dispatcher waits for more transfers before
	// taking the next batch when the last one carried several (default
	// 5 ms): under load it trades a few milliseconds for fuller
	// transactions; a lone call never waits.
	BatchWindow time.Duration
	// Confirmations is how many blocks must be on top of the one that
	// mined a transaction before the settler takes it as final (config
	// payments.chain.confirmations): Await returns only then, and
	// AuthorizationUsed and TransferTx read the chain that many blocks
	// below its head. Until then its receipt is read again at every new
	// head; when a reorganisation took it away, the same signed
	// transaction is sent again. 0 (the default): mined is final.
	Confirmations uint64
	// Logger gets the settler's warnings (a reorganisation); nil means
	// slog.Default().
	Logger *slog.Logger
	// HeadMaxAge is how old the latest header the dispatcher builds a batch
	// on may be (default 250 ms; the follower refreshes it at every new head).
	HeadMaxAge time.Duration

	assets deployedAssets
	latest latestHead

	// The dispatchers' queue; nonce, nonceOK and tip are guarded by sendMu.
	qmu         sync.Mutex
	queue       []*transfer
	dispatchers int
	sendMu      sync.Mutex
	turn        sync.Mutex // one batch taken and sent at a time
	lastBatch   int        // guarded by turn: the size of the last batch taken
	wake        chan struct{}
	sent        chan struct{}   // a transaction was sent: the head follower polls now
	onQueue     func(int)       // tests: called with the queue's length after each enqueue
	onSimulated func(int) error // tests: called before a simulated, journaled batch is sent
	nonce       uint64
	nonceOK     bool
	tip         struct {
		head uint64
		cap  *big.Int
	}
	multicall      atomic.Int32 // 0 unknown, 1 present, 2 absent
	gasByAsset     sync.Map     // token address -> gas reserved per transfer
	gasMu          sync.Mutex   // serializes changes of gasByAsset with maxTransferGas; guards learning
	learning       map[uint64]learnable
	maxTransferGas atomic.Uint64

	flight flight
	heads  *heads // the follower's, kept across its runs (only it uses them)

	// Counters for measurements and metrics.
	batches, transfers, bumps, reorgs, deepReorgs atomic.Int64

	// unmined is the oldest settlement broadcast but not seen mined in
	// time: while it is pending, later ones queue behind its nonce.
	unmined atomic.Pointer[unminedTx]

	onCallGas atomic.Pointer[func(CallGas)] // see OnCallGas
}

type unminedTx struct {
	hash  common.Hash
	since time.Time
}

var _ x402.Settler = (*Settler)(nil)

// NewSettler returns a chain settler that pays gas from key on backend's
// chain. The caller reads the key from the environment; it is never logged.
func NewSettler(ctx context.Context, backend Backend, key *ecdsa.PrivateKey) (*Settler, error) {
	if key == nil {
		return nil, errors.New("evm: the chain settler needs a relayer key")
	}
	id, err := backend.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("evm: reading chain id: %w", err)
	}
	s := &Settler{
		backend: backend, key: key, from: crypto.PubkeyToAddress(key.PublicKey),
		chainID: id, signer: types.LatestSignerForChainID(id),
		ReceiptTimeout: 2 * time.Minute, PollInterval: 20 * time.Millisecond, GasMarginPercent: 20,
		MaxBatch: 500, MaxBatchGas: 16_000_000, BumpAfterBlocks: 3, MaxFeeBumps: 8, SendTimeout: 30 * time.Second, Dispatchers: 2,
		HeadMaxAge: 250 * time.Millisecond, BatchWindow: 5 * time.Millisecond, wake: make(chan struct{}, 1), sent: make(chan struct{}, 1),
	}
	s.multicallReady(ctx)
	return s, nil
}

// Stats counts what the settler sent: transactions, transfers in them, fee
// bumps, transactions seen mined that a reorganisation then took away
// before they were Confirmations deep (Reorged), and confirmed ones a
// deeper reorganisation took away, found by the gap they left in the
// relayer's nonces (ReorgedConfirmed); both are sent again as signed.
type Stats struct {
	Transactions, Transfers, FeeBumps, Reorged, ReorgedConfirmed int64
}

// Stats returns the counters since the settler was made.
func (s *Settler) Stats() Stats {
	return Stats{Transactions: s.batches.Load(), Transfers: s.transfers.Load(), FeeBumps: s.bumps.Load(), Reorged: s.reorgs.Load(),
		ReorgedConfirmed: s.deepReorgs.Load()}
}

func (s *Settler) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// Relayer is the address that pays gas for settlements.
func (s *Settler) Relayer() common.Address { return s.from }

// ChainID is the chain the settler sends to.
func (s *Settler) ChainID() *big.Int { return new(big.Int).Set(s.chainID) }

// RelayerBalance is the relayer's native balance (wei), for readiness checks.
func (s *Settler) RelayerBalance(ctx context.Context) (*big.Int, error) {
	return s.backend.BalanceAt(ctx, s.from, nil)
}

// Ready fails when the relayer cannot pay the gas of one settlement at the
// current fee level (100k gas), so /readyz can report it.
func (s *Settler) Ready(ctx context.Context) error {
	bal, err := s.RelayerBalance(ctx)
	if err != nil {
		return fmt.Errorf("evm: reading relayer balance: %w", err)
	}
	price, err := s.backend.SuggestGasPrice(ctx)
	if err != nil {
		return fmt.Errorf("evm: reading gas price: %w", err)
	}
	need := new(big.Int).Mul(price, big.NewInt(100_000))
	if bal.Cmp(need) < 0 {
		return fmt.Errorf("evm: relayer %s holds %s wei, less than the ~%s wei one settlement costs", s.from, bal, need)
	}
	if u := s.unmined.Load(); u != nil {
		if !s.minedAny(ctx, u.hash) {
			return fmt.Errorf("evm: relayer transaction %s, sent %s ago, is not mined: later settlements wait behind it",
				u.hash.Hex(), time.Since(u.since).Round(time.Second))
		}
		s.unmined.CompareAndSwap(u, nil) // mined since: the queue moves again
	}
	return nil
}

// minedAny tells whether hash, or a fee-bumped replacement of it, is mined.
func (s *Settler) minedAny(ctx context.Context, hash common.Hash) bool {
	hashes := []common.Hash{hash}
	s.flight.mu.Lock()
	if rec, ok := s.flight.byHash[hash]; ok && rec.own {
		hashes = rec.hashes()
	}
	s.flight.mu.Unlock()
	for _, h := range hashes {
		if r, err := s.backend.TransactionReceipt(ctx, h); err == nil && r != nil {
			return true
		}
	}
	return false
}

// Settle is Broadcast then Await: it submits the transfer and waits until
// it is mined. Every failure yields a Receipt with Success false and an
// x402 reason, together with an error; it never waits past ctx or
// ReceiptTimeout.
func (s *Settler) Settle(ctx context.Context, p *x402.Payment, req *x402.Requirement) (*x402.Receipt, error) {
	rc, err := s.Broadcast(ctx, p, req, nil)
	if err != nil || !rc.Success {
		return rc, err
	}
	hash := common.HexToHash(rc.Transaction)
	r, _, err := s.await(ctx, hash, p)
	if err != nil {
		var xe *x402.Error
		if errors.As(err, &xe) {
			rc.Success, rc.ErrorReason, rc.Transaction = false, xe.Reason, ""
			return rc, err
		}
		s.unmined.CompareAndSwap(nil, &unminedTx{hash: hash, since: time.Now()})
		// Broadcast but not mined in time: it may still be mined, so the
		// receipt keeps its hash.
		rc.Success, rc.ErrorReason = false, x402.ReasonSettlementPending
		return rc, fmt.Errorf("%w: %w", x402.ErrSettlementPending, err)
	}
	rc.Transaction = r.TxHash.Hex() // a fee bump mines another hash than the one broadcast
	return rc, nil
}

// Broadcast queues the transfer of a verified payment and returns once the
// node accepted a transaction carrying it (with other queued transfers in
// one Multicall3 tryAggregate(false, ...) when several wait), without
// waiting for a block. The transfer is first simulated against the pending
// block at the earliest timestamp it can land at; one that would fail is
// refused with its x402 reason and never sent. onSigned (may be nil) is
// called with the transaction hash after signing and before sending (the
// simulation runs meanwhile); its error aborts this transfer's send. It is
// called again with the zero hash when the transfer leaves that
// transaction unsent (refused by the simulation, or sent alone later). The receipt has Success true and the
// hash; failures have Success false, a reason and an error (wrapping
// x402.ErrSettlementPending when the node may have the transaction).
func (s *Settler) Broadcast(ctx context.Context, p *x402.Payment, req *x402.Requirement, onSigned func(tx common.Hash) error) (*x402.Receipt, error) {
	rc := &x402.Receipt{Payer: p.Authorization.From.Hex(), Network: req.Network.CAIP2}
	fail := func(reason string, err error) (*x402.Receipt, error) {
		rc.Success, rc.ErrorReason, rc.Transaction = false, reason, ""
		return rc, err
	}
	if req.Network.ChainID == nil || req.Network.ChainID.Cmp(s.chainID) != 0 {
		return fail(x402.ReasonInvalidNetwork, fmt.Errorf("evm: settler is on chain %s, payment is for %s", s.chainID, req.Network.CAIP2))
	}
	data, err := transferCalldata(p)
	if err != nil {
		return fail(x402.ReasonInvalidPayload, fmt.Errorf("evm: %w", err))
	}
	if err := s.assets.check(ctx, s.backend, req.Network); err != nil {
		var xe *x402.Error
		if errors.As(err, &xe) {
			return fail(xe.Reason, err)
		}
		return fail(x402.ReasonUnexpectedSettleError, err)
	}
	t := &transfer{ctx: ctx, p: p, req: req, data: data, onSigned: onSigned, done: make(chan outcome, 1)}
	s.enqueue(t)
	var o outcome
	select {
	case o = <-t.done:
	case <-ctx.Done():
		if s.withdraw(t) {
			return fail(x402.ReasonUnexpectedSettleError, fmt.Errorf("evm: settlement not sent: %w", ctx.Err()))
		}
		o = <-t.done // the dispatcher has it: its own timeout bounds this
	}
	var xe *x402.Error
	switch {
	case o.pending:
		rc.ErrorReason, rc.Transaction = x402.ReasonSettlementPending, o.hash.Hex()
		return rc, fmt.Errorf("%w: sending %s: %w", x402.ErrSettlementPending, o.hash.Hex(), o.err)
	case errors.As(o.err, &xe):
		return fail(xe.Reason, xe)
	case o.err != nil:
		return fail(x402.ReasonUnexpectedSettleError, o.err)
	}
	rc.Success, rc.Transaction = true, o.hash.Hex()
	return rc, nil
}

// sign prices and signs one relayer transaction.
func (s *Settler) sign(nonce uint64, to common.Address, data []byte, gas uint64, f fees) (*types.Transaction, error) {
	var inner types.TxData
	if f.tipCap != nil {
		inner = &types.DynamicFeeTx{ChainID: s.chainID, Nonce: nonce, GasTipCap: f.tipCap,
			GasFeeCap: f.feeCap, Gas: gas, To: &to, Data: data}
	} else {
		inner = &types.LegacyTx{Nonce: nonce, GasPrice: f.gasPrice, Gas: gas, To: &to, Data: data}
	}
	tx, err := types.SignNewTx(s.key, s.signer, inner)
	if err != nil {
		return nil, fmt.Errorf("evm: signing settlement: %w", err)
	}
	return tx, nil
}

type fees struct {
	tipCap, feeCap, gasPrice *big.Int
}

// fees reads EIP-1559 fees from the chain (fee cap = 2 x base fee + tip),
// or a legacy gas price on chains without a base fee.
func (s *Settler) fees(ctx context.Context) (fees, error) {
	head, err := s.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		return fees{}, fmt.Errorf("evm: reading latest header: %w", err)
	}
	return s.feesFor(ctx, head, nil)
}

// feesAt is fees for the dispatcher, reading the tip once per head.
func (s *Settler) feesAt(ctx context.Context, head *types.Header) (fees, error) {
	if head.BaseFee != nil && s.tip.cap != nil && s.tip.head == head.Number.Uint64() {
		return s.feesFor(ctx, head, s.tip.cap)
	}
	f, err := s.feesFor(ctx, head, nil)
	if err == nil && f.tipCap != nil {
		s.tip.head, s.tip.cap = head.Number.Uint64(), f.tipCap
	}
	return f, err
}

func (s *Settler) feesFor(ctx context.Context, head *types.Header, tip *big.Int) (fees, error) {
	if head.BaseFee == nil {
		price, err := s.backend.SuggestGasPrice(ctx)
		if err != nil {
			return fees{}, fmt.Errorf("evm: reading gas price: %w", err)
		}
		return fees{gasPrice: price}, nil
	}
	if tip == nil {
		var err error
		if tip, err = s.backend.SuggestGasTipCap(ctx); err != nil {
			return fees{}, fmt.Errorf("evm: reading gas tip: %w", err)
		}
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	return fees{tipCap: tip, feeCap: feeCap}, nil
}

// bump signs old again with the same nonce and fees at least 12.5% higher
// (the replacement rule of geth's and anvil's pools), or the market's when
// higher, and sends it.
func (s *Settler) bump(ctx context.Context, old *types.Transaction) (*types.Transaction, error) {
	f, err := s.fees(ctx)
	if err != nil {
		return nil, err
	}
	if old.Type() == types.DynamicFeeTxType && f.tipCap != nil {
		f.tipCap = bigMax(raise(old.GasTipCap()), f.tipCap)
		f.feeCap = bigMax(raise(old.GasFeeCap()), f.feeCap, f.tipCap)
	} else {
		price := old.GasPrice()
		if f.gasPrice != nil {
			price = bigMax(price, f.gasPrice)
		}
		f = fees{gasPrice: raise(price)}
	}
	tx, err := s.sign(old.Nonce(), *old.To(), old.Data(), old.Gas(), f)
	if err != nil {
		return nil, err
	}
	if err := s.backend.SendTransaction(ctx, tx); err != nil {
		return nil, fmt.Errorf("evm: sending the fee bump of %s: %w", old.Hash().Hex(), err)
	}
	return tx, nil
}

// raise is x + 12.5%, rounded up, plus one wei.
func raise(x *big.Int) *big.Int {
	y := new(big.Int).Mul(x, big.NewInt(1125))
	y.Add(y, big.NewInt(999))
	y.Div(y, big.NewInt(1000))
	return y.Add(y, big.NewInt(1))
}

func bigMax(xs ...*big.Int) *big.Int {
	m := xs[0]
	for _, x := range xs[1:] {
		if x.Cmp(m) > 0 {
			m = x
		}
	}
	return m
}
