package channel_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/chaintest"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/upto"
	"github.com/tidwall/gjson"
)

// nodeDir holds the official clients' package.json and lockfile.
const nodeDir = "testdata/node"

// installClients finds the official clients of nodeDir (chaintest.NodeClients).
func installClients(t *testing.T) {
	t.Helper()
	if err := chaintest.NodeClients(t, nodeDir); err != nil {
		t.Fatal(err)
	}
}

// officialPayment asks @x402/evm's client for a payment payload.
func officialPayment(t *testing.T, request map[string]any) []byte {
	t.Helper()
	in, _ := json.Marshal(request)
	cmd := exec.Command("node", "client.mjs")
	cmd.Dir = nodeDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s", err, stderr.String())
	}
	return out
}

// canonicalChain is an in-process chain with the x402 contracts at their
// canonical addresses (where @x402/evm looks for them), a FareboxUSDv2, a
// relayer that is also the receiver authorizer and facilitator, and an
// HTTP JSON-RPC endpoint for the clients' reads. Blocks are mined by send.
type canonicalChain struct {
	b       *simulated.Backend
	c       simulated.Client
	id      *big.Int
	relayer *ecdsa.PrivateKey
	from    common.Address
	token   common.Address
	rpcURL  string
}

func startCanonical(t *testing.T, ctx context.Context) *canonicalChain {
	t.Helper()
	id := big.NewInt(84532)
	alloc, err := contracts.CanonicalAlloc(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := crypto.GenerateKey()
	cc := &canonicalChain{id: id, relayer: key, from: crypto.PubkeyToAddress(key.PublicKey)}
	alloc[cc.from] = types.Account{Balance: new(big.Int).Mul(big.NewInt(100), big.NewInt(params.Ether))}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cfg := *params.AllDevChainProtocolChanges
	cfg.ChainID = id
	cc.b = simulated.NewBackend(alloc, func(nc *node.Config, ec *ethconfig.Config) {
		ec.Genesis.Config, ec.NetworkId = &cfg, id.Uint64()
		nc.HTTPHost, nc.HTTPPort, nc.HTTPModules = "127.0.0.1", port, []string{"eth", "net", "web3"}
		nc.HTTPVirtualHosts = []string{"localhost", "127.0.0.1"}
	})
	t.Cleanup(func() { cc.b.Close() })
	cc.c, cc.rpcURL = cc.b.Client(), fmt.Sprintf("http://127.0.0.1:%d", port)
	r := cc.send(t, ctx, nil, append(common.FromHex(contracts.FareboxUSDv2MetaData.Bin),
		contracts.NewFareboxUSDv2().PackConstructor("USDC", "2", "USDC")...))
	cc.token = r.ContractAddress
	return cc
}

// send mines one transaction from the relayer and requires it to succeed.
func (cc *canonicalChain) send(t *testing.T, ctx context.Context, to *common.Address, data []byte) *types.Receipt {
	t.Helper()
	nonce, err := cc.c.PendingNonceAt(ctx, cc.from)
	if err != nil {
		t.Fatal(err)
	}
	gas, err := cc.c.EstimateGas(ctx, ethereum.CallMsg{From: cc.from, To: to, Data: data})
	if err != nil {
		t.Fatalf("estimating: %v", err)
	}
	head, _ := cc.c.HeaderByNumber(ctx, nil)
	tip, _ := cc.c.SuggestGasTipCap(ctx)
	tx, err := types.SignNewTx(cc.relayer, types.LatestSignerForChainID(cc.id), &types.DynamicFeeTx{ChainID: cc.id,
		Nonce: nonce, Gas: gas * 2, To: to, Data: data, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))})
	if err != nil {
		t.Fatal(err)
	}
	if err := cc.c.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	cc.b.Commit()
	for {
		r, err := cc.c.TransactionReceipt(ctx, tx.Hash())
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("transaction %s reverted", tx.Hash())
			}
			return r
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(5 * time.Millisecond): // the backend indexes mined blocks asynchronously
		}
	}
}

func (cc *canonicalChain) balance(t *testing.T, ctx context.Context, who common.Address) int64 {
	t.Helper()
	tok := contracts.NewFareboxUSDv2()
	out, err := cc.c.CallContract(ctx, ethereum.CallMsg{To: &cc.token, Data: tok.PackBalanceOf(who)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := tok.UnpackBalanceOf(out)
	return v.Int64()
}

// TestOfficialBatchSettlementClient pays with @x402/evm's
// BatchSettlementEvmScheme: its deposit and its vouchers pass the Go
// verifier, the deposit and the claim land on chain, and the receiver gets
// exactly what was charged.
func TestOfficialBatchSettlementClient(t *testing.T) {
	installClients(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cc := startCanonical(t, ctx)
	payerKey, _ := crypto.GenerateKey()
	payer := crypto.PubkeyToAddress(payerKey.PublicKey)
	token := cc.token
	cc.send(t, ctx, &token, contracts.NewFareboxUSDv2().PackMint(payer, big.NewInt(1_000_000)))

	d := contracts.Canonical()
	c := channel.NewContracts(cc.id, d.BatchSettlement, d.ERC3009DepositCollector, d.Permit2DepositCollector, d.Permit2)
	net := x402.NewNetwork("", "", cc.id, cc.token, "USDC", "2")
	receiver := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
	req := &x402.Requirement{Scheme: channel.Scheme, Network: net, Amount: big.NewInt(1000), PayTo: receiver, MaxTimeoutSeconds: 300}
	terms := &channel.Terms{ReceiverAuthorizer: cc.from, WithdrawDelay: 900}
	ver := &channel.Verifier{Contracts: c}
	var accept map[string]any
	if err := json.Unmarshal(channel.Accept(req, terms, nil), &accept); err != nil {
		t.Fatal(err)
	}
	pay := func(channels map[string]any) *channel.Payload {
		t.Helper()
		out := officialPayment(t, map[string]any{"scheme": "batch-settlement", "privateKey": hexutil.Encode(crypto.FromECDSA(payerKey)),
			"requirements": accept, "channels": channels})
		p, err := channel.DecodePayload([]byte(gjson.GetBytes(out, "payload").Raw))
		if err != nil {
			t.Fatalf("decoding the official payload: %v\n%s", err, out)
		}
		return p
	}

	// First request: the client deposits (5 x the request amount) and signs the first voucher.
	p := pay(nil)
	if p.Type != channel.TypeDeposit || p.Deposit.ERC3009 == nil {
		t.Fatalf("first payment is %q, want an ERC-3009 deposit", p.Type)
	}
	st, err := c.Load(ctx, cc.c, p.Config, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := ver.Verify(p, req, terms, st); err != nil {
		t.Fatalf("official deposit refused: %v", err)
	}
	data, err := c.DepositCalldata(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	cc.send(t, ctx, &c.Settlement, data)
	o, err := c.ReadOnchain(ctx, cc.c, st.ChannelID)
	if err != nil {
		t.Fatal(err)
	}
	st = st.Mirror(o, time.Now())
	deposit := p.Deposit.Amount.Int64()
	if st.Balance.Int64() != deposit || cc.balance(t, ctx, payer) != 1_000_000-deposit {
		t.Fatalf("after the deposit: channel %s, payer %d", st.Balance, cc.balance(t, ctx, payer))
	}
	charges := []int64{640, 1000, 0, 337}
	var charged int64
	for i, ch := range charges {
		if i > 0 {
			// The client remembers the deposit and the charges our receipts reported.
			p = pay(map[string]any{common.Hash(st.ChannelID).Hex(): map[string]any{
				"balance": st.Balance.String(), "chargedCumulativeAmount": st.Charged.String()}})
			if p.Type != channel.TypeVoucher {
				t.Fatalf("payment %d is %q, want a voucher", i, p.Type)
			}
			if err := ver.Verify(p, req, terms, st); err != nil {
				t.Fatalf("official voucher %d refused: %v", i, err)
			}
		}
		if st, err = st.Commit(&p.Voucher, big.NewInt(ch), req.Amount, time.Now()); err != nil {
			t.Fatal(err)
		}
		charged += ch
	}
	// A client that lost track of one charge gets the corrective 402.
	p = pay(map[string]any{common.Hash(st.ChannelID).Hex(): map[string]any{"balance": st.Balance.String(), "chargedCumulativeAmount": "640"}})
	var ce *channel.Error
	if err := ver.Verify(p, req, terms, st); !errors.As(err, &ce) || ce.Reason != channel.ReasonCumulativeAmountMismatch {
		t.Fatalf("stale voucher: %v", err)
	}
	data, err = c.ClaimWithSignatureCalldata(channel.Claims([]*channel.State{st}), cc.relayer)
	if err != nil {
		t.Fatal(err)
	}
	cc.send(t, ctx, &c.Settlement, data)
	cc.send(t, ctx, &c.Settlement, channel.SettleCalldata(receiver, cc.token))
	if got := cc.balance(t, ctx, receiver); got != charged {
		t.Fatalf("receiver holds %d, want exactly the %d charged", got, charged)
	}
}

// TestOfficialUptoClient pays with @x402/evm's UptoEvmScheme: a payer with
// no ETH and no Permit2 approval signs the permit because the offer
// declares eip2612GasSponsoring; farebox settles the actual charge.
func TestOfficialUptoClient(t *testing.T) {
	installClients(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cc := startCanonical(t, ctx)
	payerKey, _ := crypto.GenerateKey()
	payer := crypto.PubkeyToAddress(payerKey.PublicKey)
	token := cc.token
	cc.send(t, ctx, &token, contracts.NewFareboxUSDv2().PackMint(payer, big.NewInt(1_000_000)))
	d := contracts.Canonical()
	net := x402.NewNetwork("", "", cc.id, cc.token, "USDC", "2")
	receiver := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
	req := &x402.Requirement{Scheme: upto.Scheme, Network: net, Amount: big.NewInt(50000), PayTo: receiver, MaxTimeoutSeconds: 300}
	var accept map[string]any
	if err := json.Unmarshal(upto.Accept(req, cc.from), &accept); err != nil {
		t.Fatal(err)
	}
	out := officialPayment(t, map[string]any{"scheme": "upto", "privateKey": hexutil.Encode(crypto.FromECDSA(payerKey)),
		"requirements": accept, "rpcUrl": cc.rpcURL,
		"extensions": map[string]any{eip712.GasSponsoringKey: json.RawMessage(eip712.GasSponsoringDeclaration())}})
	p, err := upto.DecodePayload([]byte(gjson.GetBytes(out, "payload").Raw), []byte(gjson.GetBytes(out, "extensions").Raw))
	if err != nil {
		t.Fatalf("decoding the official payload: %v\n%s", err, out)
	}
	if p.GasSponsoring == nil {
		t.Fatalf("the client sent no EIP-2612 permit:\n%s", out)
	}
	v := &upto.Verifier{Contracts: upto.NewContracts(cc.id, d.Permit2, d.UptoPermit2Proxy), Facilitator: cc.from}
	if err := v.Verify(p, req); err != nil {
		t.Fatalf("official upto payment refused: %v", err)
	}
	data, err := upto.SettleCalldata(p, big.NewInt(12_345))
	if err != nil {
		t.Fatal(err)
	}
	proxy := d.UptoPermit2Proxy
	cc.send(t, ctx, &proxy, data)
	if got := cc.balance(t, ctx, receiver); got != 12_345 {
		t.Fatalf("receiver holds %d, want the 12345 charged", got)
	}
	if got := cc.balance(t, ctx, payer); got != 1_000_000-12_345 {
		t.Fatalf("payer holds %d, want %d", got, 1_000_000-12_345)
	}
}

// TestOfficialPermit2Deposit opens a channel the way @x402/evm does when the
// offer asks for Permit2 deposits and declares gas sponsoring: a payer that
// never approved Permit2 signs a Permit2 witness transfer and an EIP-2612
// permit; the deposit goes through the Permit2 deposit collector.
func TestOfficialPermit2Deposit(t *testing.T) {
	installClients(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cc := startCanonical(t, ctx)
	payerKey, _ := crypto.GenerateKey()
	payer := crypto.PubkeyToAddress(payerKey.PublicKey)
	token := cc.token
	cc.send(t, ctx, &token, contracts.NewFareboxUSDv2().PackMint(payer, big.NewInt(1_000_000)))
	d := contracts.Canonical()
	c := channel.NewContracts(cc.id, d.BatchSettlement, d.ERC3009DepositCollector, d.Permit2DepositCollector, d.Permit2)
	net := x402.NewNetwork("", "", cc.id, cc.token, "USDC", "2")
	req := &x402.Requirement{Scheme: channel.Scheme, Network: net, Amount: big.NewInt(2000),
		PayTo: common.HexToAddress("0x00000000000000000000000000000000000f00d5"), MaxTimeoutSeconds: 300}
	terms := &channel.Terms{ReceiverAuthorizer: cc.from, WithdrawDelay: 3600, AssetTransferMethod: channel.MethodPermit2,
		MinDeposit: big.NewInt(30000)}
	var accept map[string]any
	if err := json.Unmarshal(channel.Accept(req, terms, nil), &accept); err != nil {
		t.Fatal(err)
	}
	out := officialPayment(t, map[string]any{"scheme": "batch-settlement", "privateKey": hexutil.Encode(crypto.FromECDSA(payerKey)),
		"requirements": accept, "rpcUrl": cc.rpcURL,
		"extensions": map[string]any{eip712.GasSponsoringKey: json.RawMessage(eip712.GasSponsoringDeclaration())}})
	p, err := channel.DecodePayload([]byte(gjson.GetBytes(out, "payload").Raw))
	if err != nil {
		t.Fatalf("decoding the official payload: %v\n%s", err, out)
	}
	if p.Type != channel.TypeDeposit || p.Deposit.Permit2 == nil || p.Deposit.Amount.Int64() != 30000 {
		t.Fatalf("want a Permit2 deposit of the announced minimum 30000:\n%s", out)
	}
	g, err := eip712.DecodeGasSponsoring([]byte(gjson.GetBytes(out, "extensions").Raw))
	if err != nil || g == nil {
		t.Fatalf("no EIP-2612 permit (%v):\n%s", err, out)
	}
	if r := g.Verify(net, d.Permit2, payer, p.Deposit.Amount, time.Now()); r != "" {
		t.Fatalf("permit refused: %s", r)
	}
	st, err := c.Load(ctx, cc.c, p.Config, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := (&channel.Verifier{Contracts: c}).Verify(p, req, terms, st); err != nil {
		t.Fatalf("official Permit2 deposit refused: %v", err)
	}
	data, err := c.DepositCalldata(p, g.CollectorData())
	if err != nil {
		t.Fatal(err)
	}
	cc.send(t, ctx, &c.Settlement, data)
	o, err := c.ReadOnchain(ctx, cc.c, st.ChannelID)
	if err != nil {
		t.Fatal(err)
	}
	if o.Balance.Int64() != 30000 || cc.balance(t, ctx, payer) != 1_000_000-30000 || cc.balance(t, ctx, c.Settlement) != 30000 {
		t.Fatalf("after the deposit: channel %s, payer %d, escrow %d", o.Balance, cc.balance(t, ctx, payer), cc.balance(t, ctx, c.Settlement))
	}
}
