package main

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// TestMeteredFirstCallsSurviveADevRestart runs the README's metered first
// calls as printed (the dev payer, no --rpc-url), restarts `farebox dev`,
// whose chain is new, and calls again: the payer's record of the channel on
// the old chain is set aside (kept on disk), the call deposits again and is
// served, and the new chain's escrow holds exactly the new deposit. With
// --rpc-url on every call the record is told apart by its chain's genesis
// before anything is sent.
func TestMeteredFirstCallsSurviveADevRestart(t *testing.T) {
	t.Run("without --rpc-url", func(t *testing.T) { meteredCallsAcrossARestart(t, false) })
	t.Run("with --rpc-url", func(t *testing.T) { meteredCallsAcrossARestart(t, true) })
}

func meteredCallsAcrossARestart(t *testing.T, withRPC bool) {
	ctx := context.Background()
	dir := t.TempDir()
	var rpcFlag []string
	call := func(base string, args ...string) string {
		t.Helper()
		args = append(append([]string{"--base-url", base, "--channels", dir, "--model", DevMeteredModel, "--max-price", "0.01"}, rpcFlag...), args...)
		out, err := callWith(t, "", args...)
		if err != nil {
			t.Fatalf("farebox call %v: %v\n%s", args, err, out)
		}
		return out
	}
	channelRe := regexp.MustCompile(`channel=(0x[0-9a-fA-F]{64})`)

	stop, banner := startDevCommand(t)
	if withRPC {
		rpcFlag = []string{"--rpc-url", field(t, banner, `chain RPC\s+(\S+)`)}
	}
	out := call(field(t, banner, `base URL\s+(\S+)`), "--max-deposit", "0.05", "hello")
	if !strings.Contains(out, "deposited=0.05 USDC") {
		t.Fatalf("the first call made no deposit of 0.05 USDC:\n%s", out)
	}
	first := channelRe.FindStringSubmatch(out)[1]
	stop()

	_, banner = startDevCommand(t)
	base := field(t, banner, `base URL\s+(\S+)`)
	if withRPC {
		rpcFlag = []string{"--rpc-url", field(t, banner, `chain RPC\s+(\S+)`)}
	}
	rpc, err := ethclientDial(ctx, field(t, banner, `chain RPC\s+(\S+)`))
	if err != nil {
		t.Fatal(err)
	}
	token := common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`))
	payerAddr := common.HexToAddress(field(t, banner, `address\s+(0x[0-9a-fA-F]{40})`))
	payerBefore := tokenBalance(t, rpc, token, payerAddr)
	escrowBefore := tokenBalance(t, rpc, token, contracts.CanonicalBatchSettlement)

	out = call(base, "--max-deposit", "0.05", "hello again")
	if !strings.Contains(out, "You said: hello again") || !strings.Contains(out, "deposited=0.05 USDC") {
		t.Fatalf("after the restart the call was not served with a new deposit:\n%s", out)
	}
	awaitRelayer(t, rpc, devRelayer)
	if got := new(big.Int).Sub(tokenBalance(t, rpc, token, contracts.CanonicalBatchSettlement), escrowBefore); got.Int64() != 50_000 {
		t.Errorf("the new chain's escrow grew by %s, want the new deposit 50000", got)
	}
	if spent := new(big.Int).Sub(payerBefore, tokenBalance(t, rpc, token, payerAddr)); spent.Int64() != 50_000 {
		t.Errorf("the payer spent %s on the new chain, want the deposit 50000", spent)
	}
	// The next call is a voucher on the new channel: no deposit.
	if out := call(base, "once more"); strings.Contains(out, "deposited=") || !strings.Contains(out, "transaction=none (voucher)") {
		t.Errorf("the call after the new deposit was not a voucher:\n%s", out)
	}

	// The old chain's record is kept, set aside, not deleted.
	var kept []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, string(filepath.Separator)+"set-aside"+string(filepath.Separator)) {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(strings.ToLower(string(b)), strings.ToLower(first)) {
				kept = append(kept, p)
			}
		}
		return nil
	})
	if len(kept) == 0 {
		t.Errorf("no set-aside record of channel %s under %s", first, dir)
	}
}
