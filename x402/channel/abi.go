package channel

import (
	_ "embed"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// settlementJSON is the part of x402BatchSettlement's ABI a server and a
// payer call: the protocol's own, so that this package needs no chain
// client or generated bindings (a test holds it equal to the contract's).
//
//go:embed settlement.abi
var settlementJSON string

// settlementContract packs and unpacks the x402BatchSettlement calls.
type settlementContract struct{ abi abi.ABI }

func newSettlementContract() *settlementContract {
	parsed, err := abi.JSON(strings.NewReader(settlementJSON))
	if err != nil {
		panic("channel: invalid settlement ABI: " + err.Error())
	}
	return &settlementContract{abi: parsed}
}

// The contract's tuples, their fields named as the ABI's components.
type (
	channelConfigTuple struct {
		Payer              common.Address
		PayerAuthorizer    common.Address
		Receiver           common.Address
		ReceiverAuthorizer common.Address
		Token              common.Address
		WithdrawDelay      *big.Int
		Salt               [32]byte
	}
	voucherTuple struct {
		Channel            channelConfigTuple
		MaxClaimableAmount *big.Int
	}
	voucherClaimTuple struct {
		Voucher      voucherTuple
		Signature    []byte
		TotalClaimed *big.Int
	}
)

// mustPack packs a call whose arguments are of the ABI's types by
// construction, so an error is a bug of this package.
func (s *settlementContract) mustPack(name string, args ...any) []byte {
	b, err := s.abi.Pack(name, args...)
	if err != nil {
		panic(err)
	}
	return b
}

func (s *settlementContract) TryPackDeposit(c channelConfigTuple, amount *big.Int, collector common.Address, data []byte) ([]byte, error) {
	return s.abi.Pack("deposit", c, amount, collector, data)
}

func (s *settlementContract) PackClaim(claims []voucherClaimTuple) []byte {
	return s.mustPack("claim", claims)
}

func (s *settlementContract) PackClaimWithSignature(claims []voucherClaimTuple, sig []byte) []byte {
	return s.mustPack("claimWithSignature", claims, sig)
}

func (s *settlementContract) PackSettle(receiver, token common.Address) []byte {
	return s.mustPack("settle", receiver, token)
}

func (s *settlementContract) PackMulticall(calls [][]byte) []byte {
	return s.mustPack("multicall", calls)
}

func (s *settlementContract) PackRefund(c channelConfigTuple, amount *big.Int) []byte {
	return s.mustPack("refund", c, amount)
}

func (s *settlementContract) PackRefundWithSignature(c channelConfigTuple, amount, nonce *big.Int, sig []byte) []byte {
	return s.mustPack("refundWithSignature", c, amount, nonce, sig)
}

func (s *settlementContract) PackChannels(id [32]byte) []byte { return s.mustPack("channels", id) }

func (s *settlementContract) PackPendingWithdrawals(id [32]byte) []byte {
	return s.mustPack("pendingWithdrawals", id)
}

func (s *settlementContract) PackRefundNonce(id [32]byte) []byte {
	return s.mustPack("refundNonce", id)
}

func (s *settlementContract) UnpackMulticall(data []byte) ([][]byte, error) {
	out, err := s.abi.Unpack("multicall", data)
	if err != nil {
		return nil, err
	}
	return *abi.ConvertType(out[0], new([][]byte)).(*[][]byte), nil
}

// channelsOutput is channels(id): the channel's balance and total claimed.
type channelsOutput struct{ Balance, TotalClaimed *big.Int }

func (s *settlementContract) UnpackChannels(data []byte) (channelsOutput, error) {
	out, err := s.abi.Unpack("channels", data)
	if err != nil {
		return channelsOutput{}, err
	}
	return channelsOutput{Balance: abi.ConvertType(out[0], new(big.Int)).(*big.Int),
		TotalClaimed: abi.ConvertType(out[1], new(big.Int)).(*big.Int)}, nil
}

// pendingWithdrawalsOutput is pendingWithdrawals(id).
type pendingWithdrawalsOutput struct{ Amount, InitiatedAt *big.Int }

func (s *settlementContract) UnpackPendingWithdrawals(data []byte) (pendingWithdrawalsOutput, error) {
	out, err := s.abi.Unpack("pendingWithdrawals", data)
	if err != nil {
		return pendingWithdrawalsOutput{}, err
	}
	return pendingWithdrawalsOutput{Amount: abi.ConvertType(out[0], new(big.Int)).(*big.Int),
		InitiatedAt: abi.ConvertType(out[1], new(big.Int)).(*big.Int)}, nil
}

func (s *settlementContract) UnpackRefundNonce(data []byte) (*big.Int, error) {
	out, err := s.abi.Unpack("refundNonce", data)
	if err != nil {
		return nil, err
	}
	return abi.ConvertType(out[0], new(big.Int)).(*big.Int), nil
}
