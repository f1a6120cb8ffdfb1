package service_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"math/big"
	"os"
	"os/exec"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/tidwall/gjson"
)

// nodeDir holds the official clients (package x402/channel's test clients).
const nodeDir = "../testdata/node"

// installClients finds the official clients of nodeDir (chaintest.NodeClients).
func installClients(t *testing.T) {
	t.Helper()
	if err := chaintest.NodeClients(t, nodeDir); err != nil {
		t.Fatal(err)
	}
}

// client is one official BatchSettlementEvmScheme in a node process
// (session.mjs), keeping its own channel storage across requests.
type client struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Scanner
}

func newClient(t *testing.T, key *ecdsa.PrivateKey, rpcURL string) *client {
	t.Helper()
	cmd := exec.Command("node", "session.mjs")
	cmd.Dir = nodeDir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	c := &client{t: t, in: in, out: bufio.NewScanner(out)}
	c.out.Buffer(make([]byte, 1<<20), 1<<20)
	c.write(map[string]any{"privateKey": hexutil.Encode(crypto.FromECDSA(key)), "rpcUrl": rpcURL})
	return c
}

func (c *client) write(m any) {
	c.t.Helper()
	b, _ := json.Marshal(m)
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) read() gjson.Result {
	c.t.Helper()
	if !c.out.Scan() {
		c.t.Fatalf("the official client ended: %v", c.out.Err())
	}
	r := gjson.ParseBytes(c.out.Bytes())
	if e := r.Get("error"); e.Exists() {
		c.t.Fatalf("the official client failed: %s", e.String())
	}
	return r
}

func decode(t *testing.T, raw string) *channel.Payload {
	t.Helper()
	p, err := channel.DecodePayload([]byte(raw))
	if err != nil {
		t.Fatalf("decoding the official payload: %v\n%s", err, raw)
	}
	return p
}

// pay asks the client to pay for requirement accept.
func (c *client) pay(accept json.RawMessage) *channel.Payload {
	c.t.Helper()
	c.write(map[string]any{"op": "pay", "requirements": accept})
	return decode(c.t, c.read().Get("payload").Raw)
}

// receive hands the client the server's receipt, as its HTTP hooks would,
// and returns the channel the client now remembers.
func (c *client) receive(accept json.RawMessage, p *channel.Payload, rc *channel.Receipt, raw string) gjson.Result {
	c.t.Helper()
	c.write(map[string]any{"op": "response", "requirements": accept, "payload": json.RawMessage(raw), "receipt": rc})
	return c.read().Get("channel")
}

// rig is anvil with the canonical contracts and Circle's USDC, a relayer
// (the receiver authorizer) and a batch-settlement requirement.
type rig struct {
	a        *chaintest.Anvil
	settler  *evm.Settler
	c        *channel.Contracts
	receiver common.Address
	req      *x402.Requirement
}

func newRig(t *testing.T, ctx context.Context, opts ...chaintest.Option) *rig {
	t.Helper()
	installClients(t)
	a := chaintest.StartAnvil(t, opts...)
	chainID := big.NewInt(chaintest.ChainID)
	if err := contracts.InstallCanonical(ctx, a.Client.Client(), chainID); err != nil {
		t.Fatal(err)
	}
	key, err := a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	settler, err := evm.NewSettler(ctx, a.Client, key)
	if err != nil {
		t.Fatal(err)
	}
	d := contracts.Canonical()
	var receiverKey, _ = crypto.GenerateKey()
	r := &rig{a: a, settler: settler, receiver: crypto.PubkeyToAddress(receiverKey.PublicKey),
		c: channel.NewContracts(chainID, d.BatchSettlement, d.ERC3009DepositCollector, d.Permit2DepositCollector, d.Permit2)}
	r.req = &x402.Requirement{Scheme: channel.Scheme, Network: a.Network, Amount: big.NewInt(2500), PayTo: r.receiver, MaxTimeoutSeconds: 300}
	return r
}

// service makes a Service on store with the rig's chain and relayer.
func (r *rig) service(t *testing.T, store service.Store, edit func(*service.Config)) *service.Service {
	t.Helper()
	cfg := service.Config{Contracts: r.c, Receiver: r.receiver, MinDeposit: big.NewInt(40 * 2500),
		Chain: r.a.Client, Relayer: r.settler, Store: store}
	if edit != nil {
		edit(&cfg)
	}
	s, err := service.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (r *rig) accept(s *service.Service) json.RawMessage {
	return channel.Accept(r.req, s.Terms(), nil)
}

// usdc is who's USDC balance on chain.
func (r *rig) usdc(t *testing.T, ctx context.Context, who common.Address) int64 {
	t.Helper()
	tok := contracts.NewFareboxUSDv2() // balanceOf is ERC-20's
	out, err := r.a.Client.CallContract(ctx, ethereum.CallMsg{To: &r.a.Network.Asset, Data: tok.PackBalanceOf(who)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := tok.UnpackBalanceOf(out)
	return v.Int64()
}

// payer is a fresh key holding funds USDC.
func (r *rig) payer(t *testing.T, ctx context.Context, funds int64) *ecdsa.PrivateKey {
	t.Helper()
	key, _ := crypto.GenerateKey()
	if err := r.a.Fund(ctx, crypto.PubkeyToAddress(key.PublicKey), funds); err != nil {
		t.Fatal(err)
	}
	return key
}

// paid runs one request: the client pays, the service begins, commits
// charge, and the client takes the receipt. It returns the receipt.
func paid(t *testing.T, ctx context.Context, s *service.Service, cl *client, accept json.RawMessage, req *x402.Requirement, charge int64) (*channel.Receipt, *channel.Payload) {
	t.Helper()
	c := cl
	c.write(map[string]any{"op": "pay", "requirements": accept})
	raw := c.read().Get("payload").Raw
	p := decode(t, raw)
	call, err := s.Begin(ctx, p, req, nil)
	if err != nil {
		t.Fatalf("Begin (%s): %v", p.Type, err)
	}
	defer call.Abort(ctx)
	rc, err := call.Commit(ctx, big.NewInt(charge))
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	cl.receive(accept, p, rc, raw)
	return rc, p
}

func withTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

const gjsonNull = gjson.Null

func dec(v int64) string { return big.NewInt(v).String() }
