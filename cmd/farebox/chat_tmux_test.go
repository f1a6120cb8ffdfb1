package main

import (
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/mcptest"
	"github.com/farebox/farebox/internal/testkit/testenv"
)

// ensureTmux skips under -short; else it fails unless tmux is installed
// (scripts/test.sh installs it).
func ensureTmux(t *testing.T) {
	t.Helper()
	testenv.SkipShort(t, "tmux and a built farebox")
	if _, err := testenv.Binary("tmux", "tmux"); err != nil {
		t.Fatal(err)
	}
}

// pane is a chat running in a real terminal: a tmux session on a private
// socket.
type pane struct {
	t      *testing.T
	socket string
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p *pane) screen() string { return p.tmux("capture-pane", "-p", "-J", "-S", "-500", "-t", "chat") }

// send types keys; "Enter" and "C-c" are keys, anything else literal text.
func (p *pane) send(keys ...string) {
	for _, k := range keys {
		if k == "Enter" || k == "C-c" {
			p.tmux("send-keys", "-t", "chat", k)
		} else {
			p.tmux("send-keys", "-t", "chat", "-l", k)
		}
	}
}

// waitCount waits until the screen shows want at least n times.
func (p *pane) waitCount(want string, n int) {
	p.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Count(p.screen(), want) >= n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("the terminal never showed %q %d times:\n%s", want, n, p.screen())
}

// TestChatInteractiveInTmux drives `farebox chat` in a real terminal:
// approvals (always, no), streamed answers, the running total, Ctrl-C
// during a turn (the session stays usable and /retry resumes the pending
// call), Ctrl-C at the prompt, /exit. The chain judges what was paid.
func TestChatInteractiveInTmux(t *testing.T) {
	ensureTmux(t)
	mcptest.Install(t)
	pkg, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "farebox")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = pkg
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	d := startChatDev(t)
	before := d.balance(t)

	p := &pane{t: t, socket: fmt.Sprintf("farebox-chat-%d", os.Getpid())}
	cmd := fmt.Sprintf("cd %s && env -u FAREBOX_PAYER_KEY MCP_TOGETHER=1 %s chat --base-url %s --mcp 'node server.js'; echo CHAT-EXITED=$?; sleep 600",
		mcptest.Dir(), bin, d.base)
	p.tmux("new-session", "-d", "-s", "chat", "-x", "220", "-y", "60", cmd)
	t.Cleanup(func() { exec.Command("tmux", "-L", p.socket, "kill-server").Run() })

	p.waitCount("> ", 1)
	p.send("use secret_code and lookup_city", "Enter")
	p.waitCount("? run secret_code {}", 1)
	p.send("a", "Enter")
	p.waitCount("? run lookup_city", 1)
	p.send("n", "Enter")
	p.waitCount("[paid 0.002 USDC for 2 answered turn(s)", 1)
	s := p.screen()
	for _, want := range []string{"secret_code returned: the secret code is 7421", "lookup_city returned: Tool error: the user denied this call of lookup_city",
		"session total 0.002 USDC"} {
		if !strings.Contains(s, want) {
			t.Fatalf("screen lacks %q:\n%s", want, s)
		}
	}

	// Ctrl-C while the turn waits for an approval: cancelled, call pending.
	p.send("use lookup_city", "Enter")
	p.waitCount("? run lookup_city", 2)
	p.send("C-c")
	p.waitCount("[turn cancelled; 1 call(s) pending", 1)
	p.waitCount("> ", 3)
	p.send("/retry", "Enter")
	p.waitCount("Pay? y/N]", 1)
	p.send("y")
	p.waitCount("? run lookup_city", 3)
	p.send("y", "Enter")
	p.waitCount("lookup_city returned: Paris has 2.1 million people", 1) // the MCP server outlived the Ctrl-C
	p.waitCount("session total 0.004 USDC", 1)

	// Ctrl-C at the prompt does not end the session.
	p.send("C-c")
	p.waitCount("(Ctrl-D or /exit quits)", 1)
	p.send("use secret_code", "Enter") // always allowed: no question
	p.waitCount("session total 0.006 USDC", 1)
	p.waitCount("secret_code returned: the secret code is 7421", 2)
	if strings.Contains(p.screen(), "✗ secret_code") || strings.Contains(p.screen(), "connection closed") {
		t.Errorf("a tool failed:\n%s", p.screen())
	}
	if n := strings.Count(p.screen(), "? run secret_code"); n != 1 {
		t.Errorf("secret_code was asked about %d times after [a]lways", n)
	}
	p.send("/exit", "Enter")
	p.waitCount("CHAT-EXITED=0", 1)
	if spent := new(big.Int).Sub(before, d.balance(t)); spent.Int64() != 6000 {
		t.Fatalf("the chain shows %s spent, want 6000 (six paid turns)", spent)
	}
}
