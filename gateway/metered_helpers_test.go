package gateway_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"math/big"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/testenv"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	fb "github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/tidwall/gjson"
)

const (
	metered        = "farebox-scripted-metered"
	ceilingAtomics = 20000 // max_per_call 0.02
	inputPerMTok   = 1_250_000
	outputPerMTok  = 10_000_000
	nodeDir        = "testdata/node"
)

var (
	meteredPrice     = gateway.TokenPriceConfig{Input: "1.25", Output: "10", MaxPerCall: "0.02"}
	meteredChainOnce sync.Once
	meteredChain     *devchain.Chain
	meteredChainErr  error
)

// meteredDevChain is a dev chain with Base's 2 s blocks and an HTTP
// JSON-RPC endpoint, which the official clients read (Permit2 allowance,
// EIP-2612 nonces), shared by the tests of this file (they read balance
// differences).
func meteredDevChain(t testing.TB) *devchain.Chain {
	t.Helper()
	testenv.SkipShort(t, "a dev chain with 2 s blocks")
	meteredChainOnce.Do(func() {
		meteredChain, meteredChainErr = devchain.Start(context.Background(), devchain.Config{RPCAddr: "127.0.0.1:0", BlockTime: 2 * time.Second})
		if meteredChainErr == nil {
			afterAll(func() { meteredChain.Close() })
		}
	})
	if meteredChainErr != nil {
		t.Fatal(meteredChainErr)
	}
	return meteredChain
}

// startMetered runs farebox with the per-token scripted model (and extra
// models, in process) settling on the metered dev chain.
func startMetered(t testing.TB, extra map[string]fb.Model) (*testServer, *devchain.Chain) {
	t.Helper()
	cfg, opts, c := meteredConfig(t, extra)
	return startServer(t, cfg, opts), c
}

// meteredConfig is startMetered's configuration.
func meteredConfig(t testing.TB, extra map[string]fb.Model) (gateway.Config, gateway.Options, *devchain.Chain) {
	t.Helper()
	c := meteredDevChain(t)
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gateway.Config{
		Models: []gateway.ModelConfig{
			{Name: metered, Upstream: "scripted", PricePerMTok: &meteredPrice},
			{Name: paid, Upstream: "scripted", Price: price},
		},
		Payments: gateway.PaymentsConfig{PayTo: payTo, Networks: []string{c.Network.CAIP2}},
	}
	for name, m := range extra {
		p := meteredPrice
		cfg.Models = append(cfg.Models, gateway.ModelConfig{Name: name, Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(m), PricePerMTok: &p})
	}
	return cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready}, c
}

// freshPayer is a new key holding usdc atomic units, and ETH when eth.
func freshPayer(t testing.TB, c *devchain.Chain, usdc int64, eth bool) *ecdsa.PrivateKey {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	addr := crypto.PubkeyToAddress(key.PublicKey)
	if err := c.Fund(ctx, addr, big.NewInt(usdc)); err != nil {
		t.Fatal(err)
	}
	if eth {
		if err := c.FundETH(ctx, addr, big.NewInt(1e18)); err != nil {
			t.Fatal(err)
		}
	}
	return key
}

// approvePermit2 approves Permit2 for every dollar of key, as a wallet
// that used Permit2 before has.
func approvePermit2(t testing.TB, c *devchain.Chain, key *ecdsa.PrivateKey) {
	t.Helper()
	tr, err := evm.NewTransactor(context.Background(), c.Client, key)
	if err != nil {
		t.Fatal(err)
	}
	maxUint := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	asset := c.Network.Asset
	if _, err := tr.Send(context.Background(), &asset, contracts.NewFareboxUSDv2().PackApprove(contracts.CanonicalPermit2, maxUint), nil); err != nil {
		t.Fatal(err)
	}
}

// installNode finds the official clients of nodeDir (chaintest.NodeClients).
func installNode(t testing.TB) {
	t.Helper()
	if err := chaintest.NodeClients(t, nodeDir); err != nil {
		t.Fatal(err)
	}
}

// nodePaid is what pay.mjs saw of one call paid with @x402/fetch and the
// official UptoEvmScheme.
type nodePaid struct {
	Status   int           `json:"status"`
	Body     string        `json:"body"`
	Receipt  *x402.Receipt `json:"receipt"`
	Payments int           `json:"payments"`
	Header   string        `json:"header"`
	Sent     string        `json:"sent"`
}

// payUpto posts body to farebox through @x402/fetch paying with upto.
func payUpto(t testing.TB, ts *testServer, c *devchain.Chain, key *ecdsa.PrivateKey, body map[string]any) nodePaid {
	t.Helper()
	installNode(t)
	in, _ := json.Marshal(map[string]any{
		"privateKey": "0x" + common.Bytes2Hex(crypto.FromECDSA(key)), "url": ts.URL + "/responses", "body": body,
		"asset": c.Network.Asset.Hex(), "network": c.Network.CAIP2, "maxAtomic": "20000", "rpcUrl": c.RPCURL,
	})
	cmd := exec.Command("node", "pay.mjs")
	cmd.Dir = nodeDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pay.mjs: %v\n%s", err, stderr.String())
	}
	var p nodePaid
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("pay.mjs answered %s: %v", out, err)
	}
	return p
}

// expectedCharge is ceil((in*inP + out*outP)/1e6), capped at the ceiling,
// from the usage the response reports.
func expectedCharge(t testing.TB, body string) int64 {
	t.Helper()
	in, out := gjson.Get(body, "usage.input_tokens").Int(), gjson.Get(body, "usage.output_tokens").Int()
	if in == 0 || out == 0 {
		t.Fatalf("no usage in %s", body)
	}
	return min((in*inputPerMTok+out*outputPerMTok+999_999)/1_000_000, ceilingAtomics)
}

func addressOf(key *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(key.PublicKey) }

// headerHas reports whether the decoded payment header has path.
func headerHas(t testing.TB, header, path string) bool {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		t.Fatal(err)
	}
	return gjson.GetBytes(raw, path).Exists()
}

// checkMinedTx asserts the transaction was mined and succeeded.
func checkMinedTx(t testing.TB, c *devchain.Chain, tx string) {
	t.Helper()
	settledBalances(t, c)
	rec, err := c.Client.TransactionReceipt(context.Background(), common.HexToHash(tx))
	if err != nil || rec.Status != 1 {
		t.Fatalf("transaction %s: %v %+v", tx, err, rec)
	}
}

// permit2NonceUsed reads Permit2's bitmap for the nonce of an upto header.
func permit2NonceUsed(t testing.TB, c *devchain.Chain, header string) bool {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		t.Fatal(err)
	}
	nonce, ok := new(big.Int).SetString(gjson.GetBytes(raw, "payload.permit2Authorization.nonce").String(), 10)
	if !ok {
		t.Fatalf("no nonce in %s", raw)
	}
	from := common.HexToAddress(gjson.GetBytes(raw, "payload.permit2Authorization.from").String())
	p2 := contracts.NewPermit2()
	permit2 := contracts.CanonicalPermit2
	out, err := c.Client.CallContract(context.Background(), ethereum.CallMsg{To: &permit2,
		Data: p2.PackNonceBitmap(from, new(big.Int).Rsh(nonce, 8))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bitmap, err := p2.UnpackNonceBitmap(out)
	if err != nil {
		t.Fatal(err)
	}
	return bitmap.Bit(int(nonce.Uint64()&0xff)) == 1
}
