package upto

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"math/big"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
)

func sign(t testing.TB, td apitypes.TypedData, key *ecdsa.PrivateKey) string {
	t.Helper()
	h, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(h, key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return hexutil.Encode(sig)
}

// client builds upto payments the way @x402/evm's UptoEvmScheme does,
// signing through apitypes (what viem computes).
type client struct {
	key                     *ecdsa.PrivateKey
	chainID                 *big.Int
	permit2, proxy, token   common.Address
	tokenName, tokenVersion string
}

func (c *client) payment(t testing.TB, req *x402.Requirement, facilitator common.Address, deadline int64,
	nonce *big.Int, permitNonce int64) (payload, extensions []byte) {
	from := crypto.PubkeyToAddress(c.key.PublicKey)
	msg := apitypes.TypedDataMessage{
		"permitted": map[string]any{"token": c.token.Hex(), "amount": req.Amount.String()},
		"spender":   c.proxy.Hex(), "nonce": nonce.String(), "deadline": big.NewInt(deadline).String(),
		"witness": map[string]any{"to": req.PayTo.Hex(), "facilitator": facilitator.Hex(), "validAfter": "0"},
	}
	sig := sign(t, apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"PermitWitnessTransferFrom": {{Name: "permitted", Type: "TokenPermissions"}, {Name: "spender", Type: "address"},
				{Name: "nonce", Type: "uint256"}, {Name: "deadline", Type: "uint256"}, {Name: "witness", Type: "Witness"}},
			"TokenPermissions": {{Name: "token", Type: "address"}, {Name: "amount", Type: "uint256"}},
			"Witness":          {{Name: "to", Type: "address"}, {Name: "facilitator", Type: "address"}, {Name: "validAfter", Type: "uint256"}},
		},
		PrimaryType: "PermitWitnessTransferFrom",
		Domain:      apitypes.TypedDataDomain{Name: "Permit2", ChainId: (*math.HexOrDecimal256)(c.chainID), VerifyingContract: c.permit2.Hex()},
		Message:     msg,
	}, c.key)
	payload, _ = json.Marshal(map[string]any{"signature": sig, "permit2Authorization": map[string]any{
		"from": from.Hex(), "permitted": msg["permitted"], "spender": msg["spender"], "nonce": msg["nonce"],
		"deadline": msg["deadline"], "witness": msg["witness"]}})
	if permitNonce < 0 {
		return payload, nil
	}
	psig := sign(t, apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
				{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"Permit": {{Name: "owner", Type: "address"}, {Name: "spender", Type: "address"}, {Name: "value", Type: "uint256"},
				{Name: "nonce", Type: "uint256"}, {Name: "deadline", Type: "uint256"}},
		},
		PrimaryType: "Permit",
		Domain: apitypes.TypedDataDomain{Name: c.tokenName, Version: c.tokenVersion,
			ChainId: (*math.HexOrDecimal256)(c.chainID), VerifyingContract: c.token.Hex()},
		Message: apitypes.TypedDataMessage{"owner": from.Hex(), "spender": c.permit2.Hex(), "value": req.Amount.String(),
			"nonce": big.NewInt(permitNonce).String(), "deadline": big.NewInt(deadline).String()},
	}, c.key)
	extensions, _ = json.Marshal(map[string]any{eip712.GasSponsoringKey: map[string]any{"info": map[string]any{
		"from": from.Hex(), "asset": c.token.Hex(), "spender": c.permit2.Hex(), "amount": req.Amount.String(),
		"nonce": big.NewInt(permitNonce).String(), "deadline": big.NewInt(deadline).String(), "signature": psig, "version": "1"}}})
	return payload, extensions
}

func reasonOf(err error) string {
	var xe *x402.Error
	if errors.As(err, &xe) {
		return xe.Reason
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestVerifyRefusals(t *testing.T) {
	key, _ := crypto.GenerateKey()
	now := time.Unix(1_800_000_000, 0)
	cl := &client{key: key, chainID: big.NewInt(84532), permit2: contracts.CanonicalPermit2, proxy: contracts.CanonicalUptoPermit2Proxy,
		token: common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e"), tokenName: "USDC", tokenVersion: "2"}
	net := x402.NewNetwork("", "", cl.chainID, cl.token, "USDC", "2")
	req := &x402.Requirement{Scheme: Scheme, Network: net, Amount: big.NewInt(50000), PayTo: common.HexToAddress("0xbeef"), MaxTimeoutSeconds: 300}
	fac := common.HexToAddress("0xfac")
	v := &Verifier{Contracts: NewContracts(cl.chainID, cl.permit2, cl.proxy), Facilitator: fac, Now: func() time.Time { return now }}
	check := func(name, want string, payload, ext []byte, r *x402.Requirement) {
		t.Helper()
		p, err := DecodePayload(payload, ext)
		if err != nil {
			t.Fatalf("%s: decode: %v", name, err)
		}
		if got := reasonOf(v.Verify(p, r)); got != want {
			t.Errorf("%s: reason %q, want %q", name, got, want)
		}
	}
	ok, ext := cl.payment(t, req, fac, now.Unix()+300, big.NewInt(7), 0)
	check("valid with permit", "", ok, ext, req)
	check("valid without permit", "", ok, nil, req)
	other, _ := cl.payment(t, req, common.HexToAddress("0xbad"), now.Unix()+300, big.NewInt(7), -1)
	check("another facilitator", ReasonFacilitatorMismatch, other, nil, req)
	far, _ := cl.payment(t, req, fac, now.Unix()+3600, big.NewInt(7), -1)
	check("deadline too far", ReasonDeadlineExpired, far, nil, req)
	soon, _ := cl.payment(t, req, fac, now.Unix()+3, big.NewInt(7), -1)
	check("deadline too close", ReasonDeadlineExpired, soon, nil, req)
	higher := *req
	higher.Amount = big.NewInt(60000)
	check("ceiling differs", ReasonAmountMismatch, ok, nil, &higher)
	var m map[string]any
	json.Unmarshal(ok, &m)
	m["permit2Authorization"].(map[string]any)["nonce"] = "8"
	forged, _ := json.Marshal(m)
	check("forged nonce", ReasonSignature, forged, nil, req)
	if _, err := DecodePayload([]byte(`{"signature":"0x01"}`), nil); reasonOf(err) != ReasonInvalidPayload {
		t.Errorf("missing authorization: %v", err)
	}
	p, _ := DecodePayload(ok, nil)
	if _, err := SettleCalldata(p, big.NewInt(50001)); reasonOf(err) != ReasonSettlementExceedsAmount {
		t.Errorf("settling above the ceiling: %v", err)
	}
	if a := Accept(req, fac); !json.Valid(a) {
		t.Error("offer is not JSON")
	}
}

// A payload written by EncodePayload is the one DecodePayload read: the
// payer and the server share one wire form of the Permit2 witness.
func TestEncodePayloadRoundTrip(t *testing.T) {
	key, _ := crypto.GenerateKey()
	cl := &client{key: key, chainID: big.NewInt(84532), permit2: contracts.CanonicalPermit2, proxy: contracts.CanonicalUptoPermit2Proxy,
		token: common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e"), tokenName: "USDC", tokenVersion: "2"}
	net := x402.NewNetwork("", "", cl.chainID, cl.token, "USDC", "2")
	req := &x402.Requirement{Scheme: Scheme, Network: net, Amount: big.NewInt(50000), PayTo: common.HexToAddress("0xbeef"), MaxTimeoutSeconds: 300}
	raw, _ := cl.payment(t, req, common.HexToAddress("0xfac"), 1_800_000_300, big.NewInt(7), -1)
	p, err := DecodePayload(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := DecodePayload(EncodePayload(p), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := NewContracts(cl.chainID, cl.permit2, cl.proxy)
	if again.From != p.From || c.Digest(again) != c.Digest(p) || string(again.Signature) != string(p.Signature) {
		t.Errorf("round trip changed the payload: %s", EncodePayload(p))
	}
}

func balance(t *testing.T, b ethereum.ContractCaller, token, who common.Address) int64 {
	t.Helper()
	tok := contracts.NewFareboxUSDv2()
	out, err := b.CallContract(context.Background(), ethereum.CallMsg{To: &token, Data: tok.PackBalanceOf(who)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := tok.UnpackBalanceOf(out)
	return v.Int64()
}

// TestSettleOnChain: a payer with no ETH who never approved Permit2 pays
// through the gas-sponsoring permit; the actual charge below the ceiling
// moves, exactly; the same authorization cannot be settled twice; a second
// payment rides on the allowance left.
func TestSettleOnChain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Each block is stamped a second after its parent: with the default
	// 2 s of drift the test's ten blocks would wait for the clock. The
	// permits' deadlines are 300 s away, so a minute ahead changes no verdict.
	chain, err := devchain.Start(ctx, devchain.Config{MaxDrift: time.Minute})
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
	key, _ := crypto.GenerateKey()
	payer := crypto.PubkeyToAddress(key.PublicKey)
	if err := contracts.Mint(ctx, relayer, token, payer, big.NewInt(50000)); err != nil {
		t.Fatal(err)
	}
	chainID := big.NewInt(1337)
	cl := &client{key: key, chainID: chainID, permit2: d.Permit2, proxy: d.UptoPermit2Proxy, token: token, tokenName: "USDC", tokenVersion: "2"}
	net := x402.NewNetwork("", "", chainID, token, "USDC", "2")
	receiver := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
	req := &x402.Requirement{Scheme: Scheme, Network: net, Amount: big.NewInt(20000), PayTo: receiver, MaxTimeoutSeconds: 300}
	v := &Verifier{Contracts: NewContracts(chainID, d.Permit2, d.UptoPermit2Proxy), Facilitator: chain.Relayer}

	payload, ext := cl.payment(t, req, chain.Relayer, time.Now().Unix()+300, big.NewInt(1), 0)
	p, err := DecodePayload(payload, ext)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Verify(p, req); err != nil {
		t.Fatal(err)
	}
	data, err := SettleCalldata(p, big.NewInt(7345))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := relayer.Send(ctx, &d.UptoPermit2Proxy, data, nil); err != nil {
		t.Fatal(err)
	}
	if got := balance(t, chain.Client, token, receiver); got != 7345 {
		t.Fatalf("receiver holds %d, want the 7345 charged", got)
	}
	if got := balance(t, chain.Client, token, payer); got != 50000-7345 {
		t.Fatalf("payer holds %d, want %d", got, 50000-7345)
	}
	// The same authorization again: Permit2's nonce is spent, the chain refuses.
	if _, err := relayer.Send(ctx, &d.UptoPermit2Proxy, data, nil); err == nil {
		t.Fatal("the same authorization settled twice")
	}
	if got := balance(t, chain.Client, token, receiver); got != 7345 {
		t.Fatalf("receiver holds %d after the refused replay", got)
	}
	// A second payment without a permit uses the allowance the first one left (12655).
	req2 := *req
	req2.Amount = big.NewInt(10000)
	payload, _ = cl.payment(t, &req2, chain.Relayer, time.Now().Unix()+300, big.NewInt(2), -1)
	if p, err = DecodePayload(payload, nil); err != nil {
		t.Fatal(err)
	}
	if err := v.Verify(p, &req2); err != nil {
		t.Fatal(err)
	}
	if data, err = SettleCalldata(p, big.NewInt(3001)); err != nil {
		t.Fatal(err)
	}
	if _, err := relayer.Send(ctx, &d.UptoPermit2Proxy, data, nil); err != nil {
		t.Fatal(err)
	}
	if got := balance(t, chain.Client, token, receiver); got != 7345+3001 {
		t.Fatalf("receiver holds %d, want %d", got, 7345+3001)
	}
	if got := balance(t, chain.Client, token, payer); got != 50000-7345-3001 {
		t.Fatalf("payer holds %d, want %d", got, 50000-7345-3001)
	}
}
