package channel_test

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/tidwall/gjson"
)

// TestOfficialClientOnAnvilUSDC runs a channel's whole life with Circle's
// FiatToken v2.2 on anvil mining every 2 s, the contracts at their
// canonical addresses and @x402/evm's client: deposit, vouchers, a claim and
// the sweep in one transaction sent by the receiver authorizer, and a full
// cooperative refund. USDC balances must come out exact.
func TestOfficialClientOnAnvilUSDC(t *testing.T) {
	installClients(t)
	a := chaintest.StartAnvil(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	chainID := big.NewInt(chaintest.ChainID)
	if err := contracts.InstallCanonical(ctx, a.Client.Client(), chainID); err != nil {
		t.Fatal(err)
	}
	relayerKey, err := a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	relayer, err := evm.NewTransactor(ctx, a.Client, relayerKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Client.Client().CallContext(ctx, nil, "evm_setIntervalMining", 2); err != nil {
		t.Fatal(err)
	}
	usdc := func(who common.Address) int64 {
		t.Helper()
		tok := contracts.NewFareboxUSDv2() // balanceOf is ERC-20's
		out, err := a.Client.CallContract(ctx, ethereum.CallMsg{To: &a.Network.Asset, Data: tok.PackBalanceOf(who)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := tok.UnpackBalanceOf(out)
		return v.Int64()
	}
	d := contracts.Canonical()
	c := channel.NewContracts(chainID, d.BatchSettlement, d.ERC3009DepositCollector, d.Permit2DepositCollector, d.Permit2)
	receiver := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
	req := &x402.Requirement{Scheme: channel.Scheme, Network: a.Network, Amount: big.NewInt(2500), PayTo: receiver, MaxTimeoutSeconds: 300}
	terms := &channel.Terms{ReceiverAuthorizer: relayer.From(), WithdrawDelay: 900}
	ver := &channel.Verifier{Contracts: c, MaxStaleness: time.Minute}
	var accept map[string]any
	if err := json.Unmarshal(channel.Accept(req, terms, nil), &accept); err != nil {
		t.Fatal(err)
	}
	payerKey := hexutil.Encode(crypto.FromECDSA(a.PayerKey))
	funds := usdc(a.Payer)
	send := func(data []byte) {
		t.Helper()
		if _, err := relayer.Send(ctx, &c.Settlement, data, nil); err != nil {
			t.Fatal(err)
		}
	}
	mirror := func(s *channel.State) *channel.State {
		t.Helper()
		o, err := c.ReadOnchain(ctx, a.Client, s.ChannelID)
		if err != nil {
			t.Fatal(err)
		}
		return s.Mirror(o, time.Now())
	}

	var st *channel.State
	var charged int64
	for i, charge := range []int64{1999, 2500, 1, 731} {
		var channels map[string]any
		if st != nil {
			channels = map[string]any{common.Hash(st.ChannelID).Hex(): map[string]any{
				"balance": st.Balance.String(), "chargedCumulativeAmount": st.Charged.String()}}
		}
		out := officialPayment(t, map[string]any{"scheme": "batch-settlement", "privateKey": payerKey,
			"requirements": accept, "channels": channels})
		p, err := channel.DecodePayload([]byte(gjson.GetBytes(out, "payload").Raw))
		if err != nil {
			t.Fatal(err)
		}
		if st == nil {
			if st, err = c.Load(ctx, a.Client, p.Config, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if err := ver.Verify(p, req, terms, st); err != nil {
			t.Fatalf("payment %d (%s) refused: %v", i, p.Type, err)
		}
		if p.Type == channel.TypeDeposit {
			data, err := c.DepositCalldata(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			send(data)
			st = mirror(st)
		}
		if st, err = st.Commit(&p.Voucher, big.NewInt(charge), req.Amount, time.Now()); err != nil {
			t.Fatal(err)
		}
		charged += charge
	}
	deposit := st.Balance.Int64()
	if deposit != 5*2500 || usdc(a.Payer) != funds-deposit {
		t.Fatalf("one deposit of 5 x 2500 expected: channel %d, payer %d of %d", deposit, usdc(a.Payer), funds)
	}
	send(channel.ClaimAndSettleCalldata(channel.Claims([]*channel.State{st}), receiver, a.Network.Asset))
	if got := usdc(receiver); got != charged {
		t.Fatalf("receiver holds %d USDC units, want exactly the %d charged", got, charged)
	}
	st = mirror(st)
	send(channel.RefundWithClaim(st, st.Refundable()))
	if got := usdc(a.Payer); got != funds-charged {
		t.Fatalf("payer holds %d after the refund, want %d", got, funds-charged)
	}
	if got := usdc(c.Settlement); got != 0 {
		t.Fatalf("escrow still holds %d", got)
	}
}
