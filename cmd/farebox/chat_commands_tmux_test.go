package main

import (
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/testkit/mcptest"
)

// startChatPane builds farebox and runs `farebox chat --base-url base
// --mcp 'node server.js'` in a tmux terminal, from the MCP server's folder.
func startChatPane(t *testing.T, base string, extra ...string) *pane {
	t.Helper()
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
	p := &pane{t: t, socket: fmt.Sprintf("farebox-chatcmd-%d", os.Getpid())}
	cmd := fmt.Sprintf("cd %s && env -u FAREBOX_PAYER_KEY MCP_TOGETHER=1 %s chat --base-url %s --mcp 'node server.js' %s; echo CHAT-EXITED=$?; sleep 600",
		mcptest.Dir(), bin, base, strings.Join(extra, " "))
	p.tmux("new-session", "-d", "-s", "chat", "-x", "220", "-y", "60", cmd)
	t.Cleanup(func() { exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

// TestChatSlashCommandsNeverPay drives `farebox chat` in a real terminal:
// the banner lists the MCP tools with their source; /help, an unknown
// command and /retry with nothing unfinished are answered here and leave
// the payer's balance on chain untouched; an approval takes one key
// (no Enter); a turn cancelled mid-answer says what was signed for it,
// and /retry resumes it saying what it costs and asking y/N; "//" sends a prompt starting
// with "/". The chain judges every step.
func TestChatSlashCommandsNeverPay(t *testing.T) {
	d := startChatDev(t, "--pace", "150ms")
	before := d.balance(t)
	spent := func() int64 { return new(big.Int).Sub(before, d.balance(t)).Int64() }

	p := startChatPane(t, d.base)
	p.waitCount("> ", 1)
	s := p.screen()
	if !strings.Contains(s, "secret_code") || !strings.Contains(s, "lookup_city") || !strings.Contains(s, "(mcp: node server.js)") {
		t.Fatalf("the banner does not list the MCP tools with their source:\n%s", s)
	}

	p.send("/help", "Enter")
	p.waitCount("commands (local, never paid)", 1)
	p.send("/retry", "Enter")
	p.waitCount("[nothing to resume: no turn yet; nothing was paid]", 1)
	p.send("/weather in paris", "Enter")
	p.waitCount("[unknown command /weather: /help lists the commands", 1)
	if n := spent(); n != 0 {
		t.Fatalf("slash commands moved %d atomic units on chain", n)
	}

	// A single key approves: no Enter is typed.
	p.send("use secret_code", "Enter")
	p.waitCount("? run secret_code {}", 1)
	p.send("y")
	p.waitCount("secret_code returned: the secret code is 7421", 1)
	p.waitCount("[paid 0.002 USDC for 2 answered turn(s)", 1)
	p.send("/retry", "Enter")
	p.waitCount("[nothing to resume: the last turn finished; nothing was paid", 1)
	if n := spent(); n != 2000 {
		t.Fatalf("after one answered prompt (two turns) and /retry the chain shows %d spent, want 2000", n)
	}
	// "//" sends a prompt that starts with "/": a paid turn, asked for.
	p.send("//etc/hosts is a file", "Enter")
	p.waitCount("You said: /etc/hosts is a file", 1)
	p.waitCount("session total 0.003 USDC", 1)

	// Ctrl-C mid-answer: the line says what was signed for the cut-off turn.
	p.send("tell me everything you know about paying for language models by the token", "Enter")
	p.waitCount("You said: tell me", 1)
	p.send("C-c")
	p.waitCount("[turn cancelled; 0 call(s) pending", 1)
	if s := p.screen(); !strings.Contains(s, "plus 0.001 USDC for the cancelled turn: settled (its answer had started") {
		t.Fatalf("the cancelled turn does not say its payment was settled:\n%s", s)
	}
	// /retry states the cost and asks: no (the default) pays nothing.
	p.send("/retry", "Enter")
	p.waitCount("[resume: the last prompt got no answer; one more paid turn, up to 0.001 USDC. Pay? y/N]", 1)
	p.send("n")
	p.waitCount("[not resumed; nothing was paid]", 1)
	if n := spent(); n != 4000 {
		t.Fatalf("after a declined /retry the chain shows %d spent, want 4000", n)
	}
	p.send("/retry", "Enter")
	p.waitCount("Pay? y/N]", 2)
	p.send("y")
	p.waitCount("[paid 0.001 USDC for 1 answered turn(s)", 1)
	p.send("/exit", "Enter")
	p.waitCount("CHAT-EXITED=0", 1)
	// Three turns, the cancelled stream (settled: its answer had started), the retry.
	if n := spent(); n != 5000 {
		t.Fatalf("the chain shows %d spent, want 5000", n)
	}
}

// TestChatRetryWithYesStatesTheCostWithoutAsking: with --yes, /retry of a
// cancelled turn says what it costs and resumes at once; the chain shows
// the cancelled (settled) turn and the retry.
func TestChatRetryWithYesStatesTheCostWithoutAsking(t *testing.T) {
	d := startChatDev(t, "--pace", "150ms")
	before := d.balance(t)
	p := startChatPane(t, d.base, "--yes")
	p.waitCount("> ", 1)
	p.send("tell me everything you know about paying for language models by the token", "Enter")
	p.waitCount("You said: tell me", 1)
	p.send("C-c")
	p.waitCount("[turn cancelled; 0 call(s) pending", 1)
	p.send("/retry", "Enter")
	p.waitCount("[resuming: the last prompt got no answer; one more paid turn, up to 0.001 USDC]", 1)
	p.waitCount("[paid 0.001 USDC for 1 answered turn(s)", 1)
	if strings.Contains(p.screen(), "Pay? y/N") {
		t.Errorf("--yes still asked:\n%s", p.screen())
	}
	p.send("/exit", "Enter")
	p.waitCount("CHAT-EXITED=0", 1)
	if spent := new(big.Int).Sub(before, d.balance(t)).Int64(); spent != 2000 {
		t.Fatalf("the chain shows %d spent, want 2000 (the settled cancelled turn and the retry)", spent)
	}
}
