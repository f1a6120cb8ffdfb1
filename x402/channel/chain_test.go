package channel

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
)

func tokenBalance(t *testing.T, ctx context.Context, b ethereum.ContractCaller, token, who common.Address) int64 {
	t.Helper()
	tok := contracts.NewFareboxUSDv2()
	out, err := b.CallContract(ctx, ethereum.CallMsg{To: &token, Data: tok.PackBalanceOf(who)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tok.UnpackBalanceOf(out)
	if err != nil {
		t.Fatal(err)
	}
	return v.Int64()
}

// TestChannelsOnChain opens three channels with ERC-3009 deposits signed as
// @x402/evm signs them, pays requests with vouchers verified locally,
// claims all three channels in one transaction, sweeps to the receiver and
// refunds one payer cooperatively; the chain judges every balance.
func TestChannelsOnChain(t *testing.T) {
	testenv.SkipShort(t, "the in-process dev chain")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	chain, err := devchain.Start(ctx, devchain.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer chain.Close()
	relayer, err := evm.NewTransactor(ctx, chain.Client, chain.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	d, err := contracts.Deploy(ctx, relayer)
	if err != nil {
		t.Fatal(err)
	}
	token, err := contracts.DeployToken(ctx, relayer, "USDC", "2")
	if err != nil {
		t.Fatal(err)
	}
	chainID := big.NewInt(1337)
	c := NewContracts(chainID, d.BatchSettlement, d.ERC3009DepositCollector, d.Permit2DepositCollector, d.Permit2)
	net := x402.NewNetwork("", "", chainID, token, "USDC", "2")
	receiver := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
	req := &x402.Requirement{Scheme: Scheme, Network: net, Amount: big.NewInt(1000), PayTo: receiver, MaxTimeoutSeconds: 300}
	terms := &Terms{ReceiverAuthorizer: chain.Relayer, WithdrawDelay: 900}
	ver := &Verifier{Contracts: c, MaxStaleness: time.Minute}
	send := func(data []byte) {
		t.Helper()
		if _, err := relayer.Send(ctx, &c.Settlement, data, nil); err != nil {
			t.Fatal(err)
		}
	}
	mirror := func(s *State) *State {
		t.Helper()
		o, err := c.ReadOnchain(ctx, chain.Client, s.ChannelID)
		if err != nil {
			t.Fatal(err)
		}
		return s.Mirror(o, time.Now())
	}

	const deposit, funds = 10000, 50000
	type payer struct {
		key *ecdsa.PrivateKey
		st  *State
	}
	var payers []*payer
	var charged int64
	for i := 0; i < 3; i++ {
		key, _ := crypto.GenerateKey()
		addr := crypto.PubkeyToAddress(key.PublicKey)
		if err := contracts.Mint(ctx, relayer, token, addr, big.NewInt(funds)); err != nil {
			t.Fatal(err)
		}
		cfg := Config{Payer: addr, PayerAuthorizer: addr, Receiver: receiver, ReceiverAuthorizer: terms.ReceiverAuthorizer,
			Token: token, WithdrawDelay: terms.WithdrawDelay, Salt: [32]byte{31: byte(i)}}
		st, err := c.Load(ctx, chain.Client, cfg, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if st.ChannelID != refChannelID(t, c, &cfg) {
			t.Fatal("channel id differs from viem's")
		}
		// The first request deposits and signs the first voucher in one payload.
		salt := [32]byte{0xaa, byte(i)}
		validBefore := time.Now().Unix() + 300
		sig := refReceive(t, c, token, "USDC", "2", addr, big.NewInt(deposit), validBefore, ERC3009Nonce(st.ChannelID, salt), key)
		v := refVoucher(t, c, st.ChannelID, big.NewInt(1000), key)
		raw := mustJSON(map[string]any{"type": "deposit", "channelConfig": cfg,
			"voucher": map[string]any{"channelId": common.Hash(st.ChannelID).Hex(), "maxClaimableAmount": "1000",
				"signature": hexutil.Encode(v.Signature)},
			"deposit": map[string]any{"amount": "10000", "authorization": map[string]any{"erc3009Authorization": map[string]any{
				"validAfter": "0", "validBefore": big.NewInt(validBefore).String(), "salt": common.Hash(salt).Hex(),
				"signature": hexutil.Encode(sig)}}}})
		p, err := DecodePayload(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := ver.Verify(p, req, terms, st); err != nil {
			t.Fatalf("deposit refused: %v", err)
		}
		data, err := c.DepositCalldata(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		send(data)
		st = mirror(st)
		if st.Balance.Int64() != deposit {
			t.Fatalf("channel balance %s after deposit", st.Balance)
		}
		charge := big.NewInt(int64(300 + 100*i))
		if st, err = st.Commit(&p.Voucher, charge, req.Amount, time.Now()); err != nil {
			t.Fatal(err)
		}
		charged += charge.Int64()
		payers = append(payers, &payer{key: key, st: st})
	}
	// Vouchers: zero chain work per request.
	for round := 0; round < 4; round++ {
		for i, p := range payers {
			max := new(big.Int).Add(p.st.Charged, req.Amount)
			v := refVoucher(t, c, p.st.ChannelID, max, p.key)
			raw := mustJSON(map[string]any{"type": "voucher", "channelConfig": p.st.Config,
				"voucher": map[string]any{"channelId": common.Hash(v.ChannelID).Hex(), "maxClaimableAmount": max.String(),
					"signature": hexutil.Encode(v.Signature)}})
			pl, err := DecodePayload(raw)
			if err != nil {
				t.Fatal(err)
			}
			if err := ver.Verify(pl, req, terms, p.st); err != nil {
				t.Fatalf("voucher refused: %v", err)
			}
			charge := big.NewInt(int64(17*round + i + 1))
			if p.st, err = p.st.Commit(&pl.Voucher, charge, req.Amount, time.Now()); err != nil {
				t.Fatal(err)
			}
			charged += charge.Int64()
		}
	}
	if got := tokenBalance(t, ctx, chain.Client, token, c.Settlement); got != 3*deposit {
		t.Fatalf("escrow holds %d, want %d", got, 3*deposit)
	}
	// One claim transaction for all three channels, then one sweep.
	var states []*State
	for _, p := range payers {
		states = append(states, p.st)
	}
	claims := Claims(states)
	if len(claims) != 3 {
		t.Fatalf("%d claim rows, want 3", len(claims))
	}
	data, err := c.ClaimWithSignatureCalldata(claims, chain.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	send(data)
	for _, p := range payers {
		p.st = mirror(p.st)
		if p.st.TotalClaimed.Cmp(p.st.Charged) != 0 || p.st.Unclaimed().Sign() != 0 {
			t.Errorf("channel claimed %s of %s", p.st.TotalClaimed, p.st.Charged)
		}
	}
	if got := tokenBalance(t, ctx, chain.Client, token, receiver); got != 0 {
		t.Fatalf("claim moved %d to the receiver; only settle may", got)
	}
	send(SettleCalldata(receiver, token))
	if got := tokenBalance(t, ctx, chain.Client, token, receiver); got != charged {
		t.Fatalf("receiver holds %d, want exactly the %d charged", got, charged)
	}
	if got := tokenBalance(t, ctx, chain.Client, token, c.Settlement); got != 3*deposit-charged {
		t.Fatalf("escrow holds %d, want %d", got, 3*deposit-charged)
	}
	// Cooperative refund of payer 0 after one more unclaimed charge: the
	// claim and the refund go in one transaction.
	p0 := payers[0]
	max := new(big.Int).Add(p0.st.Charged, req.Amount)
	v := refVoucher(t, c, p0.st.ChannelID, max, p0.key)
	if p0.st, err = p0.st.Commit(&v, big.NewInt(55), req.Amount, time.Now()); err != nil {
		t.Fatal(err)
	}
	rv := refVoucher(t, c, p0.st.ChannelID, p0.st.Charged, p0.key)
	rp, err := DecodePayload(mustJSON(map[string]any{"type": "refund", "channelConfig": p0.st.Config,
		"voucher": map[string]any{"channelId": common.Hash(rv.ChannelID).Hex(), "maxClaimableAmount": p0.st.Charged.String(),
			"signature": hexutil.Encode(rv.Signature)}}))
	if err != nil {
		t.Fatal(err)
	}
	amount, err := ver.VerifyRefund(rp, req, terms, p0.st)
	if err != nil {
		t.Fatal(err)
	}
	send(RefundWithClaim(p0.st, amount))
	p0.st = mirror(p0.st)
	payer0 := crypto.PubkeyToAddress(p0.key.PublicKey)
	if got, want := tokenBalance(t, ctx, chain.Client, token, payer0), funds-p0.st.Charged.Int64(); got != want {
		t.Fatalf("refunded payer holds %d, want %d (funds minus exactly what was charged)", got, want)
	}
	if p0.st.Balance.Cmp(p0.st.TotalClaimed) != 0 || p0.st.RefundNonce.Int64() != 1 {
		t.Errorf("after refund: balance %s, claimed %s, refund nonce %s", p0.st.Balance, p0.st.TotalClaimed, p0.st.RefundNonce)
	}
}
