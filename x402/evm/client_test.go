package evm_test

import (
	"context"
	"errors"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/settle"
)

// hungNode is a JSON-RPC service that knows its chain id and never
// answers anything else until the test ends: a node behind a websocket
// that keeps the connection (and its pings) alive and hangs every call.
type hungNode struct{ release chan struct{} }

func (hungNode) ChainId() *hexutil.Big { return (*hexutil.Big)(big.NewInt(8453)) }

func (n hungNode) GetTransactionReceipt(ctx context.Context, _ common.Hash) (map[string]any, error) {
	return nil, n.hang(ctx)
}

func (n hungNode) Call(ctx context.Context, _ map[string]any, _ string) (hexutil.Bytes, error) {
	return nil, n.hang(ctx)
}

func (n hungNode) GetLogs(ctx context.Context, _ map[string]any) ([]any, error) {
	return nil, n.hang(ctx)
}

func (n hungNode) hang(ctx context.Context) error {
	select {
	case <-n.release:
	case <-ctx.Done():
	}
	return errors.New("released")
}

// A chain node over ws:// that accepts the connection and then never
// answers (the http.Client's timeout, which bounds http(s), does not
// apply): every request farebox makes fails with a
// deadline after the client's timeout instead of holding the paid call or
// the settler for ever, and the connection still serves what the node
// does answer.
func TestAWebsocketNodeThatNeverAnswersIsBounded(t *testing.T) {
	node := hungNode{release: make(chan struct{})}
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", node); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.WebsocketHandler([]string{"*"}))
	t.Cleanup(hs.Close)
	t.Cleanup(srv.Stop)
	t.Cleanup(func() { close(node.release) })
	ctx := context.Background()
	c, err := evm.DialWithin(ctx, "ws"+strings.TrimPrefix(hs.URL, "http"), 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if id, err := c.ChainID(ctx); err != nil || id.Int64() != 8453 {
		t.Fatalf("ChainID = %v, %v", id, err)
	}
	token := common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913")
	for name, call := range map[string]func() error{
		"eth_getTransactionReceipt": func() error { _, err := c.TransactionReceipt(ctx, common.Hash{1}); return err },
		"eth_call":                  func() error { _, err := c.CallContract(ctx, ethereum.CallMsg{To: &token}, nil); return err },
		"eth_getLogs":               func() error { _, err := c.FilterLogs(ctx, ethereum.FilterQuery{}); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s = %v; want the client's deadline", name, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s still waiting for a hung node after a minute", name)
		}
	}
}

// payments.chain.confirmations reaches the reader a facilitator settler
// follows its transfers with (settler: facilitator, rpc_url set), so its
// successes are followed to that depth; 0 leaves them final as answered.
func TestTheFacilitatorsReaderFollowsTheConfiguredDepth(t *testing.T) {
	for _, f := range fixtures {
		if f.anvil == nil {
			continue
		}
		for _, depth := range []uint64{0, 3} {
			d := settle.SettlerDeps{SettlerConfig: settle.SettlerConfig{Kind: "facilitator",
				Chain: settle.ChainSettings{RPCURL: f.anvil.RPCURL, Confirmations: depth}},
				Networks: []*x402.Network{f.net}, AddCloser: func(fn func()) { t.Cleanup(fn) }}
			r, err := settle.BuildTransferReader("eip155", d)
			if err != nil {
				t.Fatal(err)
			}
			er, ok := r.(*evm.Reader)
			if !ok || er.Depth != depth || er.Deep() != (depth > 0) {
				t.Errorf("confirmations %d: reader %#v; want an *evm.Reader of that depth", depth, r)
			}
		}
		return
	}
	t.Fatal("no anvil fixture")
}
