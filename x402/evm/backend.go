// Package evm settles and checks x402 "exact" payments on an EVM chain over
// JSON-RPC: an eth_call simulation of transferWithAuthorization with a
// diagnosis of why it would fail, EIP-1271 verification of smart-wallet
// signatures, and the `chain` settler that submits the transfer from
// farebox's own relayer key.
package evm

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/farebox/farebox/internal/directhttp"
)

// Backend is the part of an Ethereum JSON-RPC client that farebox uses; an
// *Client (from Dial), an *ethclient.Client and the dev chain's in-process client both
// satisfy it.
type Backend interface {
	ChainID(ctx context.Context) (*big.Int, error)
	CallContract(ctx context.Context, call ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
	CodeAt(ctx context.Context, account common.Address, blockNumber *big.Int) ([]byte, error)
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	EstimateGas(ctx context.Context, call ethereum.CallMsg) (uint64, error)
	SuggestGasPrice(ctx context.Context) (*big.Int, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	NonceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (uint64, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error)
}

// RequestTimeout bounds one JSON-RPC request over http(s): a node that
// accepts connections and never answers makes a paid call's chain check
// fail in this time (a 503 with Retry-After) instead of holding the call,
// and the settler's followers try again instead of waiting forever. A
// request that timed out after sending a transaction loses nothing: the
// nonce is taken and the follower sends it again while it is not mined.
const RequestTimeout = 10 * time.Second

// Dial connects to a chain's JSON-RPC endpoint (http(s), ws(s) or IPC). A
// plain http:// node without a proxy (a node beside farebox) is spoken to on
// the caller's goroutine (directhttp): every simulation and send is an
// exchange, and net/http's transport adds two goroutine handoffs to each.
// Every request, on any transport, is bounded by RequestTimeout.
func Dial(ctx context.Context, url string) (*Client, error) {
	return dial(ctx, url, RequestTimeout)
}

func dial(ctx context.Context, url string, timeout time.Duration) (*Client, error) {
	var opts []rpc.ClientOption
	bound := time.Duration(0) // over http(s) the http.Client bounds each request
	switch {
	case directhttp.Eligible(url):
		opts = append(opts, rpc.WithHTTPClient(&http.Client{Timeout: timeout,
			Transport: directhttp.New(directhttp.Options{MaxResponseBytes: 256 << 20})}))
	case strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://"):
		opts = append(opts, rpc.WithHTTPClient(&http.Client{Timeout: timeout}))
	default:
		bound = timeout // ws(s), IPC: nothing else does
	}
	c, err := rpc.DialOptions(ctx, url, opts...)
	if err != nil {
		return nil, err
	}
	return &Client{ethClient: ethclient.NewClient(c), timeout: bound}, nil
}
