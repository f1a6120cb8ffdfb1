// Package agent is the client side of farebox's tool loop: farebox never
// runs a tool, so the client runs every call, sends the outputs back with
// the whole conversation, and pays for every turn. An Agent drives that
// loop over openai-go against any OpenAI Responses endpoint (paid through
// an x402/payer Transport, or free): Go function tools, MCP servers'
// tools, approvals, parallel calls, cancellation, resumption, and bounds
// on turns, time and money, with a ledger of every turn's receipt.
package agent

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// DefaultMaxTurns bounds a run when Config.MaxTurns is zero.
const DefaultMaxTurns = 20

// ErrMaxTurns is returned (wrapped) when a run would need more model turns
// than Config.MaxTurns.
var ErrMaxTurns = errors.New("agent: turn limit reached")

// Config is what an Agent runs with.
type Config struct {
	// Client talks to the Responses endpoint. For a paid endpoint its HTTP
	// client uses a *payer.Transport (see NewClient).
	Client openai.Client
	// Model is the model name sent with every turn.
	Model string
	// Instructions, when set, are sent with every turn.
	Instructions string
	// Tools are the tools the model may call.
	Tools []Tool
	// Approve decides calls of tools that are not Auto; nil runs every call.
	Approve ApproveFunc
	// Deny names tools never run: the model is told each call was denied.
	Deny []string
	// MaxTurns bounds model calls per run (default DefaultMaxTurns).
	MaxTurns int
	// MaxTime bounds a run's wall-clock time (0: only the caller's context).
	MaxTime time.Duration
	// Budget bounds what the Agent may sign over its life, in USDC atomic
	// units (nil: no bound): each authorization's maximum and each channel
	// deposit counts when it is signed (payer.Budget), whatever a receipt
	// later says, and a payment that would pass it is never signed.
	Budget *big.Int
	// Stream asks for streamed turns: text deltas reach OnEvent as they arrive.
	Stream bool
	// OnEvent receives text deltas, call status and receipts as they happen.
	// It is called from the run's goroutines, one event at a time.
	OnEvent func(Event)
	// RequestOptions are added to every Responses call.
	RequestOptions []option.RequestOption
}

// Agent runs conversations to their final answer. Its approvals ("always")
// and its ledger last as long as it does, so one Agent is one session: run
// one conversation at a time on it (each turn's receipt is matched to the
// turn that paid it).
type Agent struct {
	cfg    Config
	tools  map[string]Tool
	ledger *ledger

	mu     sync.Mutex
	always map[string]Decision // per tool: AllowAlways or RejectAlways
	emitMu sync.Mutex
}

// New checks cfg and returns an Agent.
func New(cfg Config) (*Agent, error) {
	if cfg.Model == "" {
		return nil, errors.New("agent: a model is required")
	}
	a := &Agent{cfg: cfg, tools: map[string]Tool{}, ledger: newLedger(cfg.Budget), always: map[string]Decision{}}
	for _, t := range cfg.Tools {
		if t.Name == "" || t.Run == nil {
			return nil, fmt.Errorf("agent: tool %q needs a name and a Run function", t.Name)
		}
		if _, dup := a.tools[t.Name]; dup {
			return nil, fmt.Errorf("agent: two tools are named %q", t.Name)
		}
		a.tools[t.Name] = t
	}
	for _, name := range cfg.Deny {
		a.always[name] = RejectAlways
	}
	if a.cfg.MaxTurns <= 0 {
		a.cfg.MaxTurns = DefaultMaxTurns
	}
	return a, nil
}

// Result is the outcome of a run. On error it still holds the history so
// far: a run stopped mid-way (cancelled, over budget, out of turns) is
// resumed by calling Run with it.
type Result struct {
	// OutputText is the final answer's text.
	OutputText string
	// History is the whole conversation, ending with the final answer.
	History []Item
	// Turns is the number of model calls this run made.
	Turns int
	// Spent is what this run signed, in atomic units.
	Spent *big.Int
	// Receipts is the ledger of this run's paid turns.
	Receipts []Receipt
}

// Spent is what the Agent signed over its life, in atomic units.
func (a *Agent) Spent() *big.Int {
	s, _ := a.ledger.snapshot()
	return s
}

// Receipts is the Agent's whole ledger.
func (a *Agent) Receipts() []Receipt {
	_, r := a.ledger.snapshot()
	return r
}

// Ask runs a conversation that starts with one user message.
func (a *Agent) Ask(ctx context.Context, prompt string) (*Result, error) {
	return a.Run(ctx, []Item{UserMessage(prompt)})
}

// Run continues history to a final answer: calls that end history without
// outputs are run first (resumption), then the model is asked, its calls
// run, and so on until it answers with text.
func (a *Agent) Run(ctx context.Context, history []Item) (*Result, error) {
	if a.cfg.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.cfg.MaxTime)
		defer cancel()
	}
	spent0, receipts0 := a.ledger.snapshot()
	res := &Result{History: append([]Item(nil), history...)}
	finish := func(err error) (*Result, error) {
		spent, receipts := a.ledger.snapshot()
		res.Spent = spent.Sub(spent, spent0)
		res.Receipts = receipts[len(receipts0):]
		return res, err
	}
	for {
		if calls := PendingCalls(res.History); len(calls) > 0 {
			outs, err := a.runCalls(ctx, calls)
			if err != nil {
				return finish(err)
			}
			res.History = append(res.History, outs...)
		}
		if res.Turns >= a.cfg.MaxTurns {
			return finish(fmt.Errorf("%w (%d turns)", ErrMaxTurns, a.cfg.MaxTurns))
		}
		t, err := a.turn(ctx, res.History)
		if err != nil {
			return finish(err)
		}
		res.Turns++
		res.History = append(res.History, t.items...)
		if !t.hasCalls {
			res.OutputText = t.text
			return finish(nil)
		}
	}
}

func (a *Agent) emit(e Event) {
	if a.cfg.OnEvent == nil {
		return
	}
	a.emitMu.Lock()
	defer a.emitMu.Unlock()
	a.cfg.OnEvent(e)
}
