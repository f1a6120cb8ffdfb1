package main

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/farebox/farebox/internal/testkit/mcptest"
)

// chatDev is a running `farebox dev` and a reader of its chain.
type chatDev struct {
	base  string
	rpc   *ethclient.Client
	token common.Address
	payer common.Address
}

// startChatDev runs `farebox dev` (ephemeral ports, plus extra flags)
// until the test ends.
func startChatDev(t *testing.T, extra ...string) *chatDev {
	t.Helper()
	_, banner := startDevCommand(t, extra...)
	ctx := context.Background()
	rpc, err := ethclientDial(ctx, field(t, banner, `chain RPC\s+(\S+)`))
	if err != nil {
		t.Fatal(err)
	}
	return &chatDev{base: field(t, banner, `base URL\s+(\S+)`), rpc: rpc,
		token: common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`)),
		payer: common.HexToAddress(field(t, banner, `address\s+(0x[0-9a-fA-F]{40})`))}
}

func (d *chatDev) balance(t *testing.T) *big.Int {
	t.Helper()
	awaitRelayer(t, d.rpc, devRelayer)
	data := append(common.FromHex("0x70a08231"), common.LeftPadBytes(d.payer.Bytes(), 32)...)
	res, err := d.rpc.CallContract(context.Background(), ethereum.CallMsg{To: &d.token, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(res)
}

// chat runs `farebox chat ARGS` in process from the MCP server's folder,
// so --mcp "node server.js" is the command a user types there.
func (d *chatDev) chat(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut syncBuffer
	err = run(context.Background(), append([]string{"chat", "--base-url", d.base}, args...), &out, &errOut, func(string) string { return "" })
	return out.String(), errOut.String(), err
}

// TestChatDoneWhen is farebox chat's acceptance run: both MCP tools run in
// parallel, both outputs go back in one turn, exactly two turns are paid,
// and the chain shows exactly that.
func TestChatDoneWhen(t *testing.T) {
	mcptest.Install(t)
	t.Chdir(mcptest.Dir())
	d := startChatDev(t)
	before := d.balance(t)
	stdout, stderr, err := d.chat(t, "-p", "use secret_code and lookup_city", "--mcp", "node server.js", "--yes", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &keys); err != nil || len(keys) != 4 {
		t.Fatalf("stdout is not one JSON object with four keys: %v\n%s", err, stdout)
	}
	var out struct {
		OutputText  string `json:"output_text"`
		Turns       int    `json:"turns"`
		SpentAtomic string `json:"spent_atomic"`
		Receipts    []struct {
			Transaction, Amount, Network string
		} `json:"receipts"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Turns != 2 || out.SpentAtomic != "2000" || len(out.Receipts) != 2 {
		t.Fatalf("turns %d, spent %s, receipts %+v: want two paid turns", out.Turns, out.SpentAtomic, out.Receipts)
	}
	for _, r := range out.Receipts {
		mr := awaitMined(t, d.rpc, common.HexToHash(r.Transaction))
		if mr.Status != 1 || r.Amount != "1000" || r.Network != "eip155:1337" {
			t.Fatalf("receipt %+v", r)
		}
	}
	if spent := new(big.Int).Sub(before, d.balance(t)); spent.Int64() != 2000 {
		t.Fatalf("the chain shows %s spent, want 2000", spent)
	}
	// The model quotes the outputs of the last round: both are there, and
	// each tool saw the other running.
	for _, want := range []string{"secret_code returned: the secret code is 7421 (ran in parallel)", "lookup_city returned: ", "people (ran in parallel)"} {
		if !strings.Contains(out.OutputText, want) {
			t.Errorf("output_text %q lacks %q", out.OutputText, want)
		}
	}
}

// TestChatDenyBudgetAndNoApproval: --deny tells the model; --budget stops
// before the payment that would exceed it; a -p run without --yes does not
// run a tool and says why. The chain judges each.
func TestChatDenyBudgetAndNoApproval(t *testing.T) {
	mcptest.Install(t)
	t.Chdir(mcptest.Dir())
	t.Setenv("MCP_TOGETHER", "1") // one tool runs alone here
	d := startChatDev(t)
	spentBy := func(f func()) int64 {
		before := d.balance(t)
		f()
		return new(big.Int).Sub(before, d.balance(t)).Int64()
	}

	var stdout, stderr string
	var err error
	if spent := spentBy(func() {
		stdout, stderr, err = d.chat(t, "-p", "use secret_code and lookup_city", "--mcp", "node server.js", "--yes", "--deny", "secret_code")
	}); err != nil || spent != 2000 {
		t.Fatalf("--deny: %v, spent %d\n%s", err, spent, stderr)
	}
	if !strings.Contains(stdout, "secret_code returned: Tool error: the user denied this call of secret_code") ||
		!strings.Contains(stdout, "lookup_city returned: ") || strings.Contains(stdout, "7421") {
		t.Errorf("--deny answer:\n%s", stdout)
	}

	if spent := spentBy(func() {
		stdout, stderr, err = d.chat(t, "-p", "use secret_code", "--mcp", "node server.js", "--yes", "--budget", "0.0015", "--json")
	}); err == nil || spent != 1000 {
		t.Fatalf("--budget: err %v, spent %d: want a refusal after one turn", err, spent)
	}
	if !strings.Contains(err.Error(), "--budget 0.0015 USDC") || !strings.Contains(err.Error(), "over the budget") {
		t.Errorf("--budget error: %v", err)
	}
	if !strings.Contains(stdout, `"spent_atomic":"1000"`) {
		t.Errorf("--budget JSON: %s", stdout)
	}

	if spent := spentBy(func() {
		stdout, stderr, err = d.chat(t, "-p", "use secret_code", "--mcp", "node server.js")
	}); err == nil || spent != 1000 {
		t.Fatalf("no approval: err %v, spent %d: want one paid turn, then a stop", err, spent)
	}
	var na *errNotApproved
	if !errors.As(err, &na) || !strings.Contains(err.Error(), "secret_code was not run") || !strings.Contains(err.Error(), "--yes") {
		t.Errorf("no approval error: %v", err)
	}
	if strings.Contains(stdout+stderr, "7421") {
		t.Errorf("the unapproved tool ran:\n%s\n%s", stdout, stderr)
	}
}
