package settle_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	storebolt "github.com/farebox/farebox/store/bolt"
	"math/big"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// crashEnv carries a crashOrder to the test binary run as a child process.
const crashEnv = "FAREBOX_SETTLE_CRASH"

// crashOrder is what the child does before it kills itself.
type crashOrder struct {
	RPC, Dir, Point string // Point: "signed" (journaled, never sent) or "sent"
	RelayerKey      string
	ChainID         int64
	Asset           common.Address
	TokenName       string
	TokenVersion    string
	Header          string // the payment header
	Amount          int64
	PayTo           common.Address
	Body            string
}

// crashSettler sends transferWithAuthorization from its own relayer and
// dies with SIGKILL right after onSigned ("signed") or after the node took
// the transaction ("sent"): the two moments a crash test kills farebox at.
type crashSettler struct {
	client *ethclient.Client
	key    string
	point  string
}

func (c *crashSettler) Settle(ctx context.Context, p *x402.Payment, req *x402.Requirement) (*x402.Receipt, error) {
	return c.Broadcast(ctx, p, req, func(common.Hash) error { return nil })
}

func (c *crashSettler) Broadcast(ctx context.Context, p *x402.Payment, req *x402.Requirement, onSigned func(common.Hash) error) (*x402.Receipt, error) {
	key, err := crypto.HexToECDSA(c.key)
	if err != nil {
		return nil, err
	}
	nonce, err := c.client.PendingNonceAt(ctx, crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		return nil, err
	}
	gasPrice, err := c.client.SuggestGasPrice(ctx)
	if err != nil {
		return nil, err
	}
	a := &p.Authorization
	var r, s [32]byte
	copy(r[:], p.Signature[:32])
	copy(s[:], p.Signature[32:64])
	asset := req.Network.Asset
	data := tok.PackTransferWithAuthorization0(a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, p.Signature[64], r, s)
	from := crypto.PubkeyToAddress(key.PublicKey)
	gas, err := c.client.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &asset, Data: data})
	if err != nil {
		return nil, err
	}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(req.Network.ChainID), &types.LegacyTx{Nonce: nonce,
		GasPrice: new(big.Int).Mul(gasPrice, big.NewInt(2)), Gas: gas * 3 / 2, To: &asset, Data: data})
	if err != nil {
		return nil, err
	}
	if err := onSigned(tx.Hash()); err != nil {
		return nil, err
	}
	if c.point == "signed" {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	if err := c.client.SendTransaction(ctx, tx); err != nil {
		return nil, err
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

func (c *crashSettler) Await(context.Context, common.Hash, *x402.Payment) error {
	return errors.New("unused")
}

func (c *crashSettler) AuthorizationUsed(context.Context, *x402.Payment, *x402.Requirement) (bool, error) {
	return false, errors.New("unused")
}

// crashChild runs one paid call through an engine on a bbolt journal and
// dies inside Settle.
func crashChild(raw string) {
	var o crashOrder
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		panic(err)
	}
	ctx := context.Background()
	client, err := ethclient.DialContext(ctx, o.RPC)
	if err != nil {
		panic(err)
	}
	j, err := storebolt.OpenJournal(o.Dir, 0)
	if err != nil {
		panic(err)
	}
	e, err := settle.NewEngine(settle.Config{Journal: j, Settler: &crashSettler{client: client, key: o.RelayerKey, point: o.Point}})
	if err != nil {
		panic(err)
	}
	n := x402.NewNetwork("", "", big.NewInt(o.ChainID), o.Asset, o.TokenName, o.TokenVersion)
	pay, err := x402.DecodePayment(o.Header, 2)
	if err != nil {
		panic(err)
	}
	req := &x402.Requirement{Scheme: "exact", Network: n, Amount: big.NewInt(o.Amount), PayTo: o.PayTo}
	p, err := e.Begin(ctx, settle.Purchase{Payment: pay, Requirement: req, BodyHash: sha256.Sum256([]byte(o.Body))})
	if err != nil {
		panic(err)
	}
	_, err = p.Settle(ctx)
	panic(err) // Settle never returns: the process dies inside it
}

// farebox is SIGKILLed inside Settle, once right after the journal write
// (the transaction was signed, never sent) and once right after the node
// took the transaction; the next process resumes from the bbolt file, and
// the client's retry of the same request is served with a receipt naming
// the transaction that charged it, exactly once on chain.
func TestSIGKILLInsideSettle(t *testing.T) {
	for _, point := range []string{"signed", "sent"} {
		t.Run(point, func(t *testing.T) {
			ctx := context.Background()
			b := newBuyer(t, 10*price)
			relayer, _ := crypto.GenerateKey()
			if err := chain.FundETH(ctx, crypto.PubkeyToAddress(relayer.PublicKey), big.NewInt(params.Ether)); err != nil {
				t.Fatal(err)
			}
			pay := b.pay(t)
			header, err := x402.EncodePayment(pay, b.req)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			order, _ := json.Marshal(crashOrder{RPC: chain.RPCURL, Dir: dir, Point: point,
				RelayerKey: common.Bytes2Hex(crypto.FromECDSA(relayer)), ChainID: chain.Network.ChainID.Int64(),
				Asset: chain.Network.Asset, TokenName: chain.Network.Name, TokenVersion: chain.Network.Version,
				Header: header, Amount: price, PayTo: b.req.PayTo, Body: "the request"})
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), crashEnv+"="+string(order))
			out, err := cmd.CombinedOutput()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the child did not die by SIGKILL: %v %v\n%s", cmd.ProcessState, err, out)
			}

			j, err := storebolt.OpenJournal(dir, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			left, err := j.Get(ctx, pay.Key(chain.Network))
			if err != nil || left.State != settle.Settling || left.Tx == (common.Hash{}) {
				t.Fatalf("the dead process left %+v, %v; want a settling entry with its transaction", left, err)
			}
			// The dev chain spaces bursts of blocks a second apart: give the
			// sent transaction time to be mined before it counts as lost.
			wait := 15 * time.Second
			if point == "signed" {
				wait = 2 * time.Second // it was never sent: no need to wait long
			}
			e, ev := newEngine(t, settle.Config{Journal: j, AwaitTimeout: wait, RetryInterval: 100 * time.Millisecond})
			if n, err := e.Resume(ctx); n != 1 || err != nil {
				t.Fatalf("Resume = %d, %v", n, err)
			}
			ev.await(t, settle.EventConfirmed, left.Name())
			again, err := e.Begin(ctx, b.purchase(pay, "the request"))
			if err != nil || !again.Replay() {
				t.Fatalf("the client's retry = %v, want a replay", err)
			}
			rc, err := again.Settle(ctx)
			if err != nil || !rc.Success {
				t.Fatalf("replayed receipt = %+v, %v", rc, err)
			}
			if sent := rc.Transaction == left.Tx.Hex(); sent != (point == "sent") {
				t.Fatalf("receipt names %s, the dead process signed %s (crash %s)", rc.Transaction, left.Tx.Hex(), point)
			}
			if from, to := b.balancesAfter(t, rc.Transaction); from != 9*price || to != price {
				t.Fatalf("payer %d, payee %d; want charged exactly once (%d, %d)", from, to, 9*price, price)
			}
			if _, err := e.Begin(ctx, b.purchase(pay, "another request")); !errors.Is(err, settle.ErrNonceUsed) {
				t.Fatalf("the same authorization for another body = %v, want ErrNonceUsed", err)
			}
		})
	}
}
