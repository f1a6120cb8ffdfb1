package agent_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/farebox/farebox/agent"
	"github.com/farebox/farebox/internal/testkit/mcptest"
	"github.com/tidwall/gjson"
)

type cityArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

// mcpTools starts the test MCP server for the test's lifetime.
func mcpTools(t *testing.T) []agent.Tool {
	t.Helper()
	mcptest.Install(t)
	s, err := agent.StartMCPCommand(context.Background(), mcptest.Command())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Tools()
}

func pick(tools []agent.Tool, names ...string) []agent.Tool {
	var out []agent.Tool
	for _, n := range names {
		for _, t := range tools {
			if t.Name == n {
				out = append(out, t)
			}
		}
	}
	return out
}

// TestLoopRunsMCPToolsInParallelAndPaysEachTurn is the done-when case
// through the package: both MCP tools run at once, both outputs go back
// in one turn, exactly two turns are paid, and the chain shows exactly that.
func TestLoopRunsMCPToolsInParallelAndPaysEachTurn(t *testing.T) {
	tools := pick(mcpTools(t), "secret_code", "lookup_city")
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "stream"}[stream], func(t *testing.T) {
			var mu sync.Mutex
			var deltas strings.Builder
			status := map[string][]agent.EventKind{}
			a, err := agent.New(agent.Config{Client: agent.NewClient(dev.url, transport(t)), Model: "farebox-scripted",
				Tools: tools, Stream: stream, OnEvent: func(e agent.Event) {
					mu.Lock()
					defer mu.Unlock()
					switch e.Kind {
					case agent.EventTextDelta:
						deltas.WriteString(e.Text)
					case agent.EventCallRunning, agent.EventCallCompleted, agent.EventCallFailed:
						status[e.Call.Name] = append(status[e.Call.Name], e.Kind)
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			before := balance(t)
			res, err := a.Ask(context.Background(), "use secret_code and lookup_city")
			if err != nil {
				t.Fatal(err)
			}
			if res.Turns != 2 || len(res.Receipts) != 2 || res.Spent.Int64() != 2*price {
				t.Fatalf("turns %d, receipts %+v, spent %s: want 2 paid turns", res.Turns, res.Receipts, res.Spent)
			}
			if spent := new(big.Int).Sub(before, balance(t)); spent.Int64() != 2*price {
				t.Fatalf("the chain shows %s spent, want %d", spent, 2*price)
			}
			for _, r := range res.Receipts {
				if !r.Success || r.Amount.Int64() != price || r.ResponseID == "" || r.Network != dev.chain.Network.CAIP2 {
					t.Errorf("receipt %+v", r)
				}
				mined(t, r.Transaction)
			}
			// history: user, call, call, output, output, answer: both outputs in one turn
			var types []string
			for _, it := range res.History {
				types = append(types, gjson.GetBytes(it, "type").String())
			}
			if strings.Join(types, ",") != "message,function_call,function_call,function_call_output,function_call_output,message" {
				t.Fatalf("history item types %v", types)
			}
			for _, want := range []string{"secret_code returned: the secret code is 7421 (ran in parallel)", "lookup_city returned: ", "(ran in parallel)"} {
				if !strings.Contains(res.OutputText, want) {
					t.Errorf("answer %q lacks %q", res.OutputText, want)
				}
			}
			if stream && deltas.String() != res.OutputText {
				t.Errorf("streamed deltas %q, answer %q", deltas.String(), res.OutputText)
			}
			for _, n := range []string{"secret_code", "lookup_city"} {
				if got := status[n]; len(got) != 2 || got[0] != agent.EventCallRunning || got[1] != agent.EventCallCompleted {
					t.Errorf("%s status events %v", n, got)
				}
			}
		})
	}
}

// TestGoFunctionToolAndToolErrors: a Go function tool with a derived schema,
// a failing MCP tool, an image result, and an unknown tool in a resumed
// history, on the free model.
func TestGoFunctionToolAndToolErrors(t *testing.T) {
	weather := agent.MustFunc("get_weather", "Current weather in a city", func(ctx context.Context, in cityArgs) (string, error) {
		if in.City == "" {
			return "", errors.New("no city")
		}
		return "sunny in " + in.City, nil
	})
	if weather.Parameters["required"].([]any)[0] != "city" {
		t.Fatalf("derived schema %v", weather.Parameters)
	}
	tools := append(pick(mcpTools(t), "broken", "snapshot"), weather)
	a, err := agent.New(agent.Config{Client: agent.NewClient(dev.url, nil), Model: "farebox-scripted-free", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Ask(context.Background(), "call get_weather, broken and snapshot")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"get_weather returned: sunny in ", "broken returned: Tool error: the disk is on fire", "snapshot returned: a red pixel [image]"} {
		if !strings.Contains(res.OutputText, want) {
			t.Errorf("answer %q lacks %q", res.OutputText, want)
		}
	}
	if res.Spent.Sign() != 0 || len(res.Receipts) != 0 {
		t.Errorf("a free model cost %s", res.Spent)
	}

	history := []agent.Item{agent.UserMessage("hi"),
		agent.Item(`{"type":"function_call","call_id":"call_x","name":"no_such_tool","arguments":"{}"}`)}
	res, err = a.Run(context.Background(), history)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.OutputText, `no_such_tool returned: Tool error: unknown tool "no_such_tool"`) || res.Turns != 1 {
		t.Errorf("resumed with an unknown tool: %q after %d turns", res.OutputText, res.Turns)
	}
}

// TestApprovals: once, always, reject once, never, and Deny; an approval
// error stops the run with the calls pending, and the run resumes.
func TestApprovals(t *testing.T) {
	var runs atomic.Int32
	echo := func(name string) agent.Tool {
		return agent.MustFunc(name, "", func(ctx context.Context, in struct{}) (string, error) {
			runs.Add(1)
			return name + " ran", nil
		})
	}
	var asked []string
	answers := map[string][]agent.Decision{"alpha": {agent.AllowAlways}, "beta": {agent.RejectOnce, agent.AllowOnce}, "gamma": {agent.RejectAlways}}
	stop := errors.New("no person to ask")
	var failNext bool
	a, err := agent.New(agent.Config{Client: agent.NewClient(dev.url, nil), Model: "farebox-scripted-free",
		Tools: []agent.Tool{echo("alpha"), echo("beta"), echo("gamma"), echo("delta")}, Deny: []string{"delta"},
		Approve: func(ctx context.Context, c agent.Call) (agent.Decision, error) {
			if failNext {
				return 0, stop
			}
			asked = append(asked, c.Name)
			d := answers[c.Name][0]
			answers[c.Name] = answers[c.Name][1:]
			return d, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	prompt := "use alpha, beta, gamma and delta"
	res, err := a.Ask(context.Background(), prompt)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"alpha returned: alpha ran", "beta returned: Tool error: the user denied this call of beta",
		"gamma returned: Tool error: the user denied", "delta returned: Tool error: the user denied"} {
		if !strings.Contains(res.OutputText, want) {
			t.Errorf("first answer %q lacks %q", res.OutputText, want)
		}
	}
	res, err = a.Ask(context.Background(), prompt) // alpha always, beta once now, gamma never
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.OutputText, "beta returned: beta ran") || !strings.Contains(res.OutputText, "gamma returned: Tool error") {
		t.Errorf("second answer %q", res.OutputText)
	}
	if strings.Join(asked, ",") != "alpha,beta,gamma,beta" || runs.Load() != 3 {
		t.Errorf("asked %v, %d runs", asked, runs.Load())
	}

	failNext = true
	res, err = a.Ask(context.Background(), "use beta")
	if !errors.Is(err, stop) || len(agent.PendingCalls(res.History)) != 1 {
		t.Fatalf("err %v, pending %v: want the run stopped with beta pending", err, agent.PendingCalls(res.History))
	}
	failNext = false
	answers["beta"] = []agent.Decision{agent.AllowOnce}
	res, err = a.Run(context.Background(), res.History)
	if err != nil || !strings.Contains(res.OutputText, "beta returned: beta ran") || res.Turns != 1 {
		t.Fatalf("resumed: %v %q after %d turns", err, res.OutputText, res.Turns)
	}
}
