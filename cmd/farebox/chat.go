//go:build !server

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/farebox/farebox/agent"
	"github.com/farebox/farebox/x402"
)

// chatStdin is where `farebox chat` reads prompts and approvals; tests
// replace it.
var chatStdin io.Reader = os.Stdin

// chatInterrupts delivers Ctrl-C (and SIGTERM, which ends the session) to
// an interactive chat; tests replace it.
var chatInterrupts = func() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	return c, func() { signal.Stop(c) }
}

// chatFlags are the flags of `farebox chat`.
type chatFlags struct {
	base, model, prompt, budget string
	pay                         *payFlags
	json, yes                   bool
	maxTurns                    int
	maxTime                     time.Duration
	mcp, deny                   fundFlags
}

// errNotApproved stops a non-interactive run at a call nobody approved.
type errNotApproved struct{ call agent.Call }

func (e *errNotApproved) Error() string {
	return fmt.Sprintf("%s was not run: tool calls need approval and this run is not interactive (-p); pass --yes to approve every tool, or --deny %s to refuse it",
		e.call.Name, e.call.Name)
}

// runChat is `farebox chat`: an interactive terminal client of the agent
// loop, or one run with -p.
func runChat(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlagSet("chat", "[flags]", "Talk to a model through farebox; every turn is paid, every tool runs here (MCP\ntoo). The payer key comes from FAREBOX_PAYER_KEY (hex); without it, the\npublicly known dev payer key of `farebox dev` is used.", stderr)
	var f chatFlags
	fs.StringVar(&f.base, "base-url", getenvOr(getenv, "FAREBOX_BASE_URL", "http://127.0.0.1:8402/v1"), "the Responses endpoint's base URL (env FAREBOX_BASE_URL)")
	fs.StringVar(&f.model, "model", "farebox-scripted", "model to talk to")
	fs.StringVar(&f.prompt, "p", "", "run this prompt once, print the answer and exit")
	fs.BoolVar(&f.json, "json", false, `with -p: print one JSON object {"output_text","turns","spent_atomic","receipts"}`)
	fs.BoolVar(&f.yes, "yes", false, "approve every tool call")
	fs.Var(&f.mcp, "mcp", `start an MCP stdio server and offer its tools: "COMMAND ARGS" (repeatable)`)
	fs.Var(&f.deny, "deny", "never run this tool; the model is told it was denied (repeatable)")
	fs.StringVar(&f.budget, "budget", "", "the most this session may sign, in USDC: authorizations' maxima and channel deposits (default: no limit)")
	f.pay = addPayFlags(fs.FlagSet, getenv, "turn")
	fs.IntVar(&f.maxTurns, "max-turns", agent.DefaultMaxTurns, "the most model turns per prompt")
	fs.DurationVar(&f.maxTime, "max-time", 0, "the longest one prompt may run, e.g. 2m (default: no limit)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (the prompt goes after -p)", fs.Args())
	}
	s, err := newChatSession(ctx, &f, stdout, stderr, getenv)
	if err != nil {
		return err
	}
	defer s.close()
	if f.prompt != "" {
		return s.once(ctx)
	}
	return s.interactive(ctx)
}

// chatSession is one `farebox chat`: the agent, its MCP servers, the
// conversation so far.
type chatSession struct {
	f              *chatFlags
	agent          *agent.Agent
	servers        []*agent.MCPServer
	stdout, stderr io.Writer
	lines          *lineReader
	history        []agent.Item
	asks           bool
	toolSources    []string // "a, b (mcp: node server.js)", per source
	watch          *answerWatch
}

func newChatSession(ctx context.Context, f *chatFlags, stdout, stderr io.Writer, getenv func(string) string) (*chatSession, error) {
	s := &chatSession{f: f, stdout: stdout, stderr: stderr, asks: f.prompt == ""}
	if f.json && f.prompt == "" {
		return nil, errors.New("--json needs -p")
	}
	var budget *big.Int
	if f.budget != "" {
		b, err := x402.ParseUSDC(f.budget)
		if err != nil {
			return nil, fmt.Errorf("--budget: %w", err)
		}
		budget = b
	}
	if err := f.pay.parse(); err != nil {
		return nil, err
	}
	key, err := payerKey(getenv, stderr, "farebox chat", f.pay)
	if err != nil {
		return nil, err
	}
	offers, err := offersOf(ctx, f.base, f.model)
	if err != nil {
		return nil, err
	}
	pay, err := f.pay.transport(ctx, key, offers, stderr)
	if err != nil {
		return nil, err
	}
	var tools []agent.Tool
	for _, line := range f.mcp {
		srv, err := agent.StartMCPCommand(ctx, line)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("--mcp %q: %w", line, err)
		}
		s.servers = append(s.servers, srv)
		var names []string
		for _, t := range srv.Tools() {
			names = append(names, t.Name)
		}
		s.toolSources = append(s.toolSources, fmt.Sprintf("%s (mcp: %s)", strings.Join(names, ", "), line))
		tools = append(tools, srv.Tools()...)
	}
	s.watch = &answerWatch{}
	cfg := agent.Config{Client: agent.NewClient(strings.TrimSuffix(f.base, "/")+"/", pay, s.watch.middleware()), Model: f.model, Tools: tools,
		Deny: f.deny, Budget: budget, MaxTurns: f.maxTurns, MaxTime: f.maxTime, Stream: !f.json, OnEvent: s.show}
	if !f.yes {
		cfg.Approve = s.approve
	}
	if s.agent, err = agent.New(cfg); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *chatSession) close() {
	for _, srv := range s.servers {
		srv.Close()
	}
}

// once runs -p: one prompt to its final answer.
func (s *chatSession) once(ctx context.Context) error {
	res, err := s.agent.Ask(ctx, s.f.prompt)
	if s.f.json {
		if jerr := s.printJSON(res); jerr != nil && err == nil {
			err = jerr
		}
	} else if res != nil {
		fmt.Fprintln(s.stdout)
		s.spentLine(res)
	}
	var na *errNotApproved
	switch {
	case errors.As(err, &na):
		return na
	case errors.Is(err, agent.ErrBudget):
		return fmt.Errorf("stopped before paying more than --budget %s USDC: %w", s.f.budget, err)
	case err != nil:
		return callError(err)
	}
	return nil
}

// chatJSON is the --json output.
type chatJSON struct {
	OutputText  string            `json:"output_text"`
	Turns       int               `json:"turns"`
	SpentAtomic string            `json:"spent_atomic"`
	Receipts    []chatJSONReceipt `json:"receipts"`
}

type chatJSONReceipt struct {
	Transaction string `json:"transaction"`
	Amount      string `json:"amount"`
	Network     string `json:"network"`
}

func (s *chatSession) printJSON(res *agent.Result) error {
	out := chatJSON{SpentAtomic: "0", Receipts: []chatJSONReceipt{}}
	if res != nil {
		out.OutputText, out.Turns, out.SpentAtomic = res.OutputText, res.Turns, res.Spent.String()
		for _, r := range res.Receipts {
			out.Receipts = append(out.Receipts, chatJSONReceipt{Transaction: r.Transaction, Amount: r.Amount.String(), Network: r.Network})
		}
	}
	enc := json.NewEncoder(s.stdout)
	return enc.Encode(out)
}

// spentLine reports a run's cost and the session's total on stderr.
func (s *chatSession) spentLine(res *agent.Result) {
	if res.Spent.Sign() == 0 && len(res.Receipts) == 0 {
		return
	}
	last := ""
	if n := len(res.Receipts); n > 0 {
		last = "; last transaction " + sellerText(orVoucher(res.Receipts[n-1].Transaction))
	}
	cut := ""
	if c := cutOff(res); c.Sign() > 0 {
		cut = s.cancelledPayment(c) // the payment went out but its answer was cut off
	}
	fmt.Fprintf(s.stderr, "[paid %s USDC for %d answered turn(s)%s%s; session total %s USDC]\n",
		x402.FormatUSDC(new(big.Int).Sub(res.Spent, cutOff(res))), len(res.Receipts), cut, last, x402.FormatUSDC(s.agent.Spent()))
}

// orVoucher names a payment without a transaction of its own: a
// batch-settlement voucher is claimed on chain later, with others.
func orVoucher(tx string) string {
	if tx == "" {
		return "none (voucher)"
	}
	return tx
}

// show prints the loop's events: the answer on stdout as it streams, calls
// and receipts on stderr.
func (s *chatSession) show(e agent.Event) {
	switch e.Kind {
	case agent.EventTextDelta:
		fmt.Fprint(s.stdout, e.Text)
	case agent.EventCallRunning:
		fmt.Fprintf(s.stderr, "  ~ %s %s\n", sellerText(e.Call.Name), sellerText(e.Call.Arguments))
	case agent.EventCallCompleted:
		fmt.Fprintf(s.stderr, "  ✓ %s: %s\n", e.Call.Name, firstLine(e.Output))
	case agent.EventCallFailed:
		fmt.Fprintf(s.stderr, "  ✗ %s: %s\n", e.Call.Name, firstLine(e.Output))
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// approve asks the person at the terminal; a -p run has nobody to ask.
func (s *chatSession) approve(ctx context.Context, c agent.Call) (agent.Decision, error) {
	if !s.asks {
		return 0, &errNotApproved{call: c}
	}
	for {
		fmt.Fprintf(s.stderr, "  ? run %s %s — [y] once, [a] always, [n] no, [N] never: ", c.Name, c.Arguments)
		line, err := s.lines.key(ctx)
		if err != nil {
			fmt.Fprintln(s.stderr)
			return 0, err
		}
		if s.lines.tty != nil {
			fmt.Fprintln(s.stderr, line) // single keys are not echoed
		}
		switch strings.TrimSpace(line) {
		case "y", "Y", "yes":
			return agent.AllowOnce, nil
		case "a", "A", "always":
			return agent.AllowAlways, nil
		case "n", "no":
			return agent.RejectOnce, nil
		case "N", "never":
			return agent.RejectAlways, nil
		}
	}
}
