package chaintest

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
)

// ChainID is Base Sepolia's, so v1 ("base-sepolia") and v2
// ("eip155:84532") clients accept the anvil chain.
const ChainID = 84532

// Anvil's publicly known default accounts (its test mnemonic): never use
// them with anything of value.
const (
	ownerKey   = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" // #0: deploys and mints
	relayerKey = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" // #1
	payerKey   = "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a" // #2
	walletKey  = "7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6" // #3: owns the EIP-1271 wallet
)

// Anvil is a running anvil with Circle's USDC deployed.
type Anvil struct {
	// RPCURL is anvil's HTTP JSON-RPC endpoint on loopback.
	RPCURL string
	// Client is a JSON-RPC client of it.
	Client *ethclient.Client
	// Network is USDC on this chain: eip155:84532, v1 name "base-sepolia",
	// EIP-712 domain "USDC" / "2".
	Network *x402.Network
	// SignatureChecker is the linked library's address.
	SignatureChecker common.Address
	// Wallet is Circle's MockERC1271Wallet, owned by WalletOwnerKey and funded with USDC.
	Wallet common.Address
	// Keys: the USDC owner/minter, a relayer with ETH, a payer with USDC, the wallet's owner.
	OwnerKey, RelayerKey, PayerKey, WalletOwnerKey *ecdsa.PrivateKey
	// Payer is the address of PayerKey.
	Payer common.Address

	cmd  *exec.Cmd
	done chan struct{}
	once sync.Once
	mint func(ctx context.Context, to common.Address, amount int64) error
}

// PayerFunds is the USDC (atomic units) minted to the payer and the wallet.
const PayerFunds = 1_000_000_000

// Option shapes the anvil chain StartAnvil and Start launch.
type Option func(*options)

type options struct {
	blockTime time.Duration
	gasLimit  uint64
}

// BlockTime mines a block every d (whole seconds, as anvil's --block-time)
// once USDC is deployed, instead of one block per transaction: real block
// times, as on Base (2 s).
func BlockTime(d time.Duration) Option { return func(o *options) { o.blockTime = d } }

// GasLimit sets the block gas limit (anvil's --gas-limit), e.g. Base's
// 150M for throughput measurements.
func GasLimit(gas uint64) Option { return func(o *options) { o.gasLimit = gas } }

// StartAnvil skips tb under -short; else it starts anvil, deploys
// USDC and Multicall3, and stops it when the test ends. It fails the test
// on any error.
func StartAnvil(tb testing.TB, opts ...Option) *Anvil {
	tb.Helper()
	testenv.SkipShort(tb, "anvil")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	a, err := Start(ctx, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(a.Stop)
	return a
}

// Start is StartAnvil for TestMain, where there is no testing.TB: the
// caller must call Stop.
func Start(ctx context.Context, opts ...Option) (*Anvil, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := Install(); err != nil {
		return nil, err
	}
	a := &Anvil{OwnerKey: mustKey(ownerKey), RelayerKey: mustKey(relayerKey),
		PayerKey: mustKey(payerKey), WalletOwnerKey: mustKey(walletKey), done: make(chan struct{})}
	a.Payer = crypto.PubkeyToAddress(a.PayerKey.PublicKey)
	if err := a.launch(ctx, o); err != nil {
		return nil, err
	}
	if err := a.deployUSDC(ctx); err != nil {
		a.Stop()
		return nil, err
	}
	if err := a.installMulticall3(ctx); err != nil {
		a.Stop()
		return nil, err
	}
	if o.blockTime > 0 {
		// Deploying on automine is quick; real block times start afterwards.
		secs := max(1, int64(o.blockTime/time.Second))
		if err := a.Client.Client().CallContext(ctx, nil, "evm_setIntervalMining", secs); err != nil {
			a.Stop()
			return nil, fmt.Errorf("chaintest: evm_setIntervalMining: %w", err)
		}
	}
	return a, nil
}

// installMulticall3 puts Multicall3's runtime code at its canonical
// address (anvil_setCode), as every public chain has it; the settler
// batches transfers through it and the reference facilitator finds it.
func (a *Anvil) installMulticall3(ctx context.Context) error {
	if err := a.Client.Client().CallContext(ctx, nil, "anvil_setCode", evm.Multicall3, hexutil.Encode(evm.Multicall3Code())); err != nil {
		return fmt.Errorf("chaintest: installing Multicall3: %w", err)
	}
	return nil
}

// launch starts anvil on a free loopback port and dials it.
func (a *Anvil) launch(ctx context.Context, o options) error {
	args := []string{"--host", "127.0.0.1", "--port", "0", "--chain-id", fmt.Sprint(ChainID), "--accounts", "4"}
	if o.gasLimit > 0 {
		args = append(args, "--gas-limit", fmt.Sprint(o.gasLimit))
	}
	a.cmd = exec.Command(AnvilPath(), args...)
	out, err := a.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	a.cmd.Stderr = a.cmd.Stdout
	if err := a.cmd.Start(); err != nil {
		return fmt.Errorf("chaintest: starting anvil: %w", err)
	}
	go func() { a.cmd.Wait(); close(a.done) }()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "Listening on "); ok {
				addr <- strings.TrimSpace(rest)
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case host := <-addr:
		a.RPCURL = "http://" + host
	case <-a.done:
		return errors.New("chaintest: anvil exited before listening")
	case <-ctx.Done():
		a.Stop()
		return fmt.Errorf("chaintest: waiting for anvil: %w", ctx.Err())
	}
	if a.Client, err = ethclient.DialContext(ctx, a.RPCURL); err != nil {
		a.Stop()
		return err
	}
	return nil
}

// Fund mints amount USDC (atomic units) to addr.
func (a *Anvil) Fund(ctx context.Context, addr common.Address, amount int64) error {
	return a.mint(ctx, addr, amount)
}

// NewRelayer returns a fresh key holding 100 ETH (set with
// anvil_setBalance), so each settler in a test binary owns its
// transaction nonces and none collides with another's.
func (a *Anvil) NewRelayer(ctx context.Context) (*ecdsa.PrivateKey, error) {
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	wei := new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	addr := crypto.PubkeyToAddress(key.PublicKey)
	if err := a.Client.Client().CallContext(ctx, nil, "anvil_setBalance", addr, hexutil.EncodeBig(wei)); err != nil {
		return nil, fmt.Errorf("chaintest: anvil_setBalance %s: %w", addr, err)
	}
	return key, nil
}

// Stop ends anvil; its state is gone.
func (a *Anvil) Stop() {
	a.once.Do(func() {
		if a.Client != nil {
			a.Client.Close()
		}
		if a.cmd != nil && a.cmd.Process != nil {
			a.cmd.Process.Kill()
			<-a.done
		}
	})
}

func mustKey(hex string) *ecdsa.PrivateKey {
	k, err := crypto.HexToECDSA(hex)
	if err != nil {
		panic(err)
	}
	return k
}
