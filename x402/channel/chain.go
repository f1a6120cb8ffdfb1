package channel

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

var (
	settlementABI = newSettlementContract()
	// collector data layouts of the two deposit collectors
	erc3009Data = abi.Arguments{{Type: mustType("uint256")}, {Type: mustType("uint256")}, {Type: mustType("uint256")}, {Type: mustType("bytes")}}
	permit2Data = abi.Arguments{{Type: mustType("uint256")}, {Type: mustType("uint256")}, {Type: mustType("bytes")}, {Type: mustType("bytes")}}
)

func mustType(t string) abi.Type {
	ty, err := abi.NewType(t, "", nil)
	if err != nil {
		panic(err)
	}
	return ty
}

func (c Config) binding() channelConfigTuple {
	return channelConfigTuple{Payer: c.Payer, PayerAuthorizer: c.PayerAuthorizer,
		Receiver: c.Receiver, ReceiverAuthorizer: c.ReceiverAuthorizer, Token: c.Token,
		WithdrawDelay: new(big.Int).SetUint64(c.WithdrawDelay), Salt: c.Salt}
}

// DepositCalldata is the x402BatchSettlement.deposit call that moves a
// deposit payload's funds into the channel through the matching collector.
// eip2612 is the packed EIP-2612 permit data (uint256 value, uint256
// deadline, uint8 v, bytes32 r, bytes32 s) of a Permit2 deposit whose payer
// has not approved Permit2, or nil.
func (c *Contracts) DepositCalldata(p *Payload, eip2612 []byte) ([]byte, error) {
	d := p.Deposit
	if d == nil {
		return nil, refuse(ReasonDepositPayload, "not a deposit")
	}
	var collector common.Address
	var data []byte
	var err error
	switch {
	case d.ERC3009 != nil:
		collector = c.ERC3009Collector
		data, err = erc3009Data.Pack(d.ERC3009.ValidAfter, d.ERC3009.ValidBefore,
			new(big.Int).SetBytes(d.ERC3009.Salt[:]), d.ERC3009.Signature)
	case d.Permit2 != nil:
		collector = c.Permit2Collector
		data, err = permit2Data.Pack(d.Permit2.Permit.Nonce, d.Permit2.Permit.Deadline, d.Permit2.Signature, append([]byte{}, eip2612...))
	default:
		return nil, refuse(ReasonDepositPayload, "deposit without authorization")
	}
	if err != nil {
		return nil, refuse(ReasonDepositPayload, err.Error())
	}
	return settlementABI.TryPackDeposit(p.Config.binding(), d.Amount, collector, data)
}

// Claim is one channel's row of a claim batch: the latest voucher and the
// total to claim (at most its ceiling and the channel balance).
type Claim struct {
	Config       Config
	MaxClaimable *big.Int
	Signature    []byte
	TotalClaimed *big.Int
}

// Claims picks the channels with something to claim and builds their rows:
// each claims min(Charged, Balance) under its latest voucher.
func Claims(states []*State) []Claim {
	var out []Claim
	for _, s := range states {
		if s.Unclaimed().Sign() == 0 || len(s.Signature) == 0 {
			continue
		}
		total := s.Charged
		if s.Balance.Cmp(total) < 0 {
			total = s.Balance
		}
		out = append(out, Claim{Config: s.Config, MaxClaimable: new(big.Int).Set(s.SignedMaxClaimable),
			Signature: append([]byte(nil), s.Signature...), TotalClaimed: new(big.Int).Set(total)})
	}
	return out
}

func bindClaims(claims []Claim) []voucherClaimTuple {
	out := make([]voucherClaimTuple, len(claims))
	for i, c := range claims {
		out[i] = voucherClaimTuple{
			Voucher:   voucherTuple{Channel: c.Config.binding(), MaxClaimableAmount: c.MaxClaimable},
			Signature: c.Signature, TotalClaimed: c.TotalClaimed}
	}
	return out
}

// ClaimCalldata is claim(voucherClaims): the sender must be every row's
// receiver or receiver authorizer (farebox's relayer when it holds that key).
func ClaimCalldata(claims []Claim) []byte { return settlementABI.PackClaim(bindClaims(claims)) }

// ClaimWithSignatureCalldata is claimWithSignature(voucherClaims, sig) with
// the ClaimBatch signed by the receiver authorizer's key: anyone may relay
// it. Every row must share that receiver authorizer.
func (c *Contracts) ClaimWithSignatureCalldata(claims []Claim, authorizer *ecdsa.PrivateKey) ([]byte, error) {
	entries := make([]ClaimEntry, len(claims))
	who := crypto.PubkeyToAddress(authorizer.PublicKey)
	for i := range claims {
		if claims[i].Config.ReceiverAuthorizer != who {
			return nil, fmt.Errorf("channel: claim row %d has receiver authorizer %s, not %s", i, claims[i].Config.ReceiverAuthorizer, who)
		}
		entries[i] = ClaimEntry{ChannelID: c.ChannelID(&claims[i].Config), MaxClaimable: claims[i].MaxClaimable,
			TotalClaimed: claims[i].TotalClaimed}
	}
	sig, err := sign(c.ClaimBatchDigest(entries), authorizer)
	if err != nil {
		return nil, err
	}
	return settlementABI.PackClaimWithSignature(bindClaims(claims), sig), nil
}

// SettleCalldata is settle(receiver, token): it sweeps everything claimed
// for the receiver in that token in one transfer. Anyone may send it.
func SettleCalldata(receiver, token common.Address) []byte {
	return settlementABI.PackSettle(receiver, token)
}

// ClaimAndSettleCalldata claims the rows and sweeps the receiver's claimed
// total in one transaction (the contract's multicall keeps msg.sender), sent
// by the receiver or its authorizer.
func ClaimAndSettleCalldata(claims []Claim, receiver, token common.Address) []byte {
	return settlementABI.PackMulticall([][]byte{ClaimCalldata(claims), SettleCalldata(receiver, token)})
}

// MulticallCalldata is multicall(calls): the calls in one transaction,
// sent by the receiver or its authorizer (the contract keeps msg.sender).
func MulticallCalldata(calls [][]byte) []byte { return settlementABI.PackMulticall(calls) }

// RefundCalldata is refund(config, amount), sent by the receiver or its authorizer.
func RefundCalldata(cfg Config, amount *big.Int) []byte {
	return settlementABI.PackRefund(cfg.binding(), amount)
}

// RefundWithSignatureCalldata is refundWithSignature with the Refund signed
// by the receiver authorizer's key at the channel's current refund nonce.
func (c *Contracts) RefundWithSignatureCalldata(cfg Config, amount, nonce *big.Int, authorizer *ecdsa.PrivateKey) ([]byte, error) {
	sig, err := sign(c.RefundDigest(c.ChannelID(&cfg), nonce, amount), authorizer)
	if err != nil {
		return nil, err
	}
	return settlementABI.PackRefundWithSignature(cfg.binding(), amount, nonce, sig), nil
}

// RefundWithClaim is the cooperative refund of the spec in one atomic
// transaction (the contract's multicall): claim what the channel was
// charged, then refund amount, sent by the receiver or its authorizer.
func RefundWithClaim(s *State, amount *big.Int) []byte {
	calls := [][]byte{}
	if cl := Claims([]*State{s}); len(cl) > 0 {
		calls = append(calls, ClaimCalldata(cl))
	}
	calls = append(calls, RefundCalldata(s.Config, amount))
	return settlementABI.PackMulticall(calls)
}

func sign(digest [32]byte, key *ecdsa.PrivateKey) ([]byte, error) {
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}

// ReadOnchain reads a channel's on-chain fields in one eth_call (the
// contract's multicall over channels, pendingWithdrawals and refundNonce).
func (c *Contracts) ReadOnchain(ctx context.Context, caller ethereum.ContractCaller, id [32]byte) (Onchain, error) {
	call := settlementABI.PackMulticall([][]byte{settlementABI.PackChannels(id),
		settlementABI.PackPendingWithdrawals(id), settlementABI.PackRefundNonce(id)})
	out, err := caller.CallContract(ctx, ethereum.CallMsg{To: &c.Settlement, Data: call}, nil)
	if err != nil {
		return Onchain{}, refuse(ReasonChannelStateReadFailed, err.Error())
	}
	res, err := settlementABI.UnpackMulticall(out)
	if err != nil || len(res) != 3 {
		return Onchain{}, refuse(ReasonChannelStateReadFailed, "unexpected multicall answer")
	}
	ch, err1 := settlementABI.UnpackChannels(res[0])
	pw, err2 := settlementABI.UnpackPendingWithdrawals(res[1])
	nonce, err3 := settlementABI.UnpackRefundNonce(res[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return Onchain{}, refuse(ReasonChannelStateReadFailed, "unexpected channel state answer")
	}
	return Onchain{Balance: ch.Balance, TotalClaimed: ch.TotalClaimed, WithdrawRequestedAt: pw.InitiatedAt.Uint64(),
		RefundNonce: nonce}, nil
}

// Load returns the channel's state from the chain alone, for a channel the
// server has no record of.
func (c *Contracts) Load(ctx context.Context, caller ethereum.ContractCaller, cfg Config, now time.Time) (*State, error) {
	id := c.ChannelID(&cfg)
	o, err := c.ReadOnchain(ctx, caller, id)
	if err != nil {
		return nil, err
	}
	return NewState(id, cfg, o, now), nil
}
