package channel

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
)

// TestContractWalletChannel: a smart wallet (EIP-1271, payerAuthorizer
// zero) opens a channel and pays vouchers; local checks defer its
// signatures to the chain, VerifyOnChain asks the wallet, a stranger's
// voucher is refused, and the contract claims what the wallet signed.
func TestContractWalletChannel(t *testing.T) {
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
	tok, err := contracts.DeployToken(ctx, relayer, "USDC", "2")
	if err != nil {
		t.Fatal(err)
	}
	ownerKey, _ := crypto.GenerateKey()
	wallet, err := relayer.Deploy(ctx, append(common.FromHex(contracts.DevWalletMetaData.Bin),
		contracts.NewDevWallet().PackConstructor([]common.Address{crypto.PubkeyToAddress(ownerKey.PublicKey)}, big.NewInt(1))...))
	if err != nil {
		t.Fatal(err)
	}
	if err := contracts.Mint(ctx, relayer, tok, wallet, big.NewInt(50000)); err != nil {
		t.Fatal(err)
	}
	chainID := big.NewInt(1337)
	c := NewContracts(chainID, d.BatchSettlement, d.ERC3009DepositCollector, d.Permit2DepositCollector, d.Permit2)
	net := x402.NewNetwork("", "", chainID, tok, "USDC", "2")
	receiver := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
	req := &x402.Requirement{Scheme: Scheme, Network: net, Amount: big.NewInt(1000), PayTo: receiver, MaxTimeoutSeconds: 300}
	terms := &Terms{ReceiverAuthorizer: chain.Relayer, WithdrawDelay: 900}
	ver := &Verifier{Contracts: c}
	cfg := Config{Payer: wallet, Receiver: receiver, ReceiverAuthorizer: chain.Relayer, Token: tok, WithdrawDelay: 900}
	st, err := c.Load(ctx, chain.Client, cfg, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	salt := [32]byte{5}
	validBefore := time.Now().Unix() + 300
	sig := refReceive(t, c, tok, "USDC", "2", wallet, big.NewInt(10000), validBefore, ERC3009Nonce(st.ChannelID, salt), ownerKey)
	v := refVoucher(t, c, st.ChannelID, big.NewInt(1000), ownerKey)
	p, err := DecodePayload(mustJSON(map[string]any{"type": "deposit", "channelConfig": cfg,
		"voucher": map[string]any{"channelId": common.Hash(st.ChannelID).Hex(), "maxClaimableAmount": "1000", "signature": hexutil.Encode(v.Signature)},
		"deposit": map[string]any{"amount": "10000", "authorization": map[string]any{"erc3009Authorization": map[string]any{
			"validAfter": "0", "validBefore": big.NewInt(validBefore).String(), "salt": common.Hash(salt).Hex(), "signature": hexutil.Encode(sig)}}}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := ver.Verify(p, req, terms, st); err != ErrNeedsChain {
		t.Fatalf("wallet deposit: %v, want ErrNeedsChain", err)
	}
	if err := ver.VerifyOnChain(ctx, chain.Client, p, req); err != nil {
		t.Fatalf("wallet deposit refused on chain: %v", err)
	}
	data, err := c.DepositCalldata(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := relayer.Send(ctx, &c.Settlement, data, nil); err != nil {
		t.Fatal(err)
	}
	o, err := c.ReadOnchain(ctx, chain.Client, st.ChannelID)
	if err != nil {
		t.Fatal(err)
	}
	if st, err = st.Mirror(o, time.Now()).Commit(&p.Voucher, big.NewInt(400), req.Amount, time.Now()); err != nil {
		t.Fatal(err)
	}
	voucher := func(key *ecdsa.PrivateKey) *Payload {
		t.Helper()
		v := refVoucher(t, c, st.ChannelID, new(big.Int).Add(st.Charged, req.Amount), key)
		p, err := DecodePayload(mustJSON(map[string]any{"type": "voucher", "channelConfig": cfg,
			"voucher": map[string]any{"channelId": common.Hash(st.ChannelID).Hex(), "maxClaimableAmount": v.MaxClaimable.String(),
				"signature": hexutil.Encode(v.Signature)}}))
		if err != nil {
			t.Fatal(err)
		}
		if err := ver.Verify(p, req, terms, st); err != ErrNeedsChain {
			t.Fatalf("wallet voucher: %v, want ErrNeedsChain", err)
		}
		return p
	}
	stranger, _ := crypto.GenerateKey()
	if err := ver.VerifyOnChain(ctx, chain.Client, voucher(stranger), req); reason(err) != ReasonVoucherSignature {
		t.Fatalf("a stranger's voucher: %v", err)
	}
	p = voucher(ownerKey)
	if err := ver.VerifyOnChain(ctx, chain.Client, p, req); err != nil {
		t.Fatalf("the wallet's voucher refused: %v", err)
	}
	if st, err = st.Commit(&p.Voucher, big.NewInt(900), req.Amount, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := relayer.Send(ctx, &c.Settlement, ClaimAndSettleCalldata(Claims([]*State{st}), receiver, tok), nil); err != nil {
		t.Fatal(err)
	}
	if got := tokenBalance(t, ctx, chain.Client, tok, receiver); got != 1300 {
		t.Fatalf("receiver holds %d, want the 1300 charged", got)
	}
}

// TestIsValidSignatureCalldata: the hand-encoded EIP-1271 call is the
// ABI encoding of isValidSignature(bytes32, bytes) for signatures of
// every padding.
func TestIsValidSignatureCalldata(t *testing.T) {
	digest := [32]byte{1, 2, 3}
	for _, n := range []int{0, 1, 32, 65, 130} {
		sig := make([]byte, n)
		for i := range sig {
			sig[i] = byte(i + 1)
		}
		got := eip712.IsValidSignatureCalldata(digest, sig)
		if want := contracts.NewDevWallet().PackIsValidSignature(digest, sig); string(got) != string(want) {
			t.Fatalf("%d-byte signature: calldata %x, want %x", n, got, want)
		}
	}
}
