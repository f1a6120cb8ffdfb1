package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// RemoteConfig says which external chain (anvil, a testnet fork) to
// rehearse on, who deploys there, and where the deployment is kept.
type RemoteConfig struct {
	// RPCURL is the chain's JSON-RPC endpoint.
	RPCURL string
	// DeployerKey deploys the token and mints with it; nil uses the node's
	// first unlocked account (eth_accounts[0], as anvil and hardhat have).
	DeployerKey *ecdsa.PrivateKey
	// RelayerKey pays settlement gas; nil uses a generated key.
	RelayerKey *ecdsa.PrivateKey
	// DataDir keeps the deployment between runs ("" keeps nothing).
	DataDir      string
	V1Name       string   // the v1 network name, "" for none
	TokenName    string   // EIP-712 domain name of a new token, default "USDC"
	TokenVersion string   // EIP-712 domain version of a new token, default "2"
	PayerFunds   *big.Int // test dollars (atomic units) for the payer, default 1000 USDC
	// RelayerETH is sent to a relayer holding less than a tenth of it
	// (default 1 ETH).
	RelayerETH *big.Int
}

// Remote is farebox's dev deployment on an external chain: FareboxUSDv2
// deployed by the deployer, the canonical x402 contracts (installed with
// anvil_setCode where missing), a payer holding test dollars and a relayer
// holding ETH.
type Remote struct {
	// Client is a JSON-RPC client of the chain.
	Client *evm.Client
	// Network is the token on this chain, as x402 sees it.
	Network *x402.Network
	// RPCURL is the chain's endpoint.
	RPCURL string
	// PayerKey and RelayerKey sign payments and pay settlement gas.
	PayerKey, RelayerKey *ecdsa.PrivateKey
	// Payer and Relayer are their addresses.
	Payer, Relayer common.Address
	// Reused says the token was found deployed where DataDir said it is,
	// so nothing was deployed and nobody funded again.
	Reused bool
	// Path is the deployment file ("" without a DataDir).
	Path string

	cfg      RemoteConfig
	dep      *Deployment
	mu       sync.Mutex // dep and the deployer
	deployer sender
}

// sender sends one transaction and waits for its successful receipt.
type sender interface {
	Send(ctx context.Context, to *common.Address, data []byte, value *big.Int) (*types.Receipt, error)
}

// Attach connects to the chain at cfg.RPCURL and makes sure farebox's dev
// token is deployed there and the payer and relayer are funded, reusing
// what cfg.DataDir kept from an earlier run on the same chain.
func Attach(ctx context.Context, cfg RemoteConfig) (*Remote, error) {
	cfg = remoteDefaults(cfg)
	client, err := evm.Dial(ctx, cfg.RPCURL)
	if err != nil {
		return nil, err
	}
	r := &Remote{Client: client, RPCURL: cfg.RPCURL, cfg: cfg}
	if err := r.attach(ctx); err != nil {
		client.Close()
		return nil, err
	}
	return r, nil
}

func remoteDefaults(cfg RemoteConfig) RemoteConfig {
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
		cfg.RelayerETH = big.NewInt(params.Ether)
	}
	return cfg
}

func (r *Remote) attach(ctx context.Context) error {
	id, err := r.Client.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("devchain: reading the chain id: %w", err)
	}
	if !id.IsInt64() {
		return fmt.Errorf("devchain: chain id %s is too large", id)
	}
	if r.cfg.DataDir != "" {
		r.Path = DeploymentPath(r.cfg.DataDir, id.Int64())
		if r.dep, err = loadDeployment(r.Path); err != nil {
			return err
		}
	}
	if r.Reused, err = r.deployed(ctx, id.Int64()); err != nil {
		return err
	}
	if !r.Reused {
		old := r.dep
		r.dep = &Deployment{ChainID: id.Int64(), TokenName: r.cfg.TokenName, TokenVersion: r.cfg.TokenVersion,
			Funded: map[common.Address]string{}}
		if old != nil { // the chain was reset: keep the keys, deploy and fund again
			r.dep.PayerKey, r.dep.RelayerKey = old.PayerKey, old.RelayerKey
		}
	}
	if r.PayerKey, err = r.dep.key(&r.dep.PayerKey); err != nil {
		return err
	}
	r.RelayerKey = r.cfg.RelayerKey
	if r.RelayerKey == nil {
		if r.RelayerKey, err = r.dep.key(&r.dep.RelayerKey); err != nil {
			return err
		}
	}
	r.Payer, r.Relayer = crypto.PubkeyToAddress(r.PayerKey.PublicKey), crypto.PubkeyToAddress(r.RelayerKey.PublicKey)
	if !r.Reused {
		if err := r.deploy(ctx); err != nil {
			return err
		}
	}
	if err := r.installCanonical(ctx, id); err != nil {
		return err
	}
	r.Network = x402.NewNetwork("", r.cfg.V1Name, id, r.dep.Token, r.dep.TokenName, r.dep.TokenVersion)
	if err := r.Fund(ctx, r.Payer, r.cfg.PayerFunds); err != nil {
		return err
	}
	return r.fundRelayer(ctx)
}

// deployed reports whether the kept deployment is for this chain and its
// token's code is there (a restarted anvil has forgotten it).
func (r *Remote) deployed(ctx context.Context, chainID int64) (bool, error) {
	if r.dep == nil || r.dep.ChainID != chainID || r.dep.Token == (common.Address{}) || r.dep.TokenContract != tokenContract {
		return false, nil // a token deployed before FareboxUSDv2 has no permit: deploy the new one
	}
	code, err := r.Client.CodeAt(ctx, r.dep.Token, nil)
	if err != nil {
		return false, fmt.Errorf("devchain: reading the token's code: %w", err)
	}
	return len(code) > 0, nil
}

// deploy creates the token and records it before anything is funded.
func (r *Remote) deploy(ctx context.Context) error {
	d, err := r.deployerSender(ctx)
	if err != nil {
		return err
	}
	code := append(common.FromHex(contracts.FareboxUSDv2MetaData.Bin),
		contracts.NewFareboxUSDv2().PackConstructor(r.dep.TokenName, r.dep.TokenVersion, "USDC")...)
	rec, err := d.Send(ctx, nil, code, nil)
	if err != nil {
		return fmt.Errorf("devchain: deploying the token: %w", err)
	}
	r.dep.Token, r.dep.TokenContract = rec.ContractAddress, tokenContract
	return r.save()
}

// tokenContract names the dev token's contract in the deployment file.
const tokenContract = "FareboxUSDv2"

// installCanonical makes sure Permit2, x402BatchSettlement, its deposit
// collectors and the upto proxy are at their canonical addresses: public
// chains and their forks have them; on anvil they are installed with
// anvil_setCode (a restarted anvil has forgotten them, so this runs on
// every attach).
func (r *Remote) installCanonical(ctx context.Context, chainID *big.Int) error {
	missing := false
	for _, a := range []common.Address{contracts.CanonicalPermit2, contracts.CanonicalBatchSettlement,
		contracts.CanonicalERC3009DepositCollector, contracts.CanonicalPermit2DepositCollector, contracts.CanonicalUptoPermit2Proxy} {
		code, err := r.Client.CodeAt(ctx, a, nil)
		if err != nil {
			return fmt.Errorf("devchain: reading the code at %s: %w", a, err)
		}
		missing = missing || len(code) == 0
	}
	if !missing {
		return nil
	}
	if err := contracts.InstallCanonical(ctx, r.Client.Client(), chainID); err != nil {
		return fmt.Errorf("devchain: installing the x402 contracts (needs anvil or hardhat): %w", err)
	}
	return nil
}

// Fund mints amount test dollars to addr unless this deployment funded
// addr before (on an earlier run too), and waits for the mint to be mined.
func (r *Remote) Fund(ctx context.Context, addr common.Address, amount *big.Int) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dep.funded(addr) {
		return nil
	}
	d, err := r.deployerSender(ctx)
	if err != nil {
		return err
	}
	asset := r.dep.Token
	if _, err := d.Send(ctx, &asset, contracts.NewFareboxUSDv2().PackMint(addr, amount), nil); err != nil {
		return fmt.Errorf("devchain: funding %s: %w", addr, err)
	}
	r.dep.recordFunding(addr, amount)
	return r.save()
}

// fundRelayer sends the relayer ETH for gas when it holds less than a
// tenth of RelayerETH (a generated key holds none).
func (r *Remote) fundRelayer(ctx context.Context) error {
	bal, err := r.Client.BalanceAt(ctx, r.Relayer, nil)
	if err != nil {
		return fmt.Errorf("devchain: reading the relayer's balance: %w", err)
	}
	if bal.Cmp(new(big.Int).Div(r.cfg.RelayerETH, big.NewInt(10))) >= 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	d, err := r.deployerSender(ctx)
	if err != nil {
		return err
	}
	to := r.Relayer
	if _, err := d.Send(ctx, &to, nil, r.cfg.RelayerETH); err != nil {
		return fmt.Errorf("devchain: sending the relayer %s ETH: %w", to, err)
	}
	r.dep.RelayerFunded = append(r.dep.RelayerFunded, r.cfg.RelayerETH.String())
	return r.save()
}

// deployerSender is the token owner, found on first use: a restart that
// deploys and funds nothing needs no deployer at all.
func (r *Remote) deployerSender(ctx context.Context) (sender, error) {
	if r.deployer != nil {
		return r.deployer, nil
	}
	var from common.Address
	if k := r.cfg.DeployerKey; k != nil {
		t, err := evm.NewTransactor(ctx, r.Client, k)
		if err != nil {
			return nil, err
		}
		r.deployer, from = t, t.From()
	} else {
		var accounts []common.Address
		if err := r.Client.Client().CallContext(ctx, &accounts, "eth_accounts"); err != nil {
			return nil, fmt.Errorf("%w (eth_accounts: %v)", ErrNoDeployer, err)
		}
		if len(accounts) == 0 {
			return nil, fmt.Errorf("%w (eth_accounts is empty)", ErrNoDeployer)
		}
		r.deployer, from = &unlockedSender{client: r.Client, from: accounts[0]}, accounts[0]
	}
	switch {
	case r.dep.Deployer == (common.Address{}):
		r.dep.Deployer = from
	case r.dep.Deployer != from:
		r.deployer = nil
		return nil, fmt.Errorf("devchain: the token %s was deployed by %s, only it can mint; this run deploys from %s", r.dep.Token, r.dep.Deployer, from)
	}
	return r.deployer, nil
}

// ErrNoDeployer means no key was given and the node has no unlocked account
// to deploy the token from.
var ErrNoDeployer = errors.New("devchain: no deployer: the node has no unlocked account")

func (r *Remote) save() error {
	if r.Path == "" {
		return nil
	}
	return r.dep.save(r.Path)
}

// Close closes the client; the deployment stays on the chain.
func (r *Remote) Close() error {
	r.Client.Close()
	return nil
}

// unlockedSender sends from an account the node holds the key of
// (eth_sendTransaction), as anvil and hardhat do for their test accounts.
type unlockedSender struct {
	client *evm.Client
	from   common.Address
}

func (u *unlockedSender) Send(ctx context.Context, to *common.Address, data []byte, value *big.Int) (*types.Receipt, error) {
	arg := map[string]any{"from": u.from}
	if to != nil {
		arg["to"] = *to
	}
	if len(data) > 0 {
		arg["data"] = hexutil.Bytes(data)
	}
	if value != nil {
		arg["value"] = (*hexutil.Big)(value)
	}
	var hash common.Hash
	if err := u.client.Client().CallContext(ctx, &hash, "eth_sendTransaction", arg); err != nil {
		return nil, fmt.Errorf("eth_sendTransaction from %s: %w", u.from, err)
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		rec, err := u.client.TransactionReceipt(ctx, hash)
		if err == nil && rec != nil {
			if rec.Status != types.ReceiptStatusSuccessful {
				return rec, fmt.Errorf("transaction %s reverted", hash.Hex())
			}
			return rec, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %s: %w", hash.Hex(), ctx.Err())
		case <-tick.C:
		}
	}
}
