// Package channel is the server side of x402's `batch-settlement` scheme on
// EVM (unidirectional payment channels on the x402BatchSettlement contract):
// the requirement's extra fields, payload decoding (deposits over EIP-3009
// receiveWithAuthorization or Permit2, vouchers, refunds), the hand-rolled
// EIP-712 digests of the contract's domain, local voucher verification, the
// per-channel state the journal persists, charge application, the
// corrective 402, receipts, claim/settle/refund calldata and the claim
// policy. It decides; it sends no transaction and keeps no state itself.
package channel

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402/eip712"
)

// Scheme is the x402 scheme name.
const Scheme = "batch-settlement"

// Withdraw delay bounds of x402BatchSettlement (15 minutes to 30 days).
const (
	MinWithdrawDelay = 900
	MaxWithdrawDelay = 30 * 24 * 3600
)

// Payload types (the `type` discriminator of the payment payload).
const (
	TypeDeposit = "deposit"
	TypeVoucher = "voucher"
	TypeRefund  = "refund"
)

// Type hashes of x402BatchSettlement.
var (
	channelConfigTypeHash = crypto.Keccak256Hash([]byte("ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"))
	voucherTypeHash       = crypto.Keccak256Hash([]byte("Voucher(bytes32 channelId,uint128 maxClaimableAmount)"))
	refundTypeHash        = crypto.Keccak256Hash([]byte("Refund(bytes32 channelId,uint256 nonce,uint128 amount)"))
	claimEntryTypeHash    = crypto.Keccak256Hash([]byte("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"))
	claimBatchTypeHash    = crypto.Keccak256Hash([]byte("ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"))
	depositWitnessHash    = crypto.Keccak256Hash([]byte("DepositWitness(bytes32 channelId)"))
)

// DepositWitness is the Permit2 witness type of the Permit2 deposit collector.
var DepositWitness = eip712.NewWitnessType("DepositWitness witness)DepositWitness(bytes32 channelId)TokenPermissions(address token,uint256 amount)")

// Config is a channel's immutable configuration; its EIP-712 hash under the
// contract's domain is the channel id.
type Config struct {
	Payer              common.Address
	PayerAuthorizer    common.Address // EOA signing vouchers; zero: the payer, via EIP-1271
	Receiver           common.Address
	ReceiverAuthorizer common.Address
	Token              common.Address
	WithdrawDelay      uint64 // seconds (uint40 on chain)
	Salt               [32]byte
}

// Contracts is where one chain's x402BatchSettlement and its deposit
// collectors live, with the contract's EIP-712 domain separator
// precomputed. Build it with NewContracts; it is read-only afterwards.
type Contracts struct {
	ChainID          *big.Int
	Settlement       common.Address // x402BatchSettlement
	ERC3009Collector common.Address
	Permit2Collector common.Address
	Permit2          common.Address
	domain           [32]byte
	permit2Domain    [32]byte
}

// NewContracts precomputes the EIP-712 domains ("x402 Batch Settlement",
// version "1", and Permit2's) of the given deployment.
func NewContracts(chainID *big.Int, settlement, erc3009Collector, permit2Collector, permit2 common.Address) *Contracts {
	c := &Contracts{ChainID: new(big.Int).Set(chainID), Settlement: settlement,
		ERC3009Collector: erc3009Collector, Permit2Collector: permit2Collector, Permit2: permit2}
	c.domain = eip712.DomainSeparator("x402 Batch Settlement", "1", chainID, settlement)
	c.permit2Domain = eip712.Permit2Domain(chainID, permit2)
	return c
}

// DomainSeparator is x402BatchSettlement's EIP-712 domain separator.
func (c *Contracts) DomainSeparator() [32]byte { return c.domain }

// ChannelID is the EIP-712 hash of cfg under the contract's domain, what the
// contract's getChannelId returns.
func (c *Contracts) ChannelID(cfg *Config) [32]byte {
	st := eip712.Words(make([]byte, 0, 8*32)).Bytes32(channelConfigTypeHash).Address(cfg.Payer).
		Address(cfg.PayerAuthorizer).Address(cfg.Receiver).Address(cfg.ReceiverAuthorizer).
		Address(cfg.Token).Uint64(cfg.WithdrawDelay).Bytes32(cfg.Salt).Hash()
	return eip712.Digest(c.domain, st)
}

// VoucherDigest is what the payer authorizer signs for a cumulative voucher.
func (c *Contracts) VoucherDigest(channelID [32]byte, maxClaimable *big.Int) [32]byte {
	st := eip712.Words(make([]byte, 0, 3*32)).Bytes32(voucherTypeHash).Bytes32(channelID).Uint(maxClaimable).Hash()
	return eip712.Digest(c.domain, st)
}

// RefundDigest is what the receiver authorizer signs for refundWithSignature.
func (c *Contracts) RefundDigest(channelID [32]byte, nonce, amount *big.Int) [32]byte {
	st := eip712.Words(make([]byte, 0, 4*32)).Bytes32(refundTypeHash).Bytes32(channelID).Uint(nonce).Uint(amount).Hash()
	return eip712.Digest(c.domain, st)
}

// ClaimEntry is one row of a ClaimBatch as the receiver authorizer signs it.
type ClaimEntry struct {
	ChannelID    [32]byte
	MaxClaimable *big.Int
	TotalClaimed *big.Int
}

// ClaimBatchDigest is what the receiver authorizer signs for claimWithSignature.
func (c *Contracts) ClaimBatchDigest(entries []ClaimEntry) [32]byte {
	hashes := make(eip712.Words, 0, 32*len(entries))
	for i := range entries {
		e := &entries[i]
		hashes = hashes.Bytes32(eip712.Words(make([]byte, 0, 4*32)).Bytes32(claimEntryTypeHash).Bytes32(e.ChannelID).
			Uint(e.MaxClaimable).Uint(e.TotalClaimed).Hash())
	}
	st := eip712.Words(make([]byte, 0, 2*32)).Bytes32(claimBatchTypeHash).Bytes32(hashes.Hash()).Hash()
	return eip712.Digest(c.domain, st)
}

// ERC3009Nonce is the receiveWithAuthorization nonce of a deposit:
// keccak256(abi.encode(channelId, salt)).
func ERC3009Nonce(channelID, salt [32]byte) [32]byte {
	return eip712.Words(make([]byte, 0, 2*32)).Bytes32(channelID).Bytes32(salt).Hash()
}

// Permit2DepositDigest is what the payer signs for a Permit2 deposit.
func (c *Contracts) Permit2DepositDigest(p *eip712.PermitWitnessTransferFrom, channelID [32]byte) [32]byte {
	return DepositWitness.Digest(c.permit2Domain, p, eip712.Words(make([]byte, 0, 2*32)).Bytes32(depositWitnessHash).Bytes32(channelID).Hash())
}
