package evm

import (
	"context"
	"math/big"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
)

// ethClient names the embedded client so that its Client method (the raw
// JSON-RPC client) is promoted.
type ethClient = ethclient.Client

// Client is a dialled chain node (Dial): an ethclient.Client whose every
// request is bounded by RequestTimeout whatever the transport. Over
// http(s) the http.Client's timeout bounds a request; over ws(s) and IPC
// the Client does, since nothing else would, and a node that keeps its connection open (answering
// the websocket's pings) and never answers would otherwise hold a paid
// call's chain check, and the settler's followers, for ever. A
// subscription (SubscribeNewHead) is not bounded.
type Client struct {
	*ethClient
	timeout time.Duration
}

// bound is ctx bounded by the client's timeout, unless ctx ends sooner.
func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout <= 0 {
		return ctx, func() {}
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= c.timeout {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, c.timeout)
}

// boundedBy is ctx bounded as b bounds its requests (a *Client), for a raw
// JSON-RPC call through b's Client().
func boundedBy(ctx context.Context, b any) (context.Context, context.CancelFunc) {
	if c, ok := b.(*Client); ok {
		return c.bound(ctx)
	}
	return ctx, func() {}
}

// within runs one request of c's under its bound.
func within[T any](ctx context.Context, c *Client, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	return f(ctx)
}

func (c *Client) ChainID(ctx context.Context) (*big.Int, error) {
	return within(ctx, c, c.ethClient.ChainID)
}

func (c *Client) BlockNumber(ctx context.Context) (uint64, error) {
	return within(ctx, c, c.ethClient.BlockNumber)
}

func (c *Client) CallContract(ctx context.Context, call ethereum.CallMsg, n *big.Int) ([]byte, error) {
	return within(ctx, c, func(ctx context.Context) ([]byte, error) { return c.ethClient.CallContract(ctx, call, n) })
}

func (c *Client) CodeAt(ctx context.Context, a common.Address, n *big.Int) ([]byte, error) {
	return within(ctx, c, func(ctx context.Context) ([]byte, error) { return c.ethClient.CodeAt(ctx, a, n) })
}

func (c *Client) BalanceAt(ctx context.Context, a common.Address, n *big.Int) (*big.Int, error) {
	return within(ctx, c, func(ctx context.Context) (*big.Int, error) { return c.ethClient.BalanceAt(ctx, a, n) })
}

func (c *Client) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	return within(ctx, c, func(ctx context.Context) (*types.Header, error) { return c.ethClient.HeaderByNumber(ctx, n) })
}

func (c *Client) EstimateGas(ctx context.Context, call ethereum.CallMsg) (uint64, error) {
	return within(ctx, c, func(ctx context.Context) (uint64, error) { return c.ethClient.EstimateGas(ctx, call) })
}

func (c *Client) SuggestGasPrice(ctx context.Context) (*big.Int, error) {
	return within(ctx, c, c.ethClient.SuggestGasPrice)
}

func (c *Client) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	return within(ctx, c, c.ethClient.SuggestGasTipCap)
}

func (c *Client) PendingNonceAt(ctx context.Context, a common.Address) (uint64, error) {
	return within(ctx, c, func(ctx context.Context) (uint64, error) { return c.ethClient.PendingNonceAt(ctx, a) })
}

func (c *Client) NonceAt(ctx context.Context, a common.Address, n *big.Int) (uint64, error) {
	return within(ctx, c, func(ctx context.Context) (uint64, error) { return c.ethClient.NonceAt(ctx, a, n) })
}

func (c *Client) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	_, err := within(ctx, c, func(ctx context.Context) (struct{}, error) { return struct{}{}, c.ethClient.SendTransaction(ctx, tx) })
	return err
}

func (c *Client) TransactionReceipt(ctx context.Context, h common.Hash) (*types.Receipt, error) {
	return within(ctx, c, func(ctx context.Context) (*types.Receipt, error) { return c.ethClient.TransactionReceipt(ctx, h) })
}

func (c *Client) TransactionByHash(ctx context.Context, h common.Hash) (*types.Transaction, bool, error) {
	type found struct {
		tx      *types.Transaction
		pending bool
	}
	f, err := within(ctx, c, func(ctx context.Context) (found, error) {
		tx, pending, err := c.ethClient.TransactionByHash(ctx, h)
		return found{tx, pending}, err
	})
	return f.tx, f.pending, err
}

func (c *Client) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	return within(ctx, c, func(ctx context.Context) ([]types.Log, error) { return c.ethClient.FilterLogs(ctx, q) })
}

var _ Backend = (*Client)(nil)
