// Package devchain runs farebox's embedded development chain: go-ethereum's
// simulated backend in process, with FareboxUSDv2 deployed (EIP-3009,
// EIP-2612 permit and receiveWithAuthorization), the canonical x402
// contracts in its genesis, a relayer funded with ETH and a payer funded
// with test dollars, mining a block as soon as transactions arrive. Its
// state lives in memory and is gone on Close.
//
// Where the contracts come from (see x402/evm/contracts/SOURCES.md):
// FareboxUSDv2 is ours; Permit2 is Uniswap's, and x402BatchSettlement, its
// two deposit collectors and x402UptoPermit2Proxy are coinbase/x402's,
// compiled from vendored sources and placed at the canonical addresses
// @x402/evm hard-codes (contracts.CanonicalAlloc); Multicall3 is mds1's
// canonical deployment (x402/evm/multicall3.hex).
package devchain

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// Publicly known development keys (accounts #0, #1 and #2 of anvil and
// hardhat). Anyone can spend from them on any chain: never fund them with
// anything of value.
const (
	// DevPayerKey is the dev payer, funded with test dollars.
	DevPayerKey = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	// DevRelayerKey is the dev relayer, funded with ETH to pay settlement gas.
	DevRelayerKey = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
	// DevOwnerKey deploys the token and mints with it.
	DevOwnerKey = "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"
)

// Config shapes the dev chain; the zero value is a usable default.
type Config struct {
	ChainID      int64    // default 1337
	RPCAddr      string   // "host:port" to serve JSON-RPC over HTTP (port 0 picks one); "" serves none
	V1Name       string   // the v1 network name, "" for none
	TokenName    string   // EIP-712 domain name, default "USDC"
	TokenVersion string   // EIP-712 domain version, default "2"
	PayerFunds   *big.Int // test dollars (atomic units) for the payer, default 1000 USDC
	RelayerETH   *big.Int // wei for the relayer, default 1000 ETH
	// MaxDrift bounds how far block timestamps may run ahead of the wall
	// clock when many blocks are mined per second (default 2 s): past it,
	// mining waits, so authorizations' validity windows stay honest.
	MaxDrift time.Duration
	// BlockTime, when positive, mines a block at that interval whether or
	// not transactions are pending, as a real chain (or anvil --block-time)
	// does; 0 mines on demand, as soon as a transaction arrives.
	BlockTime time.Duration
	// ExtraAlloc adds accounts (code, balances) to the genesis; it wins over
	// the built-in entries at the same address.
	ExtraAlloc types.GenesisAlloc
}

// Chain is a running dev chain.
type Chain struct {
	backend *simulated.Backend
	// Client is an in-process JSON-RPC client of the chain.
	Client simulated.Client
	// Network is the token on this chain, as x402 sees it.
	Network *x402.Network
	// RPCURL is the HTTP JSON-RPC endpoint, "" when none is served.
	RPCURL string
	// PayerKey and RelayerKey are the publicly known dev keys (see DevPayerKey).
	PayerKey, RelayerKey *ecdsa.PrivateKey
	// Payer and Relayer are their addresses.
	Payer, Relayer common.Address

	owner    *evm.Transactor
	rpc      *rpc.Client // over the node's IPC socket, for the miner
	ipcPath  string
	maxDrift time.Duration
	interval time.Duration
	stop     chan struct{}
	done     chan struct{}
	close    sync.Once
}

// Start launches a dev chain with the canonical x402 contracts, deploys
// FareboxUSDv2 and funds the dev accounts.
func Start(ctx context.Context, cfg Config) (*Chain, error) {
	cfg = withDefaults(cfg)
	payerKey, relayerKey, ownerKey := mustKey(DevPayerKey), mustKey(DevRelayerKey), mustKey(DevOwnerKey)
	if cfg.BlockTime < 0 {
		return nil, fmt.Errorf("devchain: block time %s is negative", cfg.BlockTime)
	}
	c := &Chain{PayerKey: payerKey, RelayerKey: relayerKey, maxDrift: cfg.MaxDrift, interval: cfg.BlockTime,
		Payer: crypto.PubkeyToAddress(payerKey.PublicKey), Relayer: crypto.PubkeyToAddress(relayerKey.PublicKey),
		stop: make(chan struct{}), done: make(chan struct{})}
	alloc := types.GenesisAlloc{
		c.Relayer: {Balance: cfg.RelayerETH},
		crypto.PubkeyToAddress(ownerKey.PublicKey): {Balance: new(big.Int).Mul(big.NewInt(1000), big.NewInt(params.Ether))},
		// Multicall3 at its canonical address, so the settler batches transfers as on public chains.
		evm.Multicall3: {Code: evm.Multicall3Code(), Balance: new(big.Int)},
	}
	// Permit2, x402BatchSettlement, the deposit collectors and the upto
	// proxy where @x402/evm's clients expect them.
	canonical, err := contracts.CanonicalAlloc(ctx, big.NewInt(cfg.ChainID))
	if err != nil {
		return nil, fmt.Errorf("devchain: building the canonical contracts: %w", err)
	}
	for addr, acct := range canonical {
		alloc[addr] = acct
	}
	for addr, acct := range cfg.ExtraAlloc {
		alloc[addr] = acct
	}
	ipc, err := ipcPath()
	if err != nil {
		return nil, err
	}
	c.ipcPath = ipc
	opts, rpcURL, err := options(cfg, ipc)
	if err != nil {
		return nil, err
	}
	if c.backend, err = newBackend(alloc, opts); err != nil {
		os.Remove(ipc)
		return nil, err
	}
	c.RPCURL = rpcURL
	if c.rpc, err = rpc.DialIPC(ctx, ipc); err != nil {
		c.backend.Close()
		os.Remove(ipc)
		return nil, fmt.Errorf("devchain: attaching to the node: %w", err)
	}
	c.Client = rawClient{backendClient: c.backend.Client(), rpc: c.rpc}
	go c.mine()
	if err := c.deploy(ctx, ownerKey, cfg); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

type backendClient = simulated.Client

// rawClient is the in-process client with the node's JSON-RPC client
// exposed (Client), as *ethclient.Client has it: the settler reaches
// eth_call's block overrides through it.
type rawClient struct {
	backendClient
	rpc *rpc.Client
}

// Client is the node's JSON-RPC client (over its private IPC socket).
func (c rawClient) Client() *rpc.Client { return c.rpc }

func withDefaults(cfg Config) Config {
	if cfg.ChainID == 0 {
		cfg.ChainID = 1337
	}
	if cfg.TokenName == "" {
		cfg.TokenName = "USDC"
	}
	if cfg.TokenVersion == "" {
		cfg.TokenVersion = "2"
	}
	if cfg.PayerFunds == nil {
		cfg.PayerFunds = big.NewInt(1000_000_000)
	}
	if cfg.RelayerETH == nil {
		cfg.RelayerETH = new(big.Int).Mul(big.NewInt(1000), big.NewInt(params.Ether))
	}
	if cfg.MaxDrift == 0 {
		cfg.MaxDrift = 2 * time.Second
	}
	return cfg
}

// options sets the chain id and, when asked, a loopback-style HTTP JSON-RPC
// endpoint that wallets and tools (viem, cast) can use.
func options(cfg Config, ipcPath string) (func(*node.Config, *ethconfig.Config), string, error) {
	host, port := "", 0
	if cfg.RPCAddr != "" {
		h, p, err := net.SplitHostPort(cfg.RPCAddr)
		if err != nil {
			return nil, "", fmt.Errorf("devchain: rpc address %q: %w", cfg.RPCAddr, err)
		}
		if port, err = strconv.Atoi(p); err != nil {
			return nil, "", fmt.Errorf("devchain: rpc port %q: %w", p, err)
		}
		if host = h; host == "" {
			host = "127.0.0.1"
		}
		if port == 0 {
			if port, err = freePort(host); err != nil {
				return nil, "", err
			}
		} else if err := checkFree(net.JoinHostPort(host, strconv.Itoa(port))); err != nil {
			return nil, "", err
		}
	}
	chainConfig := *params.AllDevChainProtocolChanges
	chainConfig.ChainID = big.NewInt(cfg.ChainID)
	opt := func(nc *node.Config, ec *ethconfig.Config) {
		ec.Genesis.Config = &chainConfig
		ec.NetworkId = uint64(cfg.ChainID)
		nc.IPCPath = ipcPath
		if host != "" {
			nc.HTTPHost, nc.HTTPPort = host, port
			nc.HTTPModules = []string{"eth", "net", "web3", "txpool"}
			nc.HTTPVirtualHosts = []string{"localhost", "127.0.0.1", "::1", host}
			nc.HTTPCors = []string{"*"}
		}
	}
	url := ""
	if host != "" {
		url = "http://" + net.JoinHostPort(host, strconv.Itoa(port))
	}
	return opt, url, nil
}

// ipcPath is a fresh socket path for the node's private IPC endpoint.
func ipcPath() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return filepath.Join(os.TempDir(), "farebox-devchain-"+hex.EncodeToString(b[:])+".ipc"), nil
}

func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("devchain: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// RPCAddrError says the JSON-RPC address cannot be listened on (taken by
// another process, most often); the caller knows which flag moves it.
type RPCAddrError struct {
	Addr string
	Err  error
}

func (e *RPCAddrError) Error() string {
	return "devchain: JSON-RPC on " + e.Addr + ": " + e.Err.Error()
}

func (e *RPCAddrError) Unwrap() error { return e.Err }

// checkFree listens on addr and lets go at once: go-ethereum's node panics
// when its HTTP endpoint cannot listen, so a taken address is caught here
// first (the race with another process is only a few microseconds wide).
func checkFree(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return &RPCAddrError{Addr: addr, Err: err}
	}
	return l.Close()
}

// newBackend is simulated.NewBackend with its start-up panics (an address
// taken in the window after checkFree, a bad data directory) made errors.
func newBackend(alloc types.GenesisAlloc, opts func(*node.Config, *ethconfig.Config)) (b *simulated.Backend, err error) {
	defer func() {
		switch r := recover().(type) {
		case nil:
		case error:
			err = fmt.Errorf("devchain: starting the node: %w", r)
		default:
			err = fmt.Errorf("devchain: starting the node: %v", r)
		}
	}()
	return simulated.NewBackend(alloc, opts), nil
}

// deploy creates the token and mints the payer's funds.
func (c *Chain) deploy(ctx context.Context, ownerKey *ecdsa.PrivateKey, cfg Config) error {
	owner, err := evm.NewTransactor(ctx, c.Client, ownerKey)
	if err != nil {
		return err
	}
	c.owner = owner
	addr, err := contracts.DeployToken(ctx, owner, cfg.TokenName, cfg.TokenVersion)
	if err != nil {
		return fmt.Errorf("devchain: deploying the token: %w", err)
	}
	c.Network = x402.NewNetwork("", cfg.V1Name, big.NewInt(cfg.ChainID), addr, cfg.TokenName, cfg.TokenVersion)
	return c.Fund(ctx, c.Payer, cfg.PayerFunds)
}

// Fund mints amount test dollars (atomic units, 6 decimals) to addr and
// waits until the block holding the mint is mined.
func (c *Chain) Fund(ctx context.Context, addr common.Address, amount *big.Int) error {
	if err := contracts.Mint(ctx, c.owner, c.Network.Asset, addr, amount); err != nil {
		return fmt.Errorf("devchain: funding %s: %w", addr, err)
	}
	return nil
}

// FundETH sends wei from the token owner to addr (e.g. a second relayer).
func (c *Chain) FundETH(ctx context.Context, addr common.Address, wei *big.Int) error {
	if _, err := c.owner.Send(ctx, &addr, nil, wei); err != nil {
		return fmt.Errorf("devchain: sending ETH to %s: %w", addr, err)
	}
	return nil
}

// Close stops mining and the chain; its state is gone.
func (c *Chain) Close() error {
	var err error
	c.close.Do(func() {
		close(c.stop)
		<-c.done
		c.rpc.Close()
		err = c.backend.Close()
		os.Remove(c.ipcPath)
	})
	return err
}

func mustKey(hex string) *ecdsa.PrivateKey {
	k, err := crypto.HexToECDSA(hex)
	if err != nil {
		panic(errors.New("devchain: bad built-in key"))
	}
	return k
}
