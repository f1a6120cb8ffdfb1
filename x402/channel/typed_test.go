package channel

import (
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// The tests sign through go-ethereum's apitypes (what viem computes for
// @x402/evm), never through the digests under test.

var domainType = []apitypes.Type{{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
	{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}}

func settlementDomain(c *Contracts) apitypes.TypedDataDomain {
	return apitypes.TypedDataDomain{Name: "x402 Batch Settlement", Version: "1",
		ChainId: (*math.HexOrDecimal256)(c.ChainID), VerifyingContract: c.Settlement.Hex()}
}

func typedHash(t testing.TB, td apitypes.TypedData) [32]byte {
	t.Helper()
	h, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatal(err)
	}
	return [32]byte(h)
}

func signHash(t testing.TB, h [32]byte, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	sig, err := crypto.Sign(h[:], key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	return sig
}

// refChannelID is the channel id as viem's hashTypedData computes it.
func refChannelID(t testing.TB, c *Contracts, cfg *Config) [32]byte {
	return typedHash(t, apitypes.TypedData{
		Types: apitypes.Types{"EIP712Domain": domainType, "ChannelConfig": {
			{Name: "payer", Type: "address"}, {Name: "payerAuthorizer", Type: "address"}, {Name: "receiver", Type: "address"},
			{Name: "receiverAuthorizer", Type: "address"}, {Name: "token", Type: "address"},
			{Name: "withdrawDelay", Type: "uint40"}, {Name: "salt", Type: "bytes32"}}},
		PrimaryType: "ChannelConfig", Domain: settlementDomain(c),
		Message: apitypes.TypedDataMessage{"payer": cfg.Payer.Hex(), "payerAuthorizer": cfg.PayerAuthorizer.Hex(),
			"receiver": cfg.Receiver.Hex(), "receiverAuthorizer": cfg.ReceiverAuthorizer.Hex(), "token": cfg.Token.Hex(),
			"withdrawDelay": new(big.Int).SetUint64(cfg.WithdrawDelay).String(), "salt": common.Hash(cfg.Salt).Hex()},
	})
}

// refVoucher signs a voucher as @x402/evm's signVoucher does.
func refVoucher(t testing.TB, c *Contracts, id [32]byte, max *big.Int, key *ecdsa.PrivateKey) Voucher {
	h := typedHash(t, apitypes.TypedData{
		Types: apitypes.Types{"EIP712Domain": domainType, "Voucher": {
			{Name: "channelId", Type: "bytes32"}, {Name: "maxClaimableAmount", Type: "uint128"}}},
		PrimaryType: "Voucher", Domain: settlementDomain(c),
		Message: apitypes.TypedDataMessage{"channelId": common.Hash(id).Hex(), "maxClaimableAmount": max.String()},
	})
	return Voucher{ChannelID: id, MaxClaimable: new(big.Int).Set(max), Signature: signHash(t, h, key)}
}

// refReceive signs the ERC-3009 ReceiveWithAuthorization of a deposit as
// createBatchSettlementEIP3009DepositPayload does.
func refReceive(t testing.TB, c *Contracts, token common.Address, name, version string, from common.Address,
	value *big.Int, validBefore int64, nonce [32]byte, key *ecdsa.PrivateKey) []byte {
	h := typedHash(t, apitypes.TypedData{
		Types: apitypes.Types{"EIP712Domain": domainType, "ReceiveWithAuthorization": {
			{Name: "from", Type: "address"}, {Name: "to", Type: "address"}, {Name: "value", Type: "uint256"},
			{Name: "validAfter", Type: "uint256"}, {Name: "validBefore", Type: "uint256"}, {Name: "nonce", Type: "bytes32"}}},
		PrimaryType: "ReceiveWithAuthorization",
		Domain: apitypes.TypedDataDomain{Name: name, Version: version, ChainId: (*math.HexOrDecimal256)(c.ChainID),
			VerifyingContract: token.Hex()},
		Message: apitypes.TypedDataMessage{"from": from.Hex(), "to": c.ERC3009Collector.Hex(), "value": value.String(),
			"validAfter": "0", "validBefore": big.NewInt(validBefore).String(), "nonce": common.Hash(nonce).Hex()},
	})
	return signHash(t, h, key)
}

func TestDigestsMatchApitypes(t *testing.T) {
	c := NewContracts(big.NewInt(84532), common.HexToAddress("0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003"),
		common.HexToAddress("0x4020806089470a89826cB9fB1f4059150b550004"),
		common.HexToAddress("0x4020425FAf3B746C082C2f942b4E5159887B0005"), common.HexToAddress("0x000000000022D473030F116dDEE9F6B43aC78BA3"))
	cfg := Config{Payer: common.HexToAddress("0x01"), PayerAuthorizer: common.HexToAddress("0x02"),
		Receiver: common.HexToAddress("0x03"), ReceiverAuthorizer: common.HexToAddress("0x04"),
		Token: common.HexToAddress("0x05"), WithdrawDelay: 900, Salt: [32]byte{31: 7}}
	id := c.ChannelID(&cfg)
	if want := refChannelID(t, c, &cfg); id != want {
		t.Fatalf("channel id %x, apitypes %x", id, want)
	}
	max := new(big.Int).Lsh(big.NewInt(1), 100)
	want := typedHash(t, apitypes.TypedData{
		Types: apitypes.Types{"EIP712Domain": domainType, "Voucher": {
			{Name: "channelId", Type: "bytes32"}, {Name: "maxClaimableAmount", Type: "uint128"}}},
		PrimaryType: "Voucher", Domain: settlementDomain(c),
		Message: apitypes.TypedDataMessage{"channelId": common.Hash(id).Hex(), "maxClaimableAmount": max.String()},
	})
	if got := c.VoucherDigest(id, max); got != want {
		t.Errorf("voucher digest %x, apitypes %x", got, want)
	}
	want = typedHash(t, apitypes.TypedData{
		Types: apitypes.Types{"EIP712Domain": domainType, "Refund": {
			{Name: "channelId", Type: "bytes32"}, {Name: "nonce", Type: "uint256"}, {Name: "amount", Type: "uint128"}}},
		PrimaryType: "Refund", Domain: settlementDomain(c),
		Message: apitypes.TypedDataMessage{"channelId": common.Hash(id).Hex(), "nonce": "3", "amount": "1500"},
	})
	if got := c.RefundDigest(id, big.NewInt(3), big.NewInt(1500)); got != want {
		t.Errorf("refund digest %x, apitypes %x", got, want)
	}
	entries := []ClaimEntry{{ChannelID: id, MaxClaimable: big.NewInt(5000), TotalClaimed: big.NewInt(4000)},
		{ChannelID: [32]byte{9}, MaxClaimable: big.NewInt(70), TotalClaimed: big.NewInt(70)}}
	msg := []any{}
	for _, e := range entries {
		msg = append(msg, map[string]any{"channelId": common.Hash(e.ChannelID).Hex(),
			"maxClaimableAmount": e.MaxClaimable.String(), "totalClaimed": e.TotalClaimed.String()})
	}
	want = typedHash(t, apitypes.TypedData{
		Types: apitypes.Types{"EIP712Domain": domainType, "ClaimBatch": {{Name: "claims", Type: "ClaimEntry[]"}},
			"ClaimEntry": {{Name: "channelId", Type: "bytes32"}, {Name: "maxClaimableAmount", Type: "uint128"},
				{Name: "totalClaimed", Type: "uint128"}}},
		PrimaryType: "ClaimBatch", Domain: settlementDomain(c), Message: apitypes.TypedDataMessage{"claims": msg},
	})
	if got := c.ClaimBatchDigest(entries); got != want {
		t.Errorf("claim batch digest %x, apitypes %x", got, want)
	}
}
