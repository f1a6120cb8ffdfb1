package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// nodeVoucherWarm is how many calls the Node client makes before the timed
// ones: the first deposits (and waits for its block).
const nodeVoucherWarm = 2

// NodeVoucherResult is the official Node client's voucher calls, each timed
// in Node from fetch to the body read (the 402, signing, the paid request).
type NodeVoucherResult struct {
	Version string  `json:"x402_evm_version"`
	Warm    int     `json:"warm_calls"`
	Calls   int     `json:"calls"`
	P50us   float64 `json:"p50_us"`
	P99us   float64 `json:"p99_us"`
}

// ensureVoucherNode finds the pinned @x402 clients of bench/voucher-node, a
// workspace of the repository's package.json whose packages one `npm ci` at
// the root installs (scripts/test.sh runs it), and returns its directory and
// @x402/evm's version.
func ensureVoucherNode(ctx context.Context, root string) (string, string, error) {
	dir := filepath.Join(root, "bench", "voucher-node")
	pkg := filepath.Join(root, "node_modules", "@x402", "evm", "package.json")
	if _, err := exec.LookPath("node"); err != nil {
		return "", "", fmt.Errorf("node is not installed")
	}
	if _, err := os.Stat(pkg); err != nil {
		return "", "", fmt.Errorf("the @x402 clients are not installed: run `npm ci` at the repository root (bash scripts/test.sh does)")
	}
	b, err := os.ReadFile(pkg)
	if err != nil {
		return "", "", err
	}
	var v struct{ Version string }
	if err := json.Unmarshal(b, &v); err != nil {
		return "", "", err
	}
	return dir, v.Version, nil
}

// runNodeVoucher funds a fresh payer and has bench/voucher-node/voucher.mjs
// make that many sequential voucher calls on va's per-token model; the payer's
// charges and deposit join va's so the chain judges them with the rest.
func (h *harness) runNodeVoucher(ctx context.Context, va *voucherArm, calls int) (*NodeVoucherResult, error) {
	dir, version, err := ensureVoucherNode(ctx, h.root)
	if err != nil {
		return nil, err
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	vp := &voucherPayer{addr: crypto.PubkeyToAddress(key.PublicKey), charged: new(big.Int), deposited: new(big.Int)}
	if err := va.anvil.Fund(ctx, vp.addr, chainFunds); err != nil {
		return nil, err
	}
	if va.before[vp.addr], err = usdcBalance(ctx, va.anvil, vp.addr); err != nil {
		return nil, err
	}
	in, err := json.Marshal(map[string]any{"privateKey": hexutil.Encode(crypto.FromECDSA(key)), "url": va.url, "model": voucherModel,
		"warm": nodeVoucherWarm, "calls": calls, "asset": va.anvil.Network.Asset.Hex(), "network": chainNetwork(va.anvil).CAIP2,
		"maxAtomic": "1000", "rpcUrl": va.anvil.RPCURL})
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, "node", "voucher.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// The payer joins the judged ones whatever happened: a failed run may
	// still have deposited, and the chain must agree with what it reported.
	va.payers = append(va.payers, vp)
	var got struct {
		Ms      []float64 `json:"ms"`
		Charged []*string `json:"charged"`
		Balance *string   `json:"balance"`
	}
	if jerr := json.Unmarshal(out, &got); jerr != nil {
		return nil, fmt.Errorf("node voucher.mjs: %v %v: %s", err, jerr, lastLines(stderr.Bytes(), 5))
	}
	vp.mu.Lock()
	for _, c := range got.Charged {
		v, ok := new(big.Int), false
		if c != nil {
			v, ok = v.SetString(*c, 10)
		}
		if !ok {
			vp.bad = append(vp.bad, "a Node receipt without a chargedAmount")
			continue
		}
		vp.calls++
		vp.charged.Add(vp.charged, v)
	}
	if got.Balance != nil {
		if v, ok := new(big.Int).SetString(*got.Balance, 10); ok {
			vp.deposited, vp.deposits = v, 1
		}
	}
	vp.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("node voucher.mjs: %v: %s", err, lastLines(stderr.Bytes(), 5))
	}
	if len(got.Ms) == 0 {
		return nil, fmt.Errorf("node voucher.mjs timed no call")
	}
	ms := slices.Clone(got.Ms)
	slices.Sort(ms)
	q := func(p float64) float64 {
		d := make([]time.Duration, len(ms))
		for i, m := range ms {
			d[i] = time.Duration(m * float64(time.Millisecond))
		}
		return micros(quantile(d, p))
	}
	return &NodeVoucherResult{Version: version, Warm: nodeVoucherWarm, Calls: len(ms), P50us: q(.5), P99us: q(.99)}, nil
}
