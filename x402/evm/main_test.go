package evm_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"fmt"
	"math/big"
	"os"
	"sort"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
)

// fixture is one real chain the tests run against: the embedded dev chain
// with FareboxUSDv2, or anvil with Circle's FiatToken v2.2.
type fixture struct {
	name    string
	backend evm.Backend
	net     *x402.Network
	payer   *ecdsa.PrivateKey
	settler *evm.Settler // one per chain: it owns the relayer's nonces
	fund    func(ctx context.Context, addr common.Address, amount int64) error
	// wallet is an EIP-1271 contract wallet holding USDC; walletSign signs a digest for it.
	wallet     common.Address
	walletSign func(digest [32]byte) []byte
	anvil      *chaintest.Anvil
	// newRelayer returns a fresh key holding ETH for gas.
	newRelayer func(ctx context.Context) (*ecdsa.PrivateKey, error)
}

var fixtures []*fixture

// slow is anvil mining a block every 2 s (Base's block time) with Base's
// 150M block gas limit, for what only real block times show.
var slow *fixture

func TestMain(m *testing.M) {
	testenv.SkipMainShort(m, "the dev chain and two anvils for every test")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	dev, anv, err := start(ctx)
	var slowAnvil *chaintest.Anvil
	if err == nil {
		slowAnvil, err = startSlow(ctx)
	}
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	dev.Close()
	anv.Stop()
	slowAnvil.Stop()
	os.Exit(code)
}

func start(ctx context.Context) (*devchain.Chain, *chaintest.Anvil, error) {
	dev, err := devchain.Start(ctx, devchain.Config{})
	if err != nil {
		return nil, nil, err
	}
	devFix, err := devFixture(ctx, dev)
	if err != nil {
		dev.Close()
		return nil, nil, err
	}
	anv, err := chaintest.Start(ctx)
	if err != nil {
		dev.Close()
		return nil, nil, err
	}
	anvFix := anvilFixture("anvil-fiattoken", anv)
	if anvFix.settler, err = evm.NewSettler(ctx, anv.Client, anv.RelayerKey); err != nil {
		return nil, nil, err
	}
	anvFix.settler.PollInterval = 20 * time.Millisecond
	fixtures = []*fixture{devFix, anvFix}
	return dev, anv, nil
}

func startSlow(ctx context.Context) (*chaintest.Anvil, error) {
	a, err := chaintest.Start(ctx, chaintest.BlockTime(2*time.Second), chaintest.GasLimit(150_000_000))
	if err != nil {
		return nil, err
	}
	slow = anvilFixture("anvil-2s-blocks", a)
	if slow.settler, err = evm.NewSettler(ctx, a.Client, a.RelayerKey); err != nil {
		a.Stop()
		return nil, err
	}
	return a, nil
}

func anvilFixture(name string, a *chaintest.Anvil) *fixture {
	return &fixture{name: name, backend: a.Client, net: a.Network, payer: a.PayerKey,
		fund: a.Fund, wallet: a.Wallet, anvil: a,
		walletSign: func(d [32]byte) []byte { return sign(d, a.WalletOwnerKey) },
		newRelayer: a.NewRelayer}
}

// devFixture deploys a 2-of-2 DevWallet (130-byte signatures) on the dev
// chain and funds it.
func devFixture(ctx context.Context, dev *devchain.Chain) (*fixture, error) {
	f := &fixture{name: "devchain-fareboxusd", backend: dev.Client, net: dev.Network, payer: dev.PayerKey,
		fund: func(ctx context.Context, a common.Address, n int64) error { return dev.Fund(ctx, a, big.NewInt(n)) },
		newRelayer: func(ctx context.Context) (*ecdsa.PrivateKey, error) {
			key, err := crypto.GenerateKey()
			if err != nil {
				return nil, err
			}
			return key, dev.FundETH(ctx, crypto.PubkeyToAddress(key.PublicKey), big.NewInt(1e18))
		}}
	var err error
	if f.settler, err = evm.NewSettler(ctx, dev.Client, dev.RelayerKey); err != nil {
		return nil, err
	}
	f.settler.PollInterval = 20 * time.Millisecond
	deployer, _ := crypto.GenerateKey()
	if err := dev.FundETH(ctx, crypto.PubkeyToAddress(deployer.PublicKey), big.NewInt(1e18)); err != nil {
		return nil, err
	}
	tx, err := evm.NewTransactor(ctx, dev.Client, deployer)
	if err != nil {
		return nil, err
	}
	k1, _ := crypto.GenerateKey()
	k2, _ := crypto.GenerateKey()
	owners := []*ecdsa.PrivateKey{k1, k2}
	sort.Slice(owners, func(i, j int) bool {
		return crypto.PubkeyToAddress(owners[i].PublicKey).Cmp(crypto.PubkeyToAddress(owners[j].PublicKey)) < 0
	})
	args := contracts.NewDevWallet().PackConstructor([]common.Address{
		crypto.PubkeyToAddress(owners[0].PublicKey), crypto.PubkeyToAddress(owners[1].PublicKey)}, big.NewInt(2))
	if f.wallet, err = tx.Deploy(ctx, append(common.FromHex(contracts.DevWalletMetaData.Bin), args...)); err != nil {
		return nil, err
	}
	f.walletSign = func(d [32]byte) []byte { return append(sign(d, owners[0]), sign(d, owners[1])...) }
	return f, f.fund(ctx, f.wallet, chaintest.PayerFunds)
}

// realTimeChains are the dev chain and anvil with 2 s blocks.
func realTimeChains(t *testing.T, fn func(t *testing.T, f *fixture)) {
	for _, f := range []*fixture{fixtures[0], slow} {
		t.Run(f.name, func(t *testing.T) { fn(t, f) })
	}
}

// eachChain runs fn as a subtest per fixture.
func eachChain(t *testing.T, fn func(t *testing.T, f *fixture)) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) { fn(t, f) })
	}
}

// sign is an EOA's 65-byte EIP-712 signature with v in {27, 28}.
func sign(digest [32]byte, key *ecdsa.PrivateKey) []byte {
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		panic(err)
	}
	sig[64] += 27
	return sig
}

// authorize builds a payment of value from `from` to a fresh payTo, valid
// from 10 minutes ago for 5 minutes, signed by signFn.
func (f *fixture) authorize(from common.Address, value int64, signFn func([32]byte) []byte) (*x402.Payment, *x402.Requirement) {
	payTo := common.BytesToAddress(randomBytes(20))
	now := time.Now().Unix()
	p := &x402.Payment{Version: 2, Scheme: "exact", Network: f.net.CAIP2, Authorization: x402.Authorization{
		From: from, To: payTo, Value: big.NewInt(value),
		ValidAfter: big.NewInt(now - 600), ValidBefore: big.NewInt(now + 300)}}
	copy(p.Authorization.Nonce[:], randomBytes(32))
	p.Signature = signFn(f.net.Digest(&p.Authorization))
	req := &x402.Requirement{Scheme: "exact", Network: f.net, Amount: big.NewInt(value), PayTo: payTo, MaxTimeoutSeconds: 300}
	return p, req
}

// pay is authorize for the fixture's EOA payer.
func (f *fixture) pay(value int64) (*x402.Payment, *x402.Requirement) {
	return f.authorize(crypto.PubkeyToAddress(f.payer.PublicKey), value, func(d [32]byte) []byte { return sign(d, f.payer) })
}

// resign signs the payment's (possibly edited) authorization again with key.
func (f *fixture) resign(p *x402.Payment, key *ecdsa.PrivateKey) {
	p.Signature = sign(f.net.Digest(&p.Authorization), key)
}

func (f *fixture) balance(t testing.TB, who common.Address) *big.Int {
	t.Helper()
	tok := contracts.NewFareboxUSDv2()
	out, err := f.backend.CallContract(context.Background(), ethereum.CallMsg{To: &f.net.Asset, Data: tok.PackBalanceOf(who)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bal, err := tok.UnpackBalanceOf(out)
	if err != nil {
		t.Fatal(err)
	}
	return bal
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return b
}

// hasAuthorizationUsed looks for EIP-3009's AuthorizationUsed(from, nonce)
// in a receipt, independently of the settler's own matching.
func hasAuthorizationUsed(r *types.Receipt, p *x402.Payment) bool {
	topic := crypto.Keccak256Hash([]byte("AuthorizationUsed(address,bytes32)"))
	for _, l := range r.Logs {
		if len(l.Topics) == 3 && l.Topics[0] == topic && common.BytesToAddress(l.Topics[1][:]) == p.Authorization.From &&
			l.Topics[2] == common.Hash(p.Authorization.Nonce) {
			return true
		}
	}
	return false
}
