package settle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// Errors of Engine.Begin, with the answer the gateway gives for each.
var (
	// ErrInProgress: another request is running with this authorization
	// (HTTP 409, code payment_in_progress).
	ErrInProgress = errors.New("settle: a request with this authorization is in progress")
	// ErrNonceUsed: the authorization paid for another request, or its
	// transfer failed (HTTP 402, reason invalid_exact_evm_nonce_already_used).
	ErrNonceUsed = errors.New("settle: the authorization was already used")
	// ErrIdempotencyConflict: the payment-identifier id names a purchase
	// with another payment (HTTP 409, code idempotency_conflict).
	ErrIdempotencyConflict = errors.New("settle: the payment id was used with another payment")
	// ErrPayerInDebt: a transfer of this payer failed after it was served,
	// and the debt is neither forgiven nor lapsed (HTTP 402, reason
	// insufficient_funds).
	ErrPayerInDebt = errors.New("settle: a settled payment of this payer failed on chain")
)

// Broadcaster is the chain settler's two-step settlement (*evm.Settler):
// send and answer at once, confirm later.
type Broadcaster interface {
	// Broadcast returns once the node accepted the transaction carrying the
	// transfer. onSigned gets its hash after signing and before sending (an
	// error from it aborts the send); it may be called again when the
	// transfer moves to another transaction, and with the zero hash when it
	// left the signed transaction before anything was sent.
	Broadcast(ctx context.Context, p *x402.Payment, req *x402.Requirement, onSigned func(tx common.Hash) error) (*x402.Receipt, error)
	// Await waits until tx is mined: nil when this authorization's transfer
	// succeeded, an *x402.Error when it failed, any other error when the
	// outcome is unknown.
	Await(ctx context.Context, tx common.Hash, p *x402.Payment) error
	// AuthorizationUsed is the token's authorizationState(from, nonce).
	AuthorizationUsed(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error)
}

// FeeAwaiter is a Broadcaster that also tells what a transfer's
// transaction cost the relayer (*evm.Settler): the engine books it with
// the purchase's end (Event.Gas). Settlers without it book no gas.
type FeeAwaiter interface {
	// AwaitFee is Await that also returns p's share (wei) of the mined
	// transaction's fee, whether the transfer succeeded or not; nil when
	// the transaction is not the relayer's or its outcome is unknown.
	AwaitFee(ctx context.Context, tx common.Hash, p *x402.Payment) (*big.Int, error)
}

// Balances reads a payer's token balance at the latest block.
type Balances interface {
	BalanceOf(ctx context.Context, req *x402.Requirement, who common.Address) (*big.Int, error)
}

// ConfirmMode says when Purchase.Settle returns.
type ConfirmMode string

// The confirmation modes (config payments.confirm).
const (
	// ConfirmBroadcast answers once the node accepted the transaction.
	ConfirmBroadcast ConfirmMode = "broadcast"
	// ConfirmMined answers once the transfer is mined.
	ConfirmMined ConfirmMode = "mined"
)

// Config wires an Engine.
type Config struct {
	Journal Journal      // required
	Settler x402.Settler // required; a Broadcaster is used as one
	// Reader, with a plain Settler (a facilitator), reads the chain its
	// transfers land on: a settlement the settler left pending is followed
	// to its outcome there (see followRemote), on Resume too. Nil: such an
	// entry stays in the journal for an operator.
	Reader TransferReader
	// Holds is the in-flight accounting; nil means NewMemoryHolds.
	Holds Holds
	// Balances reads balances for the holds; nil means the Settler when it
	// is one, else no in-flight accounting.
	Balances Balances
	// BalanceMaxAge is how long a payer's balance, once read, counts for
	// its next calls (the holds keep the accounting exact, see
	// balanceCache). Default 1 s with the in-process holds; with Holds
	// given (Redis, shared by replicas whose releases this process does not
	// see) 0: read every time. Negative: read every time.
	BalanceMaxAge time.Duration
	// Networks resolves entries' networks on Resume (required for Resume).
	Networks *x402.Registry
	// Complete fills Authorization and Signature of a journaled v2 payment
	// of another scheme than exact (upto) on Resume, as the caller did
	// before Begin; nil: such entries cannot be resumed.
	Complete func(p *x402.Payment) error
	// Confirm defaults to broadcast with a Broadcaster (mined otherwise:
	// a plain Settler only returns once the transfer is mined).
	Confirm ConfirmMode
	// Instance names this engine among replicas sharing a journal: Resume
	// takes over entries of the same instance and entries idle for
	// StaleAfter. "" means this engine is the journal's only user.
	Instance   string
	StaleAfter time.Duration // default 10 min
	// HoldTTL caps a hold's life (default 10 min; never past validBefore).
	HoldTTL time.Duration
	// DebtTTL is how long a failed transfer refuses its payer (default
	// 7 days); negative means until an operator forgives it.
	DebtTTL time.Duration
	// AwaitTimeout bounds one wait for a mined transaction before the
	// engine looks at the authorization itself (default 2 min).
	AwaitTimeout time.Duration
	// RetryInterval spaces attempts after a chain read failed (default 2 s).
	RetryInterval time.Duration
	// RemoteResend spaces the times a remote settler's settlement left
	// pending with no transaction known (the request lost, or the
	// facilitator down before it answered) is sent to it again while the
	// authorization is unused and valid (default 5 s): the nonce is spent
	// once on chain whichever request lands.
	RemoteResend time.Duration
	// MaxResubmits bounds how often one follower sends an unused, valid
	// authorization again (default 3), so a transfer that keeps failing
	// does not keep costing gas.
	MaxResubmits int
	// Answers keeps paid answers for retries; nil: the Journal when it is
	// an AnswerStore (store/redis), else NewMemoryAnswers with the
	// default bounds.
	Answers AnswerStore
	// AnswerWait bounds how long a request waits for another replica to
	// finish the same purchase (its answer, or its turn) before it is
	// refused (in progress) or runs the model again (default 30 s). Within
	// one process a request waits as long as the first one runs.
	AnswerWait time.Duration
	// MaxReruns bounds how often the retries of a paid purchase whose
	// answer is not stored (lost in a crash, evicted, a stream cut short)
	// run the model again (default 2); then they get ErrNoAnswer.
	MaxReruns int
	// LossWindow is how long after the journal lost its data (a
	// LossReporter) new authorizations are checked against the chain's
	// pending state (default 1 h).
	LossWindow time.Duration
	// OnEvent, when set, is called for every step of every purchase (turn
	// it into metrics); it must not block.
	OnEvent func(Event)
	Logger  *slog.Logger
	Now     func() time.Time
}

// Engine runs purchases: journal, holds, settlement, confirmation, resume.
type Engine struct {
	cfg    Config
	chain  Broadcaster // nil for a plain settler
	life   context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex // guards closed against track
	closed bool
	counts [numEvents]atomic.Int64
	bals   *balanceCache // nil: read every balance

	answers AnswerStore
	shared  bool // answers may be made by another replica
	ans     answering
}

// NewEngine checks cfg and fills its defaults.
func NewEngine(cfg Config) (*Engine, error) {
	if cfg.Journal == nil || cfg.Settler == nil {
		return nil, errors.New("settle: an engine needs a journal and a settler")
	}
	e := &Engine{}
	e.chain, _ = cfg.Settler.(Broadcaster)
	if cfg.Holds == nil {
		cfg.Holds = NewMemoryHolds()
		if cfg.BalanceMaxAge == 0 {
			cfg.BalanceMaxAge = time.Second
		}
	}
	if cfg.BalanceMaxAge > 0 {
		e.bals = newBalanceCache(cfg.BalanceMaxAge)
	}
	if cfg.Balances == nil {
		cfg.Balances, _ = cfg.Settler.(Balances)
	}
	switch cfg.Confirm {
	case "":
		cfg.Confirm = ConfirmBroadcast
		if e.chain == nil {
			cfg.Confirm = ConfirmMined
		}
	case ConfirmBroadcast, ConfirmMined:
	default:
		return nil, fmt.Errorf("settle: confirm mode %q is neither broadcast nor mined", cfg.Confirm)
	}
	cfg.StaleAfter = orDefault(cfg.StaleAfter, 10*time.Minute)
	cfg.HoldTTL = orDefault(cfg.HoldTTL, 10*time.Minute)
	cfg.DebtTTL = orDefault(cfg.DebtTTL, 7*24*time.Hour)
	cfg.AwaitTimeout = orDefault(cfg.AwaitTimeout, 2*time.Minute)
	cfg.RetryInterval = orDefault(cfg.RetryInterval, 2*time.Second)
	cfg.RemoteResend = orDefault(cfg.RemoteResend, 5*time.Second)
	if cfg.MaxResubmits == 0 {
		cfg.MaxResubmits = 3
	}
	cfg.AnswerWait = orDefault(cfg.AnswerWait, 30*time.Second)
	cfg.LossWindow = orDefault(cfg.LossWindow, defaultLossWindow)
	if cfg.MaxReruns == 0 {
		cfg.MaxReruns = 2
	}
	e.answers = cfg.Answers
	if e.answers == nil {
		e.answers, _ = cfg.Journal.(AnswerStore)
	}
	if e.answers == nil {
		e.answers = NewMemoryAnswers(DefaultAnswerBytes, DefaultAnswerBytesPerPayer)
	}
	_, local := e.answers.(*MemoryAnswers)
	e.shared = !local
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	e.cfg = cfg
	e.life, e.stop = context.WithCancel(context.Background())
	e.startBeat()
	return e, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Confirm is the engine's confirmation mode.
func (e *Engine) Confirm() ConfirmMode { return e.cfg.Confirm }

// Close stops background confirmation and waits for it; entries still in
// flight stay in the journal for Resume, or for another replica's Adopt
// (on a journal with Liveness this replica's beat ends now). It does not
// close the journal.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.stop()
	e.wg.Wait()
	e.endBeat()
	return nil
}

// Begin claims p's authorization for one purchase (see the package doc for
// every outcome). The returned Purchase is settled or released exactly
// once; when it is a Replay, it is already paid and Settle returns the
// stored receipt.
func (e *Engine) Begin(ctx context.Context, p Purchase) (*Purchase, error) {
	if p.Payment == nil || p.Requirement == nil || p.Requirement.Network == nil || p.Requirement.Amount == nil {
		return nil, errors.New("settle: a purchase needs a payment and a requirement")
	}
	if p.PaymentID != "" && !ValidPaymentID(p.PaymentID) {
		return nil, ErrInvalidPaymentID
	}
	pu := &p
	pu.engine = e
	pu.entry = e.newEntry(pu)
	pu.name = pu.entry.Name()
	if err := e.refuseDebtor(ctx, pu.entry.Payer); err != nil {
		if errors.Is(err, ErrPayerInDebt) {
			e.emit(EventRefused, pu.entry, err)
		}
		return nil, err
	}
	cur, err := e.cfg.Journal.Create(ctx, pu.entry)
	switch {
	case errors.Is(err, ErrExists):
		return e.existing(pu, cur)
	case errors.Is(err, ErrIDTaken):
		e.emit(EventRefused, cur, ErrIdempotencyConflict)
		return nil, ErrIdempotencyConflict
	case err != nil:
		return nil, fmt.Errorf("settle: journal: %w", err)
	}
	e.emit(EventReserved, pu.entry, nil)
	pu.making = e.ans.start(pu.name)
	err = e.checkAfterLoss(ctx, pu)
	if err == nil {
		err = e.hold(ctx, pu)
	}
	if err != nil {
		pu.keepNothing()
		if derr := e.cfg.Journal.Delete(context.WithoutCancel(ctx), pu.entry.Key(), Reserved); derr != nil {
			e.cfg.Logger.Error("settle: releasing a refused reservation", "entry", pu.name, "err", derr)
		}
		e.emit(EventRefused, pu.entry, err)
		return nil, err
	}
	return pu, nil
}

// newEntry is the Reserved entry of a purchase.
func (e *Engine) newEntry(p *Purchase) *Entry {
	pay, req := p.Payment, p.Requirement
	now := e.cfg.Now()
	k := pay.Key(req.Network)
	return &Entry{ChainID: k.ChainID, Asset: k.Asset, Payer: k.From, Nonce: k.Nonce,
		Version: pay.Version, Payment: append([]byte(nil), pay.Raw...),
		Network: req.Network.CAIP2, Amount: new(big.Int).Set(req.Amount), PayTo: req.PayTo,
		BodyHash: p.BodyHash, PaymentID: p.PaymentID, Model: p.Model, State: Reserved, Owner: e.cfg.Instance,
		Created: now, Updated: now, Expires: pay.Authorization.Expires()}
}

// existing answers a Begin whose authorization is already in the journal.
func (e *Engine) existing(p *Purchase, cur *Entry) (*Purchase, error) {
	var err error
	switch {
	case cur.BodyHash != p.entry.BodyHash || cur.State == Failed:
		err = ErrNonceUsed // it pays (or paid) for another request
	case cur.State == Reserved || cur.State == Settling:
		err = ErrInProgress
	case cur.Receipt == nil:
		err = ErrNonceUsed
	default: // Broadcast or Confirmed, same body: the same purchase again
		p.entry, p.replay = cur, true
		e.emit(EventReplayed, cur, nil)
		return p, nil
	}
	e.emit(EventRefused, cur, err)
	return nil, err
}

// refuseDebtor returns ErrPayerInDebt while payer has a live debt item.
func (e *Engine) refuseDebtor(ctx context.Context, payer common.Address) error {
	items, err := e.cfg.Journal.Debts(ctx, payer)
	if err != nil {
		return fmt.Errorf("settle: reading debts: %w", err)
	}
	now := e.cfg.Now()
	for i := range items {
		if items[i].Live(now) {
			return ErrPayerInDebt
		}
	}
	return nil
}

func accountOf(en *Entry) Account {
	return Account{ChainID: en.ChainID, Asset: en.Asset, Payer: en.Payer}
}

// Debt is what payer owes: the sum of its live debt items (nil when none).
func (e *Engine) Debt(ctx context.Context, payer common.Address) (*big.Int, []DebtItem, error) {
	items, err := e.cfg.Journal.Debts(ctx, payer)
	if err != nil {
		return nil, nil, err
	}
	now, sum := e.cfg.Now(), new(big.Int)
	var live []DebtItem
	for _, d := range items {
		if d.Live(now) && d.Amount != nil {
			sum.Add(sum, d.Amount)
			live = append(live, d)
		}
	}
	if len(live) == 0 {
		return nil, nil, nil
	}
	return sum, live, nil
}

// Forgive clears payer's debt (an operator's decision, e.g. after it paid
// out of band) and returns the items that were still live: what was
// written off. Lapsed items are cleared too; they refused nobody anymore.
func (e *Engine) Forgive(ctx context.Context, payer common.Address) ([]DebtItem, error) {
	items, err := e.cfg.Journal.ClearDebts(ctx, payer)
	if err != nil {
		return nil, err
	}
	now, sum := e.cfg.Now(), new(big.Int)
	var live []DebtItem
	for _, d := range items {
		if d.Live(now) && d.Amount != nil {
			sum.Add(sum, d.Amount)
			live = append(live, d)
		}
	}
	e.cfg.Logger.Info("settle: debt forgiven", "payer", payer.Hex(), "items", len(live), "amount", sum.String())
	return live, nil
}
