// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package contracts

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// IAllowanceTransferAllowanceTransferDetails is an auto generated low-level Go binding around an user-defined struct.
type IAllowanceTransferAllowanceTransferDetails struct {
	From   common.Address
	To     common.Address
	Amount *big.Int
	Token  common.Address
}

// IAllowanceTransferPermitBatch is an auto generated low-level Go binding around an user-defined struct.
type IAllowanceTransferPermitBatch struct {
	Details     []IAllowanceTransferPermitDetails
	Spender     common.Address
	SigDeadline *big.Int
}

// IAllowanceTransferPermitDetails is an auto generated low-level Go binding around an user-defined struct.
type IAllowanceTransferPermitDetails struct {
	Token      common.Address
	Amount     *big.Int
	Expiration *big.Int
	Nonce      *big.Int
}

// IAllowanceTransferPermitSingle is an auto generated low-level Go binding around an user-defined struct.
type IAllowanceTransferPermitSingle struct {
	Details     IAllowanceTransferPermitDetails
	Spender     common.Address
	SigDeadline *big.Int
}

// IAllowanceTransferTokenSpenderPair is an auto generated low-level Go binding around an user-defined struct.
type IAllowanceTransferTokenSpenderPair struct {
	Token   common.Address
	Spender common.Address
}

// ISignatureTransferPermitBatchTransferFrom is an auto generated low-level Go binding around an user-defined struct.
type ISignatureTransferPermitBatchTransferFrom struct {
	Permitted []ISignatureTransferTokenPermissions
	Nonce     *big.Int
	Deadline  *big.Int
}

// ISignatureTransferPermitTransferFrom is an auto generated low-level Go binding around an user-defined struct.
type ISignatureTransferPermitTransferFrom struct {
	Permitted ISignatureTransferTokenPermissions
	Nonce     *big.Int
	Deadline  *big.Int
}

// ISignatureTransferSignatureTransferDetails is an auto generated low-level Go binding around an user-defined struct.
type ISignatureTransferSignatureTransferDetails struct {
	To              common.Address
	RequestedAmount *big.Int
}

// ISignatureTransferTokenPermissions is an auto generated low-level Go binding around an user-defined struct.
type ISignatureTransferTokenPermissions struct {
	Token  common.Address
	Amount *big.Int
}

// X402BasePermit2ProxyEIP2612Permit is an auto generated low-level Go binding around an user-defined struct.
type X402BasePermit2ProxyEIP2612Permit struct {
	Value    *big.Int
	Deadline *big.Int
	R        [32]byte
	S        [32]byte
	V        uint8
}

// X402BatchSettlementChannelConfig is an auto generated low-level Go binding around an user-defined struct.
type X402BatchSettlementChannelConfig struct {
	Payer              common.Address
	PayerAuthorizer    common.Address
	Receiver           common.Address
	ReceiverAuthorizer common.Address
	Token              common.Address
	WithdrawDelay      *big.Int
	Salt               [32]byte
}

// X402BatchSettlementVoucher is an auto generated low-level Go binding around an user-defined struct.
type X402BatchSettlementVoucher struct {
	Channel            X402BatchSettlementChannelConfig
	MaxClaimableAmount *big.Int
}

// X402BatchSettlementVoucherClaim is an auto generated low-level Go binding around an user-defined struct.
type X402BatchSettlementVoucherClaim struct {
	Voucher      X402BatchSettlementVoucher
	Signature    []byte
	TotalClaimed *big.Int
}

// X402UptoPermit2ProxyWitness is an auto generated low-level Go binding around an user-defined struct.
type X402UptoPermit2ProxyWitness struct {
	To          common.Address
	Facilitator common.Address
	ValidAfter  *big.Int
}

// BatchSettlementMetaData contains all meta data concerning the BatchSettlement contract.
var BatchSettlementMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"}],\"name\":\"AddressEmptyCode\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ClaimExceedsBalance\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ClaimExceedsCeiling\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"DepositCollectionFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"DepositOverflow\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ECDSAInvalidSignature\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"length\",\"type\":\"uint256\"}],\"name\":\"ECDSAInvalidSignatureLength\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"s\",\"type\":\"bytes32\"}],\"name\":\"ECDSAInvalidSignatureS\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyBatch\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"FailedCall\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidChannel\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidCollector\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidRefundNonce\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidShortString\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidSignature\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotAuthorizedToClaim\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotAuthorizedToFinalizeWithdraw\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotAuthorizedToRefund\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotReceiverAuthorizer\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NothingToWithdraw\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ReentrancyGuardReentrantCall\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"SafeERC20FailedOperation\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"str\",\"type\":\"string\"}],\"name\":\"StringTooLong\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"WithdrawAmountExceedsAvailable\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"WithdrawDelayNotElapsed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"WithdrawDelayOutOfRange\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"WithdrawalAlreadyPending\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"WithdrawalNotPending\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroDeposit\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroRefund\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"indexed\":false,\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"}],\"name\":\"ChannelClosed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"indexed\":false,\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"}],\"name\":\"ChannelCreated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"claimAmount\",\"type\":\"uint128\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"newTotalClaimed\",\"type\":\"uint128\"}],\"name\":\"Claimed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"newBalance\",\"type\":\"uint128\"}],\"name\":\"Deposited\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"EIP712DomainChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"Refunded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"Settled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"WithdrawFinalized\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"},{\"indexed\":false,\"internalType\":\"uint40\",\"name\":\"finalizeAfter\",\"type\":\"uint40\"}],\"name\":\"WithdrawInitiated\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"CHANNEL_CONFIG_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"CLAIM_BATCH_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"CLAIM_ENTRY_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_WITHDRAW_DELAY\",\"outputs\":[{\"internalType\":\"uint40\",\"name\":\"\",\"type\":\"uint40\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MIN_WITHDRAW_DELAY\",\"outputs\":[{\"internalType\":\"uint40\",\"name\":\"\",\"type\":\"uint40\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"REFUND_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"VOUCHER_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"}],\"name\":\"channels\",\"outputs\":[{\"internalType\":\"uint128\",\"name\":\"balance\",\"type\":\"uint128\"},{\"internalType\":\"uint128\",\"name\":\"totalClaimed\",\"type\":\"uint128\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"channel\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"maxClaimableAmount\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.Voucher\",\"name\":\"voucher\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"uint128\",\"name\":\"totalClaimed\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.VoucherClaim[]\",\"name\":\"voucherClaims\",\"type\":\"tuple[]\"}],\"name\":\"claim\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"channel\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"maxClaimableAmount\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.Voucher\",\"name\":\"voucher\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"uint128\",\"name\":\"totalClaimed\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.VoucherClaim[]\",\"name\":\"voucherClaims\",\"type\":\"tuple[]\"},{\"internalType\":\"bytes\",\"name\":\"authorizerSignature\",\"type\":\"bytes\"}],\"name\":\"claimWithSignature\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"},{\"internalType\":\"address\",\"name\":\"collector\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"collectorData\",\"type\":\"bytes\"}],\"name\":\"deposit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"eip712Domain\",\"outputs\":[{\"internalType\":\"bytes1\",\"name\":\"fields\",\"type\":\"bytes1\"},{\"internalType\":\"string\",\"name\":\"name\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"version\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"verifyingContract\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"},{\"internalType\":\"uint256[]\",\"name\":\"extensions\",\"type\":\"uint256[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"}],\"name\":\"finalizeWithdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"}],\"name\":\"getChannelId\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"channel\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"maxClaimableAmount\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.Voucher\",\"name\":\"voucher\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"uint128\",\"name\":\"totalClaimed\",\"type\":\"uint128\"}],\"internalType\":\"structx402BatchSettlement.VoucherClaim[]\",\"name\":\"voucherClaims\",\"type\":\"tuple[]\"}],\"name\":\"getClaimBatchDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"getRefundDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"internalType\":\"uint128\",\"name\":\"maxClaimableAmount\",\"type\":\"uint128\"}],\"name\":\"getVoucherDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"initiateWithdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes[]\",\"name\":\"data\",\"type\":\"bytes[]\"}],\"name\":\"multicall\",\"outputs\":[{\"internalType\":\"bytes[]\",\"name\":\"results\",\"type\":\"bytes[]\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"}],\"name\":\"pendingWithdrawals\",\"outputs\":[{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"},{\"internalType\":\"uint40\",\"name\":\"initiatedAt\",\"type\":\"uint40\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"receivers\",\"outputs\":[{\"internalType\":\"uint128\",\"name\":\"totalClaimed\",\"type\":\"uint128\"},{\"internalType\":\"uint128\",\"name\":\"totalSettled\",\"type\":\"uint128\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"}],\"name\":\"refund\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"}],\"name\":\"refundNonce\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"payerAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"receiverAuthorizer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint40\",\"name\":\"withdrawDelay\",\"type\":\"uint40\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structx402BatchSettlement.ChannelConfig\",\"name\":\"config\",\"type\":\"tuple\"},{\"internalType\":\"uint128\",\"name\":\"amount\",\"type\":\"uint128\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"receiverAuthorizerSignature\",\"type\":\"bytes\"}],\"name\":\"refundWithSignature\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"settle\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "BatchSettlement",
	Bin: "0x610160604052348015610010575f5ffd5b50604080518082018252601581527f7834303220426174636820536574746c656d656e740000000000000000000000602080830191909152825180840190935260018352603160f81b9083015290610068825f610111565b61012052610077816001610111565b61014052815160208084019190912060e052815190820120610100524660a05261010360e05161010051604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201529081019290925260608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b60805250503060c052610333565b5f60208351101561012c5761012583610143565b905061013d565b816101378482610221565b5060ff90505b92915050565b5f5f829050601f81511115610176578260405163305a27a960e01b815260040161016d91906102db565b60405180910390fd5b805161018182610310565b179392505050565b634e487b7160e01b5f52604160045260245ffd5b600181811c908216806101b157607f821691505b6020821081036101cf57634e487b7160e01b5f52602260045260245ffd5b50919050565b601f82111561021c57805f5260205f20601f840160051c810160208510156101fa5750805b601f840160051c820191505b81811015610219575f8155600101610206565b50505b505050565b81516001600160401b0381111561023a5761023a610189565b61024e81610248845461019d565b846101d5565b6020601f821160018114610280575f83156102695750848201515b5f19600385901b1c1916600184901b178455610219565b5f84815260208120601f198516915b828110156102af578785015182556020948501946001909201910161028f565b50848210156102cc57868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b805160208083015191908110156101cf575f1960209190910360031b1b16919050565b60805160a05160c05160e051610100516101205161014051612ba76103845f395f611ab701525f611a8601525f611fca01525f611fa201525f611efd01525f611f2701525f611f510152612ba75ff3fe608060405234801561000f575f5ffd5b506004361061016d575f3560e01c806394739e87116100d9578063ba94ec0d11610093578063e25cf1891161006e578063e25cf18914610446578063e43ce1f214610459578063e88377b11461046c578063f0dc792e1461047f575f5ffd5b8063ba94ec0d146103f9578063cf5cf3dc14610420578063dce4bfae14610433575f5ffd5b806394739e87146103265780639db32a8f1461034d578063ac9650d814610360578063ae15943914610380578063b77433e914610389578063b7f06ebe1461039c575f5ffd5b806353ab0fae1161012a57806353ab0fae146102645780635e5e0b871461028b5780637a7ebd7b1461029e57806384b0196e146102d1578063862bb199146102ec5780638e4a68ac146102ff575f5ffd5b8063140f1e75146101715780631e69ef40146101865780631fc3277d146101c057806321ff6389146101e057806329237b0c1461023e578063488ccc3b14610251575b5f5ffd5b61018461017f3660046124ad565b61049e565b005b6101ad7fbe23ad087435072cd69b49cc5b92de10ee610fce7ae0ab428307972d764bb21681565b6040519081526020015b60405180910390f35b6101ca62278d0081565b60405164ffffffffff90911681526020016101b7565b61021e6101ee366004612522565b600560209081525f92835260408084209091529082529020546001600160801b0380821691600160801b90041682565b604080516001600160801b039384168152929091166020830152016101b7565b61018461024c366004612594565b610944565b6101ad61025f366004612594565b610a07565b6101ad7f42bd57c010b870c2e96203c66341f28a6a19b4d56a74533a8eb5f706b9fd6d5781565b6101ad6102993660046125d3565b610c32565b61021e6102ac3660046125ed565b60026020525f90815260409020546001600160801b0380821691600160801b90041682565b6102d9610c69565b6040516101b79796959493929190612632565b6101ad6102fa3660046126c8565b610cab565b6101ad7f1c9a06ceab9b0ebbd3301dc56c9111bb6d9af421356dc9ccb3b7084c755db30881565b6101ad7f1e1bd6ff84c3e0d9029a292b212e039c0ca97ec497c55191a4a5874294609a6981565b61018461035b366004612522565b610cff565b61037361036e366004612594565b610def565b6040516101b791906126e9565b6101ca61038481565b61018461039736600461274c565b610ed5565b6103d46103aa3660046125ed565b60046020525f90815260409020546001600160801b03811690600160801b900464ffffffffff1682565b604080516001600160801b03909316835264ffffffffff9091166020830152016101b7565b6101ad7f30b9a0367528fca13c3e8ec6134c3113f1887ebe7a1ad61de0955aac288b0cf581565b61018461042e36600461279d565b610fa5565b61018461044136600461279d565b61118e565b6101ad6104543660046127c7565b6111c7565b6101846104673660046127f9565b611223565b61018461047a3660046125d3565b61138c565b6101ad61048d3660046125ed565b60036020525f908152604090205481565b6104a6611651565b5f6104b46020870187612865565b6001600160a01b0316036104db5760405163ea3a9a3960e01b815260040160405180910390fd5b5f6104ec6060870160408801612865565b6001600160a01b0316036105135760405163ea3a9a3960e01b815260040160405180910390fd5b5f6105246080870160608801612865565b6001600160a01b03160361054b5760405163ea3a9a3960e01b815260040160405180910390fd5b5f61055c60a0870160808801612865565b6001600160a01b0316036105835760405163ea3a9a3960e01b815260040160405180910390fd5b61038461059660c0870160a08801612892565b64ffffffffff1610806105c1575062278d006105b860c0870160a08801612892565b64ffffffffff16115b156105df576040516322ba7d5b60e11b815260040160405180910390fd5b836001600160801b03165f03610608576040516356316e8760e01b815260040160405180910390fd5b6001600160a01b03831661062f5760405163062c6bf560e21b815260040160405180910390fd5b5f61063986610c32565b5f818152600260205260409020805491925090610661906001600160801b03908116906128bf565b6001600160801b0316866001600160801b0316111561069357604051631132981b60e01b815260040160405180910390fd5b8054869082905f906106af9084906001600160801b03166128de565b92506101000a8154816001600160801b0302191690836001600160801b031602179055505f8760800160208101906106e79190612865565b6040516370a0823160e01b81523060048201526001600160a01b0391909116906370a0823190602401602060405180830381865afa15801561072b573d5f5f3e3d5ffd5b505050506040513d601f19601f8201168201806040525081019061074f91906128fd565b90506001600160a01b03861663e416d8d361076d60208b018b612865565b61077d60a08c0160808d01612865565b8a878a8a6040518763ffffffff1660e01b81526004016107a296959493929190612914565b5f604051808303815f87803b1580156107b9575f5ffd5b505af11580156107cb573d5f5f3e3d5ffd5b505f92506107e291505060a08a0160808b01612865565b6040516370a0823160e01b81523060048201526001600160a01b0391909116906370a0823190602401602060405180830381865afa158015610826573d5f5f3e3d5ffd5b505050506040513d601f19601f8201168201806040525081019061084a91906128fd565b905061085f6001600160801b03891683612974565b811461087e57604051633ad0d64b60e21b815260040160405180910390fd5b82546001600160801b0389811691161480156108a957508254600160801b90046001600160801b0316155b156108e757837f69d8248d5566bdb2ebc4d218970710d8378a2ff9b709a999e052b71970f808fa8a6040516108de9190612a26565b60405180910390a25b8254604080516001600160801b03808c1682529092166020830152339186917f6c2a09353b5e75e70d0b9778b80a413809bb235d46c211811c474b3346791d89910160405180910390a35050505061093d611688565b5050505050565b61094c611651565b5f81900361096d5760405163c2e5347d60e01b815260040160405180910390fd5b5f5b818110156109fa573683838381811061098a5761098a612a34565b905060200281019061099c9190612a48565b90506109a833826116b2565b6109c55760405163defb706960e01b815260040160405180910390fd5b6109f18484848181106109da576109da612a34565b90506020028101906109ec9190612a48565b611709565b5060010161096f565b50610a03611688565b5050565b5f8181818103610a3857507fc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470610bd4565b5f8267ffffffffffffffff811115610a5257610a52612a67565b604051908082528060200260200182016040528015610a7b578160200160208202803683370190505b5090505f5b83811015610ba8575f610ab0888884818110610a9e57610a9e612a34565b90506020028101906102999190612a48565b90507f30b9a0367528fca13c3e8ec6134c3113f1887ebe7a1ad61de0955aac288b0cf581898985818110610ae657610ae6612a34565b9050602002810190610af89190612a48565b610b0a9061010081019060e001612a7b565b8a8a86818110610b1c57610b1c612a34565b9050602002810190610b2e9190612a48565b610b419061014081019061012001612a7b565b6040805160208101959095528401929092526001600160801b03908116606084015216608082015260a00160405160208183030381529060405280519060200120838381518110610b9457610b94612a34565b602090810291909101015250600101610a80565b5080604051602001610bba9190612a94565b604051602081830303815290604052805190602001209150505b604080517f42bd57c010b870c2e96203c66341f28a6a19b4d56a74533a8eb5f706b9fd6d576020820152908101829052610c27906060015b60405160208183030381529060405280519060200120611a53565b925050505b92915050565b5f610c2c7f1c9a06ceab9b0ebbd3301dc56c9111bb6d9af421356dc9ccb3b7084c755db30883604051602001610c0c929190612ac9565b5f6060805f5f5f6060610c7a611a7f565b610c82611ab0565b604080515f80825260208201909252600f60f81b9b939a50919850469750309650945092509050565b604080517f1e1bd6ff84c3e0d9029a292b212e039c0ca97ec497c55191a4a5874294609a6960208201529081018390526001600160801b03821660608201525f90610cf890608001610c0c565b9392505050565b610d07611651565b6001600160a01b038083165f90815260056020908152604080832093851683529290529081208054909190610d4e906001600160801b03600160801b8204811691166128bf565b9050806001600160801b03165f03610d67575050610de7565b81546001600160801b03908116600160801b8102178355610d96906001600160a01b0385169086908416611add565b6040516001600160801b038216815233906001600160a01b0385811691908716907f7337b4386b690fdb8ba66905b92b9d45d33bc6626ee2620c905fb150ec0cc47d9060200160405180910390a450505b610a03611688565b604080515f8152602081019091526060908267ffffffffffffffff811115610e1957610e19612a67565b604051908082528060200260200182016040528015610e4c57816020015b6060815260200190600190039081610e375790505b5091505f5b83811015610ecd57610ea830868684818110610e6f57610e6f612a34565b9050602002810190610e819190612ade565b85604051602001610e9493929190612b21565b604051602081830303815290604052611b1c565b838281518110610eba57610eba612a34565b6020908102919091010152600101610e51565b505092915050565b610edd611651565b5f610ee786610c32565b5f818152600360205260409020549091508414610f1757604051630b278d7f60e11b815260040160405180910390fd5b5f610f238286886111c7565b9050610f74610f386080890160608a01612865565b8286868080601f0160208091040260200160405190810160405280939291908181526020018383808284375f92019190915250611bbc92505050565b610f9157604051638baa579f60e01b815260040160405180910390fd5b610f9b8787611c2c565b505061093d611688565b610fad611651565b610fba6020830183612865565b6001600160a01b0316336001600160a01b031614158015610ffc5750610fe66040830160208401612865565b6001600160a01b0316336001600160a01b031614155b1561101a5760405163ea3a9a3960e01b815260040160405180910390fd5b806001600160801b03165f0361104357604051630686827b60e51b815260040160405180910390fd5b5f61104d83610c32565b5f818152600460205260409020805491925090600160801b900464ffffffffff161561108c57604051630a2aed0f60e41b815260040160405180910390fd5b5f82815260026020526040812080549091906110ba906001600160801b03600160801b8204811691166128bf565b9050806001600160801b0316856001600160801b031611156110ef57604051631b4f55d960e21b815260040160405180910390fd5b825464ffffffffff4216600160801b026001600160a81b03199091166001600160801b038716171783555f61112a60c0880160a08901612892565b6111349042612b44565b604080516001600160801b038916815264ffffffffff8316602082015291925086917fe4280d0d903c7f258f62b07c62f262377cbaa23f7791d78126e6446e0f0e3c23910160405180910390a25050505050610a03611688565b611196611651565b6111a033836116b2565b6111bd57604051630f0c9e0160e31b815260040160405180910390fd5b610de78282611c2c565b604080517fbe23ad087435072cd69b49cc5b92de10ee610fce7ae0ab428307972d764bb2166020820152908101849052606081018390526001600160801b03821660808201525f9061121b9060a001610c0c565b949350505050565b61122b611651565b5f83900361124c5760405163c2e5347d60e01b815260040160405180910390fd5b5f84845f81811061125f5761125f612a34565b90506020028101906112719190612a48565b611282906080810190606001612865565b90505f61128f8686610a07565b90506112d1828286868080601f0160208091040260200160405190810160405280939291908181526020018383808284375f92019190915250611bbc92505050565b6112ee57604051638baa579f60e01b815260040160405180910390fd5b5f5b8581101561137b57826001600160a01b031687878381811061131457611314612a34565b90506020028101906113269190612a48565b611337906080810190606001612865565b6001600160a01b03161461135e5760405163f5e2237d60e01b815260040160405180910390fd5b6113738787838181106109da576109da612a34565b6001016112f0565b505050611386611688565b50505050565b611394611651565b6113a16020820182612865565b6001600160a01b0316336001600160a01b0316141580156113e357506113cd6040820160208301612865565b6001600160a01b0316336001600160a01b031614155b15611401576040516315f969d560e01b815260040160405180910390fd5b5f61140b82610c32565b5f818152600460205260408120805492935091600160801b900464ffffffffff16900361144b57604051631d050e5360e11b815260040160405180910390fd5b61145b60c0840160a08501612892565b81546114789164ffffffffff90811691600160801b900416612974565b4210156114985760405163f396582760e01b815260040160405180910390fd5b5f82815260026020526040812080549091906114c6906001600160801b03600160801b8204811691166128bf565b83549091505f906001600160801b038084169116116114ef5783546001600160801b03166114f1565b815b84546001600160a81b03191685558354909150819084905f9061151e9084906001600160801b03166128bf565b92506101000a8154816001600160801b0302191690836001600160801b03160217905550336001600160a01b0316857f546ce1e2242cd930c196bd08b894443562d709b4fffe4f028a75a6d233efc6e38360405161158b91906001600160801b0391909116815260200190565b60405180910390a382546001600160801b03161580156115ba57508254600160801b90046001600160801b0316155b156115f857847f8d5942f197f362dfd44dfdc1b0b7a9721c9151b67f55817c83349271d3c08d37876040516115ef9190612a26565b60405180910390a25b6001600160801b03811615611641576116416116176020880188612865565b6001600160801b03831661163160a08a0160808b01612865565b6001600160a01b03169190611add565b505050505061164e611688565b50565b611659611e80565b61168660017f9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f005b90611ec0565b565b6116865f7f9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f00611680565b5f6116c36080830160608401612865565b6001600160a01b0316836001600160a01b03161480610cf857506116ed6060830160408401612865565b6001600160a01b0316836001600160a01b031614905092915050565b5f61171382610c32565b5f818152600260205260409020805491925090600160801b90046001600160801b031661174861014085016101208601612a7b565b6001600160801b03161161175b57505050565b61176c610100840160e08501612a7b565b6001600160801b031661178761014085016101208601612a7b565b6001600160801b031611156117af5760405163f178977560e01b815260040160405180910390fd5b80546001600160801b03166117cc61014085016101208601612a7b565b6001600160801b031611156117f457604051633ec1215b60e11b815260040160405180910390fd5b5f61180a836102fa610100870160e08801612a7b565b90505f61181d6040860160208701612865565b90506001600160a01b03811615611880575f61184683611841610100890189612ade565b611ec7565b9050816001600160a01b0316816001600160a01b03161461187a57604051638baa579f60e01b815260040160405180910390fd5b506118f5565b6118d86118906020870187612865565b8361189f610100890189612ade565b8080601f0160208091040260200160405190810160405280939291908181526020018383808284375f92019190915250611bbc92505050565b6118f557604051638baa579f60e01b815260040160405180910390fd5b82545f90600160801b90046001600160801b031661191b61014088016101208901612a7b565b61192591906128bf565b905061193961014087016101208801612a7b565b84546001600160801b03918216600160801b0291161784558060055f61196560608a0160408b01612865565b6001600160a01b0316815260208101919091526040015f9081209061199060a08a0160808b01612865565b6001600160a01b0316815260208101919091526040015f90812080549091906119c39084906001600160801b03166128de565b92506101000a8154816001600160801b0302191690836001600160801b03160217905550336001600160a01b0316857f36bd546bb573e8921fdbfd934bbed62d872796b01792cd240cce27f79dd3eddd8389610120016020810190611a289190612a7b565b604080516001600160801b0393841681529290911660208301520160405180910390a3505050505050565b5f610c2c611a5f611ef1565b8360405161190160f01b8152600281019290925260228201526042902090565b6060611aab7f00000000000000000000000000000000000000000000000000000000000000005f61201a565b905090565b6060611aab7f0000000000000000000000000000000000000000000000000000000000000000600161201a565b611aea83838360016120c3565b611b1757604051635274afe760e01b81526001600160a01b03841660048201526024015b60405180910390fd5b505050565b60605f611b298484612125565b9050808015611b4a57505f3d1180611b4a57505f846001600160a01b03163b115b15611b5f57611b57612138565b915050610c2c565b8015611b8957604051639996b31560e01b81526001600160a01b0385166004820152602401611b0e565b3d15611b9c57611b97612151565b611bb5565b60405163d6bda27560e01b815260040160405180910390fd5b5092915050565b5f836001600160a01b03163b5f03611c1a575f5f611bda858561215c565b5090925090505f816003811115611bf357611bf3612b61565b148015611c115750856001600160a01b0316826001600160a01b0316145b92505050610cf8565b611c258484846121a5565b9050610cf8565b806001600160801b03165f03611c55576040516335d6149760e21b815260040160405180910390fd5b5f611c5f83610c32565b5f8181526003602090815260408083208054600101905560029091528120805492935091611c9f906001600160801b03600160801b8204811691166128bf565b90505f816001600160801b0316856001600160801b031611611cc15784611cc3565b815b9050806001600160801b03165f03611cdd57505050505050565b8254819084905f90611cf99084906001600160801b03166128bf565b82546001600160801b039182166101009390930a9283029190920219909116179055505f848152600460205260409020805464ffffffffff600160801b9091041615611da85780546001600160801b0390811690831610611d675780546001600160a81b0319168155611da8565b8054829082905f90611d839084906001600160801b03166128bf565b92506101000a8154816001600160801b0302191690836001600160801b031602179055505b6040516001600160801b0383168152339086907fa84286cf8ebc7903a663c77c8d99aa92b600d4c2fcca872a5d4a663db4eb394b9060200160405180910390a383546001600160801b0316158015611e0f57508354600160801b90046001600160801b0316155b15611e4d57847f8d5942f197f362dfd44dfdc1b0b7a9721c9151b67f55817c83349271d3c08d3788604051611e449190612a26565b60405180910390a25b611e77611e5d6020890189612865565b6001600160801b03841661163160a08b0160808c01612865565b50505050505050565b7f9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f005c1561168657604051633ee5aeb560e01b815260040160405180910390fd5b80825d5050565b5f5f5f5f611ed68787876121f6565b925092509250611ee6828261223d565b509095945050505050565b5f306001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016148015611f4957507f000000000000000000000000000000000000000000000000000000000000000046145b15611f7357507f000000000000000000000000000000000000000000000000000000000000000090565b611aab604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201527f0000000000000000000000000000000000000000000000000000000000000000918101919091527f000000000000000000000000000000000000000000000000000000000000000060608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b606060ff83146120345761202d836122f5565b9050610c2c565b81805461204090612b75565b80601f016020809104026020016040519081016040528092919081815260200182805461206c90612b75565b80156120b75780601f1061208e576101008083540402835291602001916120b7565b820191905f5260205f20905b81548152906001019060200180831161209a57829003601f168201915b50505050509050610c2c565b60405163a9059cbb60e01b5f8181526001600160a01b038616600452602485905291602083604481808b5af1925060015f5114831661211957838315161561210d573d5f823e3d81fd5b5f873b113d1516831692505b60405250949350505050565b5f5f5f835160208501865af49392505050565b6040513d81523d5f602083013e3d602001810160405290565b6040513d5f823e3d81fd5b5f5f5f8351604103612193576020840151604085015160608601515f1a61218588828585612332565b95509550955050505061219e565b505081515f91506002905b9250925092565b805160408051630b135d3f60e11b8082526004820186905260248201929092525f92906020820185604483015e60205f60648401838a5afa9050825f5114601f3d1116811693505050509392505050565b5f8080604184900361222a578435602086013560408701355f1a61221c89828585612332565b955095509550505050612234565b505f915060029050825b93509350939050565b5f82600381111561225057612250612b61565b03612259575050565b600182600381111561226d5761226d612b61565b0361228b5760405163f645eedf60e01b815260040160405180910390fd5b600282600381111561229f5761229f612b61565b036122c05760405163fce698f760e01b815260048101829052602401611b0e565b60038260038111156122d4576122d4612b61565b03610a03576040516335e2f38360e21b815260048101829052602401611b0e565b60605f612301836123fa565b6040805160208082528183019092529192505f91906020820181803683375050509182525060208101929092525090565b5f80807f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a084111561236b57505f915060039050826123f0565b604080515f808252602082018084528a905260ff891692820192909252606081018790526080810186905260019060a0016020604051602081039080840390855afa1580156123bc573d5f5f3e3d5ffd5b5050604051601f1901519150506001600160a01b0381166123e757505f9250600191508290506123f0565b92505f91508190505b9450945094915050565b5f60ff8216601f811115610c2c57604051632cd44ac360e21b815260040160405180910390fd5b5f60e08284031215612431575f5ffd5b50919050565b80356001600160801b038116811461244d575f5ffd5b919050565b80356001600160a01b038116811461244d575f5ffd5b5f5f83601f840112612478575f5ffd5b50813567ffffffffffffffff81111561248f575f5ffd5b6020830191508360208285010111156124a6575f5ffd5b9250929050565b5f5f5f5f5f61014086880312156124c2575f5ffd5b6124cc8787612421565b94506124da60e08701612437565b93506124e96101008701612452565b925061012086013567ffffffffffffffff811115612505575f5ffd5b61251188828901612468565b969995985093965092949392505050565b5f5f60408385031215612533575f5ffd5b61253c83612452565b915061254a60208401612452565b90509250929050565b5f5f83601f840112612563575f5ffd5b50813567ffffffffffffffff81111561257a575f5ffd5b6020830191508360208260051b85010111156124a6575f5ffd5b5f5f602083850312156125a5575f5ffd5b823567ffffffffffffffff8111156125bb575f5ffd5b6125c785828601612553565b90969095509350505050565b5f60e082840312156125e3575f5ffd5b610cf88383612421565b5f602082840312156125fd575f5ffd5b5035919050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b60ff60f81b8816815260e060208201525f61265060e0830189612604565b82810360408401526126628189612604565b606084018890526001600160a01b038716608085015260a0840186905283810360c0850152845180825260208087019350909101905f5b818110156126b7578351835260209384019390920191600101612699565b50909b9a5050505050505050505050565b5f5f604083850312156126d9575f5ffd5b8235915061254a60208401612437565b5f602082016020835280845180835260408501915060408160051b8601019250602086015f5b8281101561274057603f1987860301845261272b858351612604565b9450602093840193919091019060010161270f565b50929695505050505050565b5f5f5f5f5f6101408688031215612761575f5ffd5b61276b8787612421565b945061277960e08701612437565b9350610100860135925061012086013567ffffffffffffffff811115612505575f5ffd5b5f5f61010083850312156127af575f5ffd5b6127b98484612421565b915061254a60e08401612437565b5f5f5f606084860312156127d9575f5ffd5b83359250602084013591506127f060408501612437565b90509250925092565b5f5f5f5f6040858703121561280c575f5ffd5b843567ffffffffffffffff811115612822575f5ffd5b61282e87828801612553565b909550935050602085013567ffffffffffffffff81111561284d575f5ffd5b61285987828801612468565b95989497509550505050565b5f60208284031215612875575f5ffd5b610cf882612452565b803564ffffffffff8116811461244d575f5ffd5b5f602082840312156128a2575f5ffd5b610cf88261287e565b634e487b7160e01b5f52601160045260245ffd5b6001600160801b038281168282160390811115610c2c57610c2c6128ab565b6001600160801b038181168382160190811115610c2c57610c2c6128ab565b5f6020828403121561290d575f5ffd5b5051919050565b6001600160a01b038781168252861660208201526001600160801b03851660408201526060810184905260a0608082018190528101829052818360c08301375f81830160c090810191909152601f909201601f1916010195945050505050565b80820180821115610c2c57610c2c6128ab565b6001600160a01b0361299882612452565b1682526001600160a01b036129af60208301612452565b1660208301526001600160a01b036129c960408301612452565b1660408301526001600160a01b036129e360608301612452565b1660608301526001600160a01b036129fd60808301612452565b166080830152612a0f60a0820161287e565b64ffffffffff1660a083015260c090810135910152565b60e08101610c2c8284612987565b634e487b7160e01b5f52603260045260245ffd5b5f823561013e19833603018112612a5d575f5ffd5b9190910192915050565b634e487b7160e01b5f52604160045260245ffd5b5f60208284031215612a8b575f5ffd5b610cf882612437565b81515f90829060208501835b82811015612abe578151845260209384019390910190600101612aa0565b509195945050505050565b8281526101008101610cf86020830184612987565b5f5f8335601e19843603018112612af3575f5ffd5b83018035915067ffffffffffffffff821115612b0d575f5ffd5b6020019150368190038213156124a6575f5ffd5b828482375f8382015f815283518060208601835e5f910190815295945050505050565b64ffffffffff8181168382160190811115610c2c57610c2c6128ab565b634e487b7160e01b5f52602160045260245ffd5b600181811c90821680612b8957607f821691505b60208210810361243157634e487b7160e01b5f52602260045260245ffd",
}

// BatchSettlement is an auto generated Go binding around an Ethereum contract.
type BatchSettlement struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *BatchSettlement) GetABI() abi.ABI {
	return c.abi
}

// NewBatchSettlement creates a new instance of BatchSettlement.
func NewBatchSettlement() *BatchSettlement {
	parsed, err := BatchSettlementMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &BatchSettlement{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *BatchSettlement) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackCHANNELCONFIGTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8e4a68ac.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function CHANNEL_CONFIG_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) PackCHANNELCONFIGTYPEHASH() []byte {
	enc, err := batchSettlement.abi.Pack("CHANNEL_CONFIG_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCHANNELCONFIGTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8e4a68ac.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function CHANNEL_CONFIG_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) TryPackCHANNELCONFIGTYPEHASH() ([]byte, error) {
	return batchSettlement.abi.Pack("CHANNEL_CONFIG_TYPEHASH")
}

// UnpackCHANNELCONFIGTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8e4a68ac.
//
// Solidity: function CHANNEL_CONFIG_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) UnpackCHANNELCONFIGTYPEHASH(data []byte) ([32]byte, error) {
	out, err := batchSettlement.abi.Unpack("CHANNEL_CONFIG_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackCLAIMBATCHTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x53ab0fae.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function CLAIM_BATCH_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) PackCLAIMBATCHTYPEHASH() []byte {
	enc, err := batchSettlement.abi.Pack("CLAIM_BATCH_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCLAIMBATCHTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x53ab0fae.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function CLAIM_BATCH_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) TryPackCLAIMBATCHTYPEHASH() ([]byte, error) {
	return batchSettlement.abi.Pack("CLAIM_BATCH_TYPEHASH")
}

// UnpackCLAIMBATCHTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x53ab0fae.
//
// Solidity: function CLAIM_BATCH_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) UnpackCLAIMBATCHTYPEHASH(data []byte) ([32]byte, error) {
	out, err := batchSettlement.abi.Unpack("CLAIM_BATCH_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackCLAIMENTRYTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xba94ec0d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function CLAIM_ENTRY_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) PackCLAIMENTRYTYPEHASH() []byte {
	enc, err := batchSettlement.abi.Pack("CLAIM_ENTRY_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCLAIMENTRYTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xba94ec0d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function CLAIM_ENTRY_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) TryPackCLAIMENTRYTYPEHASH() ([]byte, error) {
	return batchSettlement.abi.Pack("CLAIM_ENTRY_TYPEHASH")
}

// UnpackCLAIMENTRYTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xba94ec0d.
//
// Solidity: function CLAIM_ENTRY_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) UnpackCLAIMENTRYTYPEHASH(data []byte) ([32]byte, error) {
	out, err := batchSettlement.abi.Unpack("CLAIM_ENTRY_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackMAXWITHDRAWDELAY is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1fc3277d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_WITHDRAW_DELAY() view returns(uint40)
func (batchSettlement *BatchSettlement) PackMAXWITHDRAWDELAY() []byte {
	enc, err := batchSettlement.abi.Pack("MAX_WITHDRAW_DELAY")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXWITHDRAWDELAY is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1fc3277d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_WITHDRAW_DELAY() view returns(uint40)
func (batchSettlement *BatchSettlement) TryPackMAXWITHDRAWDELAY() ([]byte, error) {
	return batchSettlement.abi.Pack("MAX_WITHDRAW_DELAY")
}

// UnpackMAXWITHDRAWDELAY is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1fc3277d.
//
// Solidity: function MAX_WITHDRAW_DELAY() view returns(uint40)
func (batchSettlement *BatchSettlement) UnpackMAXWITHDRAWDELAY(data []byte) (*big.Int, error) {
	out, err := batchSettlement.abi.Unpack("MAX_WITHDRAW_DELAY", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMINWITHDRAWDELAY is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xae159439.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MIN_WITHDRAW_DELAY() view returns(uint40)
func (batchSettlement *BatchSettlement) PackMINWITHDRAWDELAY() []byte {
	enc, err := batchSettlement.abi.Pack("MIN_WITHDRAW_DELAY")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMINWITHDRAWDELAY is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xae159439.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MIN_WITHDRAW_DELAY() view returns(uint40)
func (batchSettlement *BatchSettlement) TryPackMINWITHDRAWDELAY() ([]byte, error) {
	return batchSettlement.abi.Pack("MIN_WITHDRAW_DELAY")
}

// UnpackMINWITHDRAWDELAY is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xae159439.
//
// Solidity: function MIN_WITHDRAW_DELAY() view returns(uint40)
func (batchSettlement *BatchSettlement) UnpackMINWITHDRAWDELAY(data []byte) (*big.Int, error) {
	out, err := batchSettlement.abi.Unpack("MIN_WITHDRAW_DELAY", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackREFUNDTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1e69ef40.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function REFUND_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) PackREFUNDTYPEHASH() []byte {
	enc, err := batchSettlement.abi.Pack("REFUND_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackREFUNDTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1e69ef40.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function REFUND_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) TryPackREFUNDTYPEHASH() ([]byte, error) {
	return batchSettlement.abi.Pack("REFUND_TYPEHASH")
}

// UnpackREFUNDTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1e69ef40.
//
// Solidity: function REFUND_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) UnpackREFUNDTYPEHASH(data []byte) ([32]byte, error) {
	out, err := batchSettlement.abi.Unpack("REFUND_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackVOUCHERTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x94739e87.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function VOUCHER_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) PackVOUCHERTYPEHASH() []byte {
	enc, err := batchSettlement.abi.Pack("VOUCHER_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVOUCHERTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x94739e87.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function VOUCHER_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) TryPackVOUCHERTYPEHASH() ([]byte, error) {
	return batchSettlement.abi.Pack("VOUCHER_TYPEHASH")
}

// UnpackVOUCHERTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x94739e87.
//
// Solidity: function VOUCHER_TYPEHASH() view returns(bytes32)
func (batchSettlement *BatchSettlement) UnpackVOUCHERTYPEHASH(data []byte) ([32]byte, error) {
	out, err := batchSettlement.abi.Unpack("VOUCHER_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackChannels is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7a7ebd7b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function channels(bytes32 channelId) view returns(uint128 balance, uint128 totalClaimed)
func (batchSettlement *BatchSettlement) PackChannels(channelId [32]byte) []byte {
	enc, err := batchSettlement.abi.Pack("channels", channelId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackChannels is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7a7ebd7b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function channels(bytes32 channelId) view returns(uint128 balance, uint128 totalClaimed)
func (batchSettlement *BatchSettlement) TryPackChannels(channelId [32]byte) ([]byte, error) {
	return batchSettlement.abi.Pack("channels", channelId)
}

// ChannelsOutput serves as a container for the return parameters of contract
// method Channels.
type ChannelsOutput struct {
	Balance      *big.Int
	TotalClaimed *big.Int
}

// UnpackChannels is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7a7ebd7b.
//
// Solidity: function channels(bytes32 channelId) view returns(uint128 balance, uint128 totalClaimed)
func (batchSettlement *BatchSettlement) UnpackChannels(data []byte) (ChannelsOutput, error) {
	out, err := batchSettlement.abi.Unpack("channels", data)
	outstruct := new(ChannelsOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Balance = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.TotalClaimed = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackClaim is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x29237b0c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function claim((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims) returns()
func (batchSettlement *BatchSettlement) PackClaim(voucherClaims []X402BatchSettlementVoucherClaim) []byte {
	enc, err := batchSettlement.abi.Pack("claim", voucherClaims)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackClaim is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x29237b0c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function claim((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims) returns()
func (batchSettlement *BatchSettlement) TryPackClaim(voucherClaims []X402BatchSettlementVoucherClaim) ([]byte, error) {
	return batchSettlement.abi.Pack("claim", voucherClaims)
}

// PackClaimWithSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe43ce1f2.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function claimWithSignature((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims, bytes authorizerSignature) returns()
func (batchSettlement *BatchSettlement) PackClaimWithSignature(voucherClaims []X402BatchSettlementVoucherClaim, authorizerSignature []byte) []byte {
	enc, err := batchSettlement.abi.Pack("claimWithSignature", voucherClaims, authorizerSignature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackClaimWithSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe43ce1f2.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function claimWithSignature((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims, bytes authorizerSignature) returns()
func (batchSettlement *BatchSettlement) TryPackClaimWithSignature(voucherClaims []X402BatchSettlementVoucherClaim, authorizerSignature []byte) ([]byte, error) {
	return batchSettlement.abi.Pack("claimWithSignature", voucherClaims, authorizerSignature)
}

// PackDeposit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x140f1e75.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function deposit((address,address,address,address,address,uint40,bytes32) config, uint128 amount, address collector, bytes collectorData) returns()
func (batchSettlement *BatchSettlement) PackDeposit(config X402BatchSettlementChannelConfig, amount *big.Int, collector common.Address, collectorData []byte) []byte {
	enc, err := batchSettlement.abi.Pack("deposit", config, amount, collector, collectorData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDeposit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x140f1e75.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function deposit((address,address,address,address,address,uint40,bytes32) config, uint128 amount, address collector, bytes collectorData) returns()
func (batchSettlement *BatchSettlement) TryPackDeposit(config X402BatchSettlementChannelConfig, amount *big.Int, collector common.Address, collectorData []byte) ([]byte, error) {
	return batchSettlement.abi.Pack("deposit", config, amount, collector, collectorData)
}

// PackEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (batchSettlement *BatchSettlement) PackEip712Domain() []byte {
	enc, err := batchSettlement.abi.Pack("eip712Domain")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (batchSettlement *BatchSettlement) TryPackEip712Domain() ([]byte, error) {
	return batchSettlement.abi.Pack("eip712Domain")
}

// Eip712DomainOutput serves as a container for the return parameters of contract
// method Eip712Domain.
type Eip712DomainOutput struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}

// UnpackEip712Domain is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (batchSettlement *BatchSettlement) UnpackEip712Domain(data []byte) (Eip712DomainOutput, error) {
	out, err := batchSettlement.abi.Unpack("eip712Domain", data)
	outstruct := new(Eip712DomainOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Fields = *abi.ConvertType(out[0], new([1]byte)).(*[1]byte)
	outstruct.Name = *abi.ConvertType(out[1], new(string)).(*string)
	outstruct.Version = *abi.ConvertType(out[2], new(string)).(*string)
	outstruct.ChainId = abi.ConvertType(out[3], new(big.Int)).(*big.Int)
	outstruct.VerifyingContract = *abi.ConvertType(out[4], new(common.Address)).(*common.Address)
	outstruct.Salt = *abi.ConvertType(out[5], new([32]byte)).(*[32]byte)
	outstruct.Extensions = *abi.ConvertType(out[6], new([]*big.Int)).(*[]*big.Int)
	return *outstruct, nil
}

// PackFinalizeWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe88377b1.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function finalizeWithdraw((address,address,address,address,address,uint40,bytes32) config) returns()
func (batchSettlement *BatchSettlement) PackFinalizeWithdraw(config X402BatchSettlementChannelConfig) []byte {
	enc, err := batchSettlement.abi.Pack("finalizeWithdraw", config)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFinalizeWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe88377b1.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function finalizeWithdraw((address,address,address,address,address,uint40,bytes32) config) returns()
func (batchSettlement *BatchSettlement) TryPackFinalizeWithdraw(config X402BatchSettlementChannelConfig) ([]byte, error) {
	return batchSettlement.abi.Pack("finalizeWithdraw", config)
}

// PackGetChannelId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5e5e0b87.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getChannelId((address,address,address,address,address,uint40,bytes32) config) view returns(bytes32)
func (batchSettlement *BatchSettlement) PackGetChannelId(config X402BatchSettlementChannelConfig) []byte {
	enc, err := batchSettlement.abi.Pack("getChannelId", config)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetChannelId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5e5e0b87.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getChannelId((address,address,address,address,address,uint40,bytes32) config) view returns(bytes32)
func (batchSettlement *BatchSettlement) TryPackGetChannelId(config X402BatchSettlementChannelConfig) ([]byte, error) {
	return batchSettlement.abi.Pack("getChannelId", config)
}

// UnpackGetChannelId is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5e5e0b87.
//
// Solidity: function getChannelId((address,address,address,address,address,uint40,bytes32) config) view returns(bytes32)
func (batchSettlement *BatchSettlement) UnpackGetChannelId(data []byte) ([32]byte, error) {
	out, err := batchSettlement.abi.Unpack("getChannelId", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackGetClaimBatchDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x488ccc3b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getClaimBatchDigest((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims) view returns(bytes32)
func (batchSettlement *BatchSettlement) PackGetClaimBatchDigest(voucherClaims []X402BatchSettlementVoucherClaim) []byte {
	enc, err := batchSettlement.abi.Pack("getClaimBatchDigest", voucherClaims)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetClaimBatchDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x488ccc3b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getClaimBatchDigest((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims) view returns(bytes32)
func (batchSettlement *BatchSettlement) TryPackGetClaimBatchDigest(voucherClaims []X402BatchSettlementVoucherClaim) ([]byte, error) {
	return batchSettlement.abi.Pack("getClaimBatchDigest", voucherClaims)
}

// UnpackGetClaimBatchDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x488ccc3b.
//
// Solidity: function getClaimBatchDigest((((address,address,address,address,address,uint40,bytes32),uint128),bytes,uint128)[] voucherClaims) view returns(bytes32)
func (batchSettlement *BatchSettlement) UnpackGetClaimBatchDigest(data []byte) ([32]byte, error) {
	out, err := batchSettlement.abi.Unpack("getClaimBatchDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackGetRefundDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe25cf189.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) view returns(bytes32)
func (batchSettlement *BatchSettlement) PackGetRefundDigest(channelId [32]byte, nonce *big.Int, amount *big.Int) []byte {
	enc, err := batchSettlement.abi.Pack("getRefundDigest", channelId, nonce, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetRefundDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe25cf189.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) view returns(bytes32)
func (batchSettlement *BatchSettlement) TryPackGetRefundDigest(channelId [32]byte, nonce *big.Int, amount *big.Int) ([]byte, error) {
	return batchSettlement.abi.Pack("getRefundDigest", channelId, nonce, amount)
}

// UnpackGetRefundDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe25cf189.
//
// Solidity: function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) view returns(bytes32)
func (batchSettlement *BatchSettlement) UnpackGetRefundDigest(data []byte) ([32]byte, error) {
	out, err := batchSettlement.abi.Unpack("getRefundDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackGetVoucherDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x862bb199.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) view returns(bytes32)
func (batchSettlement *BatchSettlement) PackGetVoucherDigest(channelId [32]byte, maxClaimableAmount *big.Int) []byte {
	enc, err := batchSettlement.abi.Pack("getVoucherDigest", channelId, maxClaimableAmount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetVoucherDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x862bb199.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) view returns(bytes32)
func (batchSettlement *BatchSettlement) TryPackGetVoucherDigest(channelId [32]byte, maxClaimableAmount *big.Int) ([]byte, error) {
	return batchSettlement.abi.Pack("getVoucherDigest", channelId, maxClaimableAmount)
}

// UnpackGetVoucherDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x862bb199.
//
// Solidity: function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) view returns(bytes32)
func (batchSettlement *BatchSettlement) UnpackGetVoucherDigest(data []byte) ([32]byte, error) {
	out, err := batchSettlement.abi.Unpack("getVoucherDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackInitiateWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcf5cf3dc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function initiateWithdraw((address,address,address,address,address,uint40,bytes32) config, uint128 amount) returns()
func (batchSettlement *BatchSettlement) PackInitiateWithdraw(config X402BatchSettlementChannelConfig, amount *big.Int) []byte {
	enc, err := batchSettlement.abi.Pack("initiateWithdraw", config, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackInitiateWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcf5cf3dc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function initiateWithdraw((address,address,address,address,address,uint40,bytes32) config, uint128 amount) returns()
func (batchSettlement *BatchSettlement) TryPackInitiateWithdraw(config X402BatchSettlementChannelConfig, amount *big.Int) ([]byte, error) {
	return batchSettlement.abi.Pack("initiateWithdraw", config, amount)
}

// PackMulticall is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xac9650d8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function multicall(bytes[] data) returns(bytes[] results)
func (batchSettlement *BatchSettlement) PackMulticall(data [][]byte) []byte {
	enc, err := batchSettlement.abi.Pack("multicall", data)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMulticall is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xac9650d8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function multicall(bytes[] data) returns(bytes[] results)
func (batchSettlement *BatchSettlement) TryPackMulticall(data [][]byte) ([]byte, error) {
	return batchSettlement.abi.Pack("multicall", data)
}

// UnpackMulticall is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xac9650d8.
//
// Solidity: function multicall(bytes[] data) returns(bytes[] results)
func (batchSettlement *BatchSettlement) UnpackMulticall(data []byte) ([][]byte, error) {
	out, err := batchSettlement.abi.Unpack("multicall", data)
	if err != nil {
		return *new([][]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([][]byte)).(*[][]byte)
	return out0, nil
}

// PackPendingWithdrawals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb7f06ebe.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function pendingWithdrawals(bytes32 channelId) view returns(uint128 amount, uint40 initiatedAt)
func (batchSettlement *BatchSettlement) PackPendingWithdrawals(channelId [32]byte) []byte {
	enc, err := batchSettlement.abi.Pack("pendingWithdrawals", channelId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPendingWithdrawals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb7f06ebe.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function pendingWithdrawals(bytes32 channelId) view returns(uint128 amount, uint40 initiatedAt)
func (batchSettlement *BatchSettlement) TryPackPendingWithdrawals(channelId [32]byte) ([]byte, error) {
	return batchSettlement.abi.Pack("pendingWithdrawals", channelId)
}

// PendingWithdrawalsOutput serves as a container for the return parameters of contract
// method PendingWithdrawals.
type PendingWithdrawalsOutput struct {
	Amount      *big.Int
	InitiatedAt *big.Int
}

// UnpackPendingWithdrawals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb7f06ebe.
//
// Solidity: function pendingWithdrawals(bytes32 channelId) view returns(uint128 amount, uint40 initiatedAt)
func (batchSettlement *BatchSettlement) UnpackPendingWithdrawals(data []byte) (PendingWithdrawalsOutput, error) {
	out, err := batchSettlement.abi.Unpack("pendingWithdrawals", data)
	outstruct := new(PendingWithdrawalsOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Amount = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.InitiatedAt = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackReceivers is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x21ff6389.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function receivers(address receiver, address token) view returns(uint128 totalClaimed, uint128 totalSettled)
func (batchSettlement *BatchSettlement) PackReceivers(receiver common.Address, token common.Address) []byte {
	enc, err := batchSettlement.abi.Pack("receivers", receiver, token)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReceivers is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x21ff6389.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function receivers(address receiver, address token) view returns(uint128 totalClaimed, uint128 totalSettled)
func (batchSettlement *BatchSettlement) TryPackReceivers(receiver common.Address, token common.Address) ([]byte, error) {
	return batchSettlement.abi.Pack("receivers", receiver, token)
}

// ReceiversOutput serves as a container for the return parameters of contract
// method Receivers.
type ReceiversOutput struct {
	TotalClaimed *big.Int
	TotalSettled *big.Int
}

// UnpackReceivers is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x21ff6389.
//
// Solidity: function receivers(address receiver, address token) view returns(uint128 totalClaimed, uint128 totalSettled)
func (batchSettlement *BatchSettlement) UnpackReceivers(data []byte) (ReceiversOutput, error) {
	out, err := batchSettlement.abi.Unpack("receivers", data)
	outstruct := new(ReceiversOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.TotalClaimed = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.TotalSettled = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackRefund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdce4bfae.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function refund((address,address,address,address,address,uint40,bytes32) config, uint128 amount) returns()
func (batchSettlement *BatchSettlement) PackRefund(config X402BatchSettlementChannelConfig, amount *big.Int) []byte {
	enc, err := batchSettlement.abi.Pack("refund", config, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRefund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdce4bfae.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function refund((address,address,address,address,address,uint40,bytes32) config, uint128 amount) returns()
func (batchSettlement *BatchSettlement) TryPackRefund(config X402BatchSettlementChannelConfig, amount *big.Int) ([]byte, error) {
	return batchSettlement.abi.Pack("refund", config, amount)
}

// PackRefundNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf0dc792e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function refundNonce(bytes32 channelId) view returns(uint256)
func (batchSettlement *BatchSettlement) PackRefundNonce(channelId [32]byte) []byte {
	enc, err := batchSettlement.abi.Pack("refundNonce", channelId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRefundNonce is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf0dc792e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function refundNonce(bytes32 channelId) view returns(uint256)
func (batchSettlement *BatchSettlement) TryPackRefundNonce(channelId [32]byte) ([]byte, error) {
	return batchSettlement.abi.Pack("refundNonce", channelId)
}

// UnpackRefundNonce is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf0dc792e.
//
// Solidity: function refundNonce(bytes32 channelId) view returns(uint256)
func (batchSettlement *BatchSettlement) UnpackRefundNonce(data []byte) (*big.Int, error) {
	out, err := batchSettlement.abi.Unpack("refundNonce", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRefundWithSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb77433e9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function refundWithSignature((address,address,address,address,address,uint40,bytes32) config, uint128 amount, uint256 nonce, bytes receiverAuthorizerSignature) returns()
func (batchSettlement *BatchSettlement) PackRefundWithSignature(config X402BatchSettlementChannelConfig, amount *big.Int, nonce *big.Int, receiverAuthorizerSignature []byte) []byte {
	enc, err := batchSettlement.abi.Pack("refundWithSignature", config, amount, nonce, receiverAuthorizerSignature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRefundWithSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb77433e9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function refundWithSignature((address,address,address,address,address,uint40,bytes32) config, uint128 amount, uint256 nonce, bytes receiverAuthorizerSignature) returns()
func (batchSettlement *BatchSettlement) TryPackRefundWithSignature(config X402BatchSettlementChannelConfig, amount *big.Int, nonce *big.Int, receiverAuthorizerSignature []byte) ([]byte, error) {
	return batchSettlement.abi.Pack("refundWithSignature", config, amount, nonce, receiverAuthorizerSignature)
}

// PackSettle is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9db32a8f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function settle(address receiver, address token) returns()
func (batchSettlement *BatchSettlement) PackSettle(receiver common.Address, token common.Address) []byte {
	enc, err := batchSettlement.abi.Pack("settle", receiver, token)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSettle is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9db32a8f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function settle(address receiver, address token) returns()
func (batchSettlement *BatchSettlement) TryPackSettle(receiver common.Address, token common.Address) ([]byte, error) {
	return batchSettlement.abi.Pack("settle", receiver, token)
}

// BatchSettlementChannelClosed represents a ChannelClosed event raised by the BatchSettlement contract.
type BatchSettlementChannelClosed struct {
	ChannelId [32]byte
	Config    X402BatchSettlementChannelConfig
	Raw       *types.Log // Blockchain specific contextual infos
}

const BatchSettlementChannelClosedEventName = "ChannelClosed"

// ContractEventName returns the user-defined event name.
func (BatchSettlementChannelClosed) ContractEventName() string {
	return BatchSettlementChannelClosedEventName
}

// UnpackChannelClosedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ChannelClosed(bytes32 indexed channelId, (address,address,address,address,address,uint40,bytes32) config)
func (batchSettlement *BatchSettlement) UnpackChannelClosedEvent(log *types.Log) (*BatchSettlementChannelClosed, error) {
	event := "ChannelClosed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchSettlement.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchSettlementChannelClosed)
	if len(log.Data) > 0 {
		if err := batchSettlement.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchSettlement.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchSettlementChannelCreated represents a ChannelCreated event raised by the BatchSettlement contract.
type BatchSettlementChannelCreated struct {
	ChannelId [32]byte
	Config    X402BatchSettlementChannelConfig
	Raw       *types.Log // Blockchain specific contextual infos
}

const BatchSettlementChannelCreatedEventName = "ChannelCreated"

// ContractEventName returns the user-defined event name.
func (BatchSettlementChannelCreated) ContractEventName() string {
	return BatchSettlementChannelCreatedEventName
}

// UnpackChannelCreatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ChannelCreated(bytes32 indexed channelId, (address,address,address,address,address,uint40,bytes32) config)
func (batchSettlement *BatchSettlement) UnpackChannelCreatedEvent(log *types.Log) (*BatchSettlementChannelCreated, error) {
	event := "ChannelCreated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchSettlement.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchSettlementChannelCreated)
	if len(log.Data) > 0 {
		if err := batchSettlement.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchSettlement.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchSettlementClaimed represents a Claimed event raised by the BatchSettlement contract.
type BatchSettlementClaimed struct {
	ChannelId       [32]byte
	Sender          common.Address
	ClaimAmount     *big.Int
	NewTotalClaimed *big.Int
	Raw             *types.Log // Blockchain specific contextual infos
}

const BatchSettlementClaimedEventName = "Claimed"

// ContractEventName returns the user-defined event name.
func (BatchSettlementClaimed) ContractEventName() string {
	return BatchSettlementClaimedEventName
}

// UnpackClaimedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed)
func (batchSettlement *BatchSettlement) UnpackClaimedEvent(log *types.Log) (*BatchSettlementClaimed, error) {
	event := "Claimed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchSettlement.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchSettlementClaimed)
	if len(log.Data) > 0 {
		if err := batchSettlement.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchSettlement.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchSettlementDeposited represents a Deposited event raised by the BatchSettlement contract.
type BatchSettlementDeposited struct {
	ChannelId  [32]byte
	Sender     common.Address
	Amount     *big.Int
	NewBalance *big.Int
	Raw        *types.Log // Blockchain specific contextual infos
}

const BatchSettlementDepositedEventName = "Deposited"

// ContractEventName returns the user-defined event name.
func (BatchSettlementDeposited) ContractEventName() string {
	return BatchSettlementDepositedEventName
}

// UnpackDepositedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance)
func (batchSettlement *BatchSettlement) UnpackDepositedEvent(log *types.Log) (*BatchSettlementDeposited, error) {
	event := "Deposited"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchSettlement.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchSettlementDeposited)
	if len(log.Data) > 0 {
		if err := batchSettlement.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchSettlement.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchSettlementEIP712DomainChanged represents a EIP712DomainChanged event raised by the BatchSettlement contract.
type BatchSettlementEIP712DomainChanged struct {
	Raw *types.Log // Blockchain specific contextual infos
}

const BatchSettlementEIP712DomainChangedEventName = "EIP712DomainChanged"

// ContractEventName returns the user-defined event name.
func (BatchSettlementEIP712DomainChanged) ContractEventName() string {
	return BatchSettlementEIP712DomainChangedEventName
}

// UnpackEIP712DomainChangedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EIP712DomainChanged()
func (batchSettlement *BatchSettlement) UnpackEIP712DomainChangedEvent(log *types.Log) (*BatchSettlementEIP712DomainChanged, error) {
	event := "EIP712DomainChanged"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchSettlement.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchSettlementEIP712DomainChanged)
	if len(log.Data) > 0 {
		if err := batchSettlement.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchSettlement.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchSettlementRefunded represents a Refunded event raised by the BatchSettlement contract.
type BatchSettlementRefunded struct {
	ChannelId [32]byte
	Sender    common.Address
	Amount    *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const BatchSettlementRefundedEventName = "Refunded"

// ContractEventName returns the user-defined event name.
func (BatchSettlementRefunded) ContractEventName() string {
	return BatchSettlementRefundedEventName
}

// UnpackRefundedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount)
func (batchSettlement *BatchSettlement) UnpackRefundedEvent(log *types.Log) (*BatchSettlementRefunded, error) {
	event := "Refunded"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchSettlement.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchSettlementRefunded)
	if len(log.Data) > 0 {
		if err := batchSettlement.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchSettlement.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchSettlementSettled represents a Settled event raised by the BatchSettlement contract.
type BatchSettlementSettled struct {
	Receiver common.Address
	Token    common.Address
	Sender   common.Address
	Amount   *big.Int
	Raw      *types.Log // Blockchain specific contextual infos
}

const BatchSettlementSettledEventName = "Settled"

// ContractEventName returns the user-defined event name.
func (BatchSettlementSettled) ContractEventName() string {
	return BatchSettlementSettledEventName
}

// UnpackSettledEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount)
func (batchSettlement *BatchSettlement) UnpackSettledEvent(log *types.Log) (*BatchSettlementSettled, error) {
	event := "Settled"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchSettlement.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchSettlementSettled)
	if len(log.Data) > 0 {
		if err := batchSettlement.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchSettlement.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchSettlementWithdrawFinalized represents a WithdrawFinalized event raised by the BatchSettlement contract.
type BatchSettlementWithdrawFinalized struct {
	ChannelId [32]byte
	Sender    common.Address
	Amount    *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const BatchSettlementWithdrawFinalizedEventName = "WithdrawFinalized"

// ContractEventName returns the user-defined event name.
func (BatchSettlementWithdrawFinalized) ContractEventName() string {
	return BatchSettlementWithdrawFinalizedEventName
}

// UnpackWithdrawFinalizedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount)
func (batchSettlement *BatchSettlement) UnpackWithdrawFinalizedEvent(log *types.Log) (*BatchSettlementWithdrawFinalized, error) {
	event := "WithdrawFinalized"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchSettlement.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchSettlementWithdrawFinalized)
	if len(log.Data) > 0 {
		if err := batchSettlement.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchSettlement.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// BatchSettlementWithdrawInitiated represents a WithdrawInitiated event raised by the BatchSettlement contract.
type BatchSettlementWithdrawInitiated struct {
	ChannelId     [32]byte
	Amount        *big.Int
	FinalizeAfter *big.Int
	Raw           *types.Log // Blockchain specific contextual infos
}

const BatchSettlementWithdrawInitiatedEventName = "WithdrawInitiated"

// ContractEventName returns the user-defined event name.
func (BatchSettlementWithdrawInitiated) ContractEventName() string {
	return BatchSettlementWithdrawInitiatedEventName
}

// UnpackWithdrawInitiatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter)
func (batchSettlement *BatchSettlement) UnpackWithdrawInitiatedEvent(log *types.Log) (*BatchSettlementWithdrawInitiated, error) {
	event := "WithdrawInitiated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != batchSettlement.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(BatchSettlementWithdrawInitiated)
	if len(log.Data) > 0 {
		if err := batchSettlement.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range batchSettlement.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (batchSettlement *BatchSettlement) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["AddressEmptyCode"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackAddressEmptyCodeError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["ClaimExceedsBalance"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackClaimExceedsBalanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["ClaimExceedsCeiling"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackClaimExceedsCeilingError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["DepositCollectionFailed"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackDepositCollectionFailedError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["DepositOverflow"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackDepositOverflowError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["ECDSAInvalidSignature"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackECDSAInvalidSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["ECDSAInvalidSignatureLength"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackECDSAInvalidSignatureLengthError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["ECDSAInvalidSignatureS"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackECDSAInvalidSignatureSError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["EmptyBatch"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackEmptyBatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["FailedCall"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackFailedCallError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["InvalidChannel"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackInvalidChannelError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["InvalidCollector"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackInvalidCollectorError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["InvalidRefundNonce"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackInvalidRefundNonceError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["InvalidShortString"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackInvalidShortStringError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["InvalidSignature"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackInvalidSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["NotAuthorizedToClaim"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackNotAuthorizedToClaimError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["NotAuthorizedToFinalizeWithdraw"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackNotAuthorizedToFinalizeWithdrawError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["NotAuthorizedToRefund"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackNotAuthorizedToRefundError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["NotReceiverAuthorizer"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackNotReceiverAuthorizerError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["NothingToWithdraw"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackNothingToWithdrawError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["ReentrancyGuardReentrantCall"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackReentrancyGuardReentrantCallError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["SafeERC20FailedOperation"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackSafeERC20FailedOperationError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["StringTooLong"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackStringTooLongError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["WithdrawAmountExceedsAvailable"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackWithdrawAmountExceedsAvailableError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["WithdrawDelayNotElapsed"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackWithdrawDelayNotElapsedError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["WithdrawDelayOutOfRange"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackWithdrawDelayOutOfRangeError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["WithdrawalAlreadyPending"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackWithdrawalAlreadyPendingError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["WithdrawalNotPending"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackWithdrawalNotPendingError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["ZeroDeposit"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackZeroDepositError(raw[4:])
	}
	if bytes.Equal(raw[:4], batchSettlement.abi.Errors["ZeroRefund"].ID.Bytes()[:4]) {
		return batchSettlement.UnpackZeroRefundError(raw[4:])
	}
	return nil, errors.New("unknown error")
}

// BatchSettlementAddressEmptyCode represents a AddressEmptyCode error raised by the BatchSettlement contract.
type BatchSettlementAddressEmptyCode struct {
	Target common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AddressEmptyCode(address target)
func BatchSettlementAddressEmptyCodeErrorID() common.Hash {
	return common.HexToHash("0x9996b315c842ff135b8fc4a08ad5df1c344efbc03d2687aecc0678050d2aac89")
}

// UnpackAddressEmptyCodeError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AddressEmptyCode(address target)
func (batchSettlement *BatchSettlement) UnpackAddressEmptyCodeError(raw []byte) (*BatchSettlementAddressEmptyCode, error) {
	out := new(BatchSettlementAddressEmptyCode)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "AddressEmptyCode", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementClaimExceedsBalance represents a ClaimExceedsBalance error raised by the BatchSettlement contract.
type BatchSettlementClaimExceedsBalance struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ClaimExceedsBalance()
func BatchSettlementClaimExceedsBalanceErrorID() common.Hash {
	return common.HexToHash("0x7d8242b644ed15fd2ba487e6c0b4cd8132eeaec22a2a10eac4c365a7f6132dce")
}

// UnpackClaimExceedsBalanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ClaimExceedsBalance()
func (batchSettlement *BatchSettlement) UnpackClaimExceedsBalanceError(raw []byte) (*BatchSettlementClaimExceedsBalance, error) {
	out := new(BatchSettlementClaimExceedsBalance)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "ClaimExceedsBalance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementClaimExceedsCeiling represents a ClaimExceedsCeiling error raised by the BatchSettlement contract.
type BatchSettlementClaimExceedsCeiling struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ClaimExceedsCeiling()
func BatchSettlementClaimExceedsCeilingErrorID() common.Hash {
	return common.HexToHash("0xf1789775d20e6d801e1dcc76eab01f1cb47cdae0c7ca47c1339d503e1850128f")
}

// UnpackClaimExceedsCeilingError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ClaimExceedsCeiling()
func (batchSettlement *BatchSettlement) UnpackClaimExceedsCeilingError(raw []byte) (*BatchSettlementClaimExceedsCeiling, error) {
	out := new(BatchSettlementClaimExceedsCeiling)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "ClaimExceedsCeiling", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementDepositCollectionFailed represents a DepositCollectionFailed error raised by the BatchSettlement contract.
type BatchSettlementDepositCollectionFailed struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DepositCollectionFailed()
func BatchSettlementDepositCollectionFailedErrorID() common.Hash {
	return common.HexToHash("0xeb43592c973aefddc2c72f3fcc1cd6babb3269a7dda5fedb2a98f5e1934613f1")
}

// UnpackDepositCollectionFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DepositCollectionFailed()
func (batchSettlement *BatchSettlement) UnpackDepositCollectionFailedError(raw []byte) (*BatchSettlementDepositCollectionFailed, error) {
	out := new(BatchSettlementDepositCollectionFailed)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "DepositCollectionFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementDepositOverflow represents a DepositOverflow error raised by the BatchSettlement contract.
type BatchSettlementDepositOverflow struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DepositOverflow()
func BatchSettlementDepositOverflowErrorID() common.Hash {
	return common.HexToHash("0x1132981b50988e5bf5914c2cdbec86f17b96e379b9fe376f3978c42411aafcd6")
}

// UnpackDepositOverflowError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DepositOverflow()
func (batchSettlement *BatchSettlement) UnpackDepositOverflowError(raw []byte) (*BatchSettlementDepositOverflow, error) {
	out := new(BatchSettlementDepositOverflow)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "DepositOverflow", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementECDSAInvalidSignature represents a ECDSAInvalidSignature error raised by the BatchSettlement contract.
type BatchSettlementECDSAInvalidSignature struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ECDSAInvalidSignature()
func BatchSettlementECDSAInvalidSignatureErrorID() common.Hash {
	return common.HexToHash("0xf645eedf0193584640b6b90cb9477e4c95b98636c148a891d4c0a146dc46e75a")
}

// UnpackECDSAInvalidSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ECDSAInvalidSignature()
func (batchSettlement *BatchSettlement) UnpackECDSAInvalidSignatureError(raw []byte) (*BatchSettlementECDSAInvalidSignature, error) {
	out := new(BatchSettlementECDSAInvalidSignature)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "ECDSAInvalidSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementECDSAInvalidSignatureLength represents a ECDSAInvalidSignatureLength error raised by the BatchSettlement contract.
type BatchSettlementECDSAInvalidSignatureLength struct {
	Length *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ECDSAInvalidSignatureLength(uint256 length)
func BatchSettlementECDSAInvalidSignatureLengthErrorID() common.Hash {
	return common.HexToHash("0xfce698f7e8e5342cd615f641317bc45fe7e1e4a8b0a14dd1383ff8dc9c41917f")
}

// UnpackECDSAInvalidSignatureLengthError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ECDSAInvalidSignatureLength(uint256 length)
func (batchSettlement *BatchSettlement) UnpackECDSAInvalidSignatureLengthError(raw []byte) (*BatchSettlementECDSAInvalidSignatureLength, error) {
	out := new(BatchSettlementECDSAInvalidSignatureLength)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "ECDSAInvalidSignatureLength", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementECDSAInvalidSignatureS represents a ECDSAInvalidSignatureS error raised by the BatchSettlement contract.
type BatchSettlementECDSAInvalidSignatureS struct {
	S [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ECDSAInvalidSignatureS(bytes32 s)
func BatchSettlementECDSAInvalidSignatureSErrorID() common.Hash {
	return common.HexToHash("0xd78bce0cccb935155ed6428d1c13e50b7f3550fd2b66b9fe266006fea4a5e1eb")
}

// UnpackECDSAInvalidSignatureSError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ECDSAInvalidSignatureS(bytes32 s)
func (batchSettlement *BatchSettlement) UnpackECDSAInvalidSignatureSError(raw []byte) (*BatchSettlementECDSAInvalidSignatureS, error) {
	out := new(BatchSettlementECDSAInvalidSignatureS)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "ECDSAInvalidSignatureS", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementEmptyBatch represents a EmptyBatch error raised by the BatchSettlement contract.
type BatchSettlementEmptyBatch struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyBatch()
func BatchSettlementEmptyBatchErrorID() common.Hash {
	return common.HexToHash("0xc2e5347df6cf8d1bf68f8a9651642312bd381b900d857d97cd665976180d6ae0")
}

// UnpackEmptyBatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyBatch()
func (batchSettlement *BatchSettlement) UnpackEmptyBatchError(raw []byte) (*BatchSettlementEmptyBatch, error) {
	out := new(BatchSettlementEmptyBatch)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "EmptyBatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementFailedCall represents a FailedCall error raised by the BatchSettlement contract.
type BatchSettlementFailedCall struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error FailedCall()
func BatchSettlementFailedCallErrorID() common.Hash {
	return common.HexToHash("0xd6bda27508c0fb6d8a39b4b122878dab26f731a7d4e4abe711dd3731899052a4")
}

// UnpackFailedCallError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error FailedCall()
func (batchSettlement *BatchSettlement) UnpackFailedCallError(raw []byte) (*BatchSettlementFailedCall, error) {
	out := new(BatchSettlementFailedCall)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "FailedCall", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementInvalidChannel represents a InvalidChannel error raised by the BatchSettlement contract.
type BatchSettlementInvalidChannel struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidChannel()
func BatchSettlementInvalidChannelErrorID() common.Hash {
	return common.HexToHash("0xea3a9a39ade8da556b2a0eb84fb492a877b9b1359a1d967769c796bffb21eff6")
}

// UnpackInvalidChannelError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidChannel()
func (batchSettlement *BatchSettlement) UnpackInvalidChannelError(raw []byte) (*BatchSettlementInvalidChannel, error) {
	out := new(BatchSettlementInvalidChannel)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "InvalidChannel", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementInvalidCollector represents a InvalidCollector error raised by the BatchSettlement contract.
type BatchSettlementInvalidCollector struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidCollector()
func BatchSettlementInvalidCollectorErrorID() common.Hash {
	return common.HexToHash("0x18b1afd44def9c8e2335a0b175a19408f7f5ef09683ee05e2f45e8042eb0d72d")
}

// UnpackInvalidCollectorError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidCollector()
func (batchSettlement *BatchSettlement) UnpackInvalidCollectorError(raw []byte) (*BatchSettlementInvalidCollector, error) {
	out := new(BatchSettlementInvalidCollector)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "InvalidCollector", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementInvalidRefundNonce represents a InvalidRefundNonce error raised by the BatchSettlement contract.
type BatchSettlementInvalidRefundNonce struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidRefundNonce()
func BatchSettlementInvalidRefundNonceErrorID() common.Hash {
	return common.HexToHash("0x164f1afe58c9ccb5990cf2f541ddec23cbaf091017a27897e515431a0b4fe8bf")
}

// UnpackInvalidRefundNonceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidRefundNonce()
func (batchSettlement *BatchSettlement) UnpackInvalidRefundNonceError(raw []byte) (*BatchSettlementInvalidRefundNonce, error) {
	out := new(BatchSettlementInvalidRefundNonce)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "InvalidRefundNonce", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementInvalidShortString represents a InvalidShortString error raised by the BatchSettlement contract.
type BatchSettlementInvalidShortString struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidShortString()
func BatchSettlementInvalidShortStringErrorID() common.Hash {
	return common.HexToHash("0xb3512b0c6163e5f0bafab72bb631b9d58cd7a731b082f910338aa21c83d5c274")
}

// UnpackInvalidShortStringError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidShortString()
func (batchSettlement *BatchSettlement) UnpackInvalidShortStringError(raw []byte) (*BatchSettlementInvalidShortString, error) {
	out := new(BatchSettlementInvalidShortString)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "InvalidShortString", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementInvalidSignature represents a InvalidSignature error raised by the BatchSettlement contract.
type BatchSettlementInvalidSignature struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidSignature()
func BatchSettlementInvalidSignatureErrorID() common.Hash {
	return common.HexToHash("0x8baa579fce362245063d36f11747a89dd489c54795634fc673cc0e0db51fedc5")
}

// UnpackInvalidSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidSignature()
func (batchSettlement *BatchSettlement) UnpackInvalidSignatureError(raw []byte) (*BatchSettlementInvalidSignature, error) {
	out := new(BatchSettlementInvalidSignature)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "InvalidSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementNotAuthorizedToClaim represents a NotAuthorizedToClaim error raised by the BatchSettlement contract.
type BatchSettlementNotAuthorizedToClaim struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotAuthorizedToClaim()
func BatchSettlementNotAuthorizedToClaimErrorID() common.Hash {
	return common.HexToHash("0xdefb7069aa3adba68f883d732ad2b24c087173487331fccb11d60d1fe7e970a0")
}

// UnpackNotAuthorizedToClaimError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotAuthorizedToClaim()
func (batchSettlement *BatchSettlement) UnpackNotAuthorizedToClaimError(raw []byte) (*BatchSettlementNotAuthorizedToClaim, error) {
	out := new(BatchSettlementNotAuthorizedToClaim)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "NotAuthorizedToClaim", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementNotAuthorizedToFinalizeWithdraw represents a NotAuthorizedToFinalizeWithdraw error raised by the BatchSettlement contract.
type BatchSettlementNotAuthorizedToFinalizeWithdraw struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotAuthorizedToFinalizeWithdraw()
func BatchSettlementNotAuthorizedToFinalizeWithdrawErrorID() common.Hash {
	return common.HexToHash("0x15f969d5c9e170be2291c083d6b150e6fcebf00ef2d8be6550ae6c3dc50dabdb")
}

// UnpackNotAuthorizedToFinalizeWithdrawError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotAuthorizedToFinalizeWithdraw()
func (batchSettlement *BatchSettlement) UnpackNotAuthorizedToFinalizeWithdrawError(raw []byte) (*BatchSettlementNotAuthorizedToFinalizeWithdraw, error) {
	out := new(BatchSettlementNotAuthorizedToFinalizeWithdraw)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "NotAuthorizedToFinalizeWithdraw", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementNotAuthorizedToRefund represents a NotAuthorizedToRefund error raised by the BatchSettlement contract.
type BatchSettlementNotAuthorizedToRefund struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotAuthorizedToRefund()
func BatchSettlementNotAuthorizedToRefundErrorID() common.Hash {
	return common.HexToHash("0x7864f008ee834500b7f2733a6014e3f8eea31d50246cafde51f13a9311acfd40")
}

// UnpackNotAuthorizedToRefundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotAuthorizedToRefund()
func (batchSettlement *BatchSettlement) UnpackNotAuthorizedToRefundError(raw []byte) (*BatchSettlementNotAuthorizedToRefund, error) {
	out := new(BatchSettlementNotAuthorizedToRefund)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "NotAuthorizedToRefund", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementNotReceiverAuthorizer represents a NotReceiverAuthorizer error raised by the BatchSettlement contract.
type BatchSettlementNotReceiverAuthorizer struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotReceiverAuthorizer()
func BatchSettlementNotReceiverAuthorizerErrorID() common.Hash {
	return common.HexToHash("0xf5e2237d61f9c9a130c1b6459a9c805b19d61228df4da0c80ec97c91b5bc3fb8")
}

// UnpackNotReceiverAuthorizerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotReceiverAuthorizer()
func (batchSettlement *BatchSettlement) UnpackNotReceiverAuthorizerError(raw []byte) (*BatchSettlementNotReceiverAuthorizer, error) {
	out := new(BatchSettlementNotReceiverAuthorizer)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "NotReceiverAuthorizer", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementNothingToWithdraw represents a NothingToWithdraw error raised by the BatchSettlement contract.
type BatchSettlementNothingToWithdraw struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NothingToWithdraw()
func BatchSettlementNothingToWithdrawErrorID() common.Hash {
	return common.HexToHash("0xd0d04f60bf4f7629141a1f00f5d2908fa0f3e15bf4cbf8bb8edc6fcbdf2509fa")
}

// UnpackNothingToWithdrawError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NothingToWithdraw()
func (batchSettlement *BatchSettlement) UnpackNothingToWithdrawError(raw []byte) (*BatchSettlementNothingToWithdraw, error) {
	out := new(BatchSettlementNothingToWithdraw)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "NothingToWithdraw", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementReentrancyGuardReentrantCall represents a ReentrancyGuardReentrantCall error raised by the BatchSettlement contract.
type BatchSettlementReentrancyGuardReentrantCall struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ReentrancyGuardReentrantCall()
func BatchSettlementReentrancyGuardReentrantCallErrorID() common.Hash {
	return common.HexToHash("0x3ee5aeb571de7fc460830b4d0017439a1ca56fb0bc39062227ade4fe4a24c1ca")
}

// UnpackReentrancyGuardReentrantCallError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ReentrancyGuardReentrantCall()
func (batchSettlement *BatchSettlement) UnpackReentrancyGuardReentrantCallError(raw []byte) (*BatchSettlementReentrancyGuardReentrantCall, error) {
	out := new(BatchSettlementReentrancyGuardReentrantCall)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "ReentrancyGuardReentrantCall", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementSafeERC20FailedOperation represents a SafeERC20FailedOperation error raised by the BatchSettlement contract.
type BatchSettlementSafeERC20FailedOperation struct {
	Token common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error SafeERC20FailedOperation(address token)
func BatchSettlementSafeERC20FailedOperationErrorID() common.Hash {
	return common.HexToHash("0x5274afe73c98b4749fc91ffae6b7b574e7842cb2144a159e9377a5f20b32edf9")
}

// UnpackSafeERC20FailedOperationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error SafeERC20FailedOperation(address token)
func (batchSettlement *BatchSettlement) UnpackSafeERC20FailedOperationError(raw []byte) (*BatchSettlementSafeERC20FailedOperation, error) {
	out := new(BatchSettlementSafeERC20FailedOperation)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "SafeERC20FailedOperation", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementStringTooLong represents a StringTooLong error raised by the BatchSettlement contract.
type BatchSettlementStringTooLong struct {
	Str string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StringTooLong(string str)
func BatchSettlementStringTooLongErrorID() common.Hash {
	return common.HexToHash("0x305a27a93f8e33b7392df0a0f91d6fc63847395853c45991eec52dbf24d72381")
}

// UnpackStringTooLongError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StringTooLong(string str)
func (batchSettlement *BatchSettlement) UnpackStringTooLongError(raw []byte) (*BatchSettlementStringTooLong, error) {
	out := new(BatchSettlementStringTooLong)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "StringTooLong", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementWithdrawAmountExceedsAvailable represents a WithdrawAmountExceedsAvailable error raised by the BatchSettlement contract.
type BatchSettlementWithdrawAmountExceedsAvailable struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WithdrawAmountExceedsAvailable()
func BatchSettlementWithdrawAmountExceedsAvailableErrorID() common.Hash {
	return common.HexToHash("0x6d3d5764eb95e3a6e5f7fa0be3c1d9073f1cf249735f075c057bad7a3474c94a")
}

// UnpackWithdrawAmountExceedsAvailableError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WithdrawAmountExceedsAvailable()
func (batchSettlement *BatchSettlement) UnpackWithdrawAmountExceedsAvailableError(raw []byte) (*BatchSettlementWithdrawAmountExceedsAvailable, error) {
	out := new(BatchSettlementWithdrawAmountExceedsAvailable)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "WithdrawAmountExceedsAvailable", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementWithdrawDelayNotElapsed represents a WithdrawDelayNotElapsed error raised by the BatchSettlement contract.
type BatchSettlementWithdrawDelayNotElapsed struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WithdrawDelayNotElapsed()
func BatchSettlementWithdrawDelayNotElapsedErrorID() common.Hash {
	return common.HexToHash("0xf3965827abb4b3501eba40fbc36bf95518923256f8e4150f82d6abaf898dfecb")
}

// UnpackWithdrawDelayNotElapsedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WithdrawDelayNotElapsed()
func (batchSettlement *BatchSettlement) UnpackWithdrawDelayNotElapsedError(raw []byte) (*BatchSettlementWithdrawDelayNotElapsed, error) {
	out := new(BatchSettlementWithdrawDelayNotElapsed)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "WithdrawDelayNotElapsed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementWithdrawDelayOutOfRange represents a WithdrawDelayOutOfRange error raised by the BatchSettlement contract.
type BatchSettlementWithdrawDelayOutOfRange struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WithdrawDelayOutOfRange()
func BatchSettlementWithdrawDelayOutOfRangeErrorID() common.Hash {
	return common.HexToHash("0x4574fab68d66a7482499780fe2cf118b6bf35c8ed02b94811df48a01231e8390")
}

// UnpackWithdrawDelayOutOfRangeError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WithdrawDelayOutOfRange()
func (batchSettlement *BatchSettlement) UnpackWithdrawDelayOutOfRangeError(raw []byte) (*BatchSettlementWithdrawDelayOutOfRange, error) {
	out := new(BatchSettlementWithdrawDelayOutOfRange)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "WithdrawDelayOutOfRange", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementWithdrawalAlreadyPending represents a WithdrawalAlreadyPending error raised by the BatchSettlement contract.
type BatchSettlementWithdrawalAlreadyPending struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WithdrawalAlreadyPending()
func BatchSettlementWithdrawalAlreadyPendingErrorID() common.Hash {
	return common.HexToHash("0xa2aed0f0fb41b1f15d5794b35460e07faf6ebe60d83540c80e89b1f06eca9396")
}

// UnpackWithdrawalAlreadyPendingError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WithdrawalAlreadyPending()
func (batchSettlement *BatchSettlement) UnpackWithdrawalAlreadyPendingError(raw []byte) (*BatchSettlementWithdrawalAlreadyPending, error) {
	out := new(BatchSettlementWithdrawalAlreadyPending)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "WithdrawalAlreadyPending", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementWithdrawalNotPending represents a WithdrawalNotPending error raised by the BatchSettlement contract.
type BatchSettlementWithdrawalNotPending struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WithdrawalNotPending()
func BatchSettlementWithdrawalNotPendingErrorID() common.Hash {
	return common.HexToHash("0x3a0a1ca689ec71617ac2a09f285d91cf55fffc1e4a31ad8aeebcc94abb3a85b3")
}

// UnpackWithdrawalNotPendingError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WithdrawalNotPending()
func (batchSettlement *BatchSettlement) UnpackWithdrawalNotPendingError(raw []byte) (*BatchSettlementWithdrawalNotPending, error) {
	out := new(BatchSettlementWithdrawalNotPending)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "WithdrawalNotPending", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementZeroDeposit represents a ZeroDeposit error raised by the BatchSettlement contract.
type BatchSettlementZeroDeposit struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroDeposit()
func BatchSettlementZeroDepositErrorID() common.Hash {
	return common.HexToHash("0x56316e877e9063fd05b03c347d61a4639470c3199f0bdddd28efee0a5f8b6b02")
}

// UnpackZeroDepositError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroDeposit()
func (batchSettlement *BatchSettlement) UnpackZeroDepositError(raw []byte) (*BatchSettlementZeroDeposit, error) {
	out := new(BatchSettlementZeroDeposit)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "ZeroDeposit", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// BatchSettlementZeroRefund represents a ZeroRefund error raised by the BatchSettlement contract.
type BatchSettlementZeroRefund struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroRefund()
func BatchSettlementZeroRefundErrorID() common.Hash {
	return common.HexToHash("0xd758525c34181c802038c9e1709640cd49191c6bc9afb13a57391cfe9abab6e8")
}

// UnpackZeroRefundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroRefund()
func (batchSettlement *BatchSettlement) UnpackZeroRefundError(raw []byte) (*BatchSettlementZeroRefund, error) {
	out := new(BatchSettlementZeroRefund)
	if err := batchSettlement.abi.UnpackIntoInterface(out, "ZeroRefund", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DevWalletMetaData contains all meta data concerning the DevWallet contract.
var DevWalletMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"owners\",\"type\":\"address[]\"},{\"internalType\":\"uint256\",\"name\":\"threshold_\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"execute\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"isOwner\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"hash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"isValidSignature\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"threshold\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "DevWallet",
	Bin: "0x608060405234801561000f575f5ffd5b506040516107a33803806107a383398101604081905261002e91610121565b5f8111801561003e575081518111155b61008e5760405162461bcd60e51b815260206004820152601860248201527f44657657616c6c65743a20626164207468726573686f6c640000000000000000604482015260640160405180910390fd5b5f5b82518110156100e85760015f5f8584815181106100af576100af6101f5565b6020908102919091018101516001600160a01b031682528101919091526040015f20805460ff1916911515919091179055600101610090565b5060015550610209565b634e487b7160e01b5f52604160045260245ffd5b80516001600160a01b038116811461011c575f5ffd5b919050565b5f5f60408385031215610132575f5ffd5b82516001600160401b03811115610147575f5ffd5b8301601f81018513610157575f5ffd5b80516001600160401b03811115610170576101706100f2565b604051600582901b90603f8201601f191681016001600160401b038111828210171561019e5761019e6100f2565b6040529182526020818401810192908101888411156101bb575f5ffd5b6020850194505b838510156101e1576101d385610106565b8152602094850194016101c2565b506020969096015195979596505050505050565b634e487b7160e01b5f52603260045260245ffd5b61058d806102165f395ff3fe608060405234801561000f575f5ffd5b506004361061004a575f3560e01c80631626ba7e1461004e5780631cff79cd1461007f5780632f54bf6e1461009f57806342cde4e8146100d1575b5f5ffd5b61006161005c3660046103b0565b6100e8565b6040516001600160e01b031990911681526020015b60405180910390f35b61009261008d366004610488565b61027e565b6040516100769190610506565b6100c16100ad36600461053b565b5f6020819052908152604090205460ff1681565b6040519015158152602001610076565b6100da60015481565b604051908152602001610076565b5f60015460416100f8919061055b565b82511461010e57506001600160e01b0319610278565b5f805b60015481101561026b575f80808061012a85604161055b565b888101602081015160408201516060909201519096509094505f1a925090507f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a083118061018a57508160ff16601b1415801561018a57508160ff16601c14155b156101a657506001600160e01b03199550610278945050505050565b604080515f808252602082018084528c905260ff851692820192909252606081018690526080810185905260019060a0016020604051602081039080840390855afa1580156101f7573d5f5f3e3d5ffd5b505050602060405103519050866001600160a01b0316816001600160a01b031611158061023c57506001600160a01b0381165f9081526020819052604090205460ff16155b1561025957506001600160e01b0319965061027895505050505050565b95505060019093019250610111915050565b50630b135d3f60e11b9150505b92915050565b335f9081526020819052604090205460609060ff166102ee5760405162461bcd60e51b815260206004820152602160248201527f44657657616c6c65743a2063616c6c6572206973206e6f7420616e206f776e656044820152603960f91b60648201526084015b60405180910390fd5b5f5f856001600160a01b0316858560405161030a92919061057e565b5f604051808303815f865af19150503d805f8114610343576040519150601f19603f3d011682016040523d82523d5f602084013e610348565b606091505b5091509150816103935760405162461bcd60e51b815260206004820152601660248201527511195d95d85b1b195d0e8818d85b1b0819985a5b195960521b60448201526064016102e5565b95945050505050565b634e487b7160e01b5f52604160045260245ffd5b5f5f604083850312156103c1575f5ffd5b82359150602083013567ffffffffffffffff8111156103de575f5ffd5b8301601f810185136103ee575f5ffd5b803567ffffffffffffffff8111156104085761040861039c565b604051601f8201601f19908116603f0116810167ffffffffffffffff811182821017156104375761043761039c565b60405281815282820160200187101561044e575f5ffd5b816020840160208301375f602083830101528093505050509250929050565b80356001600160a01b0381168114610483575f5ffd5b919050565b5f5f5f6040848603121561049a575f5ffd5b6104a38461046d565b9250602084013567ffffffffffffffff8111156104be575f5ffd5b8401601f810186136104ce575f5ffd5b803567ffffffffffffffff8111156104e4575f5ffd5b8660208284010111156104f5575f5ffd5b939660209190910195509293505050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b5f6020828403121561054b575f5ffd5b6105548261046d565b9392505050565b808202811582820484141761027857634e487b7160e01b5f52601160045260245ffd5b818382375f910190815291905056",
}

// DevWallet is an auto generated Go binding around an Ethereum contract.
type DevWallet struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *DevWallet) GetABI() abi.ABI {
	return c.abi
}

// NewDevWallet creates a new instance of DevWallet.
func NewDevWallet() *DevWallet {
	parsed, err := DevWalletMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &DevWallet{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *DevWallet) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address[] owners, uint256 threshold_) returns()
func (devWallet *DevWallet) PackConstructor(owners []common.Address, threshold_ *big.Int) []byte {
	enc, err := devWallet.abi.Pack("", owners, threshold_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackExecute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1cff79cd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function execute(address target, bytes data) returns(bytes)
func (devWallet *DevWallet) PackExecute(target common.Address, data []byte) []byte {
	enc, err := devWallet.abi.Pack("execute", target, data)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1cff79cd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function execute(address target, bytes data) returns(bytes)
func (devWallet *DevWallet) TryPackExecute(target common.Address, data []byte) ([]byte, error) {
	return devWallet.abi.Pack("execute", target, data)
}

// UnpackExecute is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1cff79cd.
//
// Solidity: function execute(address target, bytes data) returns(bytes)
func (devWallet *DevWallet) UnpackExecute(data []byte) ([]byte, error) {
	out, err := devWallet.abi.Unpack("execute", data)
	if err != nil {
		return *new([]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)
	return out0, nil
}

// PackIsOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2f54bf6e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isOwner(address ) view returns(bool)
func (devWallet *DevWallet) PackIsOwner(arg0 common.Address) []byte {
	enc, err := devWallet.abi.Pack("isOwner", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2f54bf6e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isOwner(address ) view returns(bool)
func (devWallet *DevWallet) TryPackIsOwner(arg0 common.Address) ([]byte, error) {
	return devWallet.abi.Pack("isOwner", arg0)
}

// UnpackIsOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x2f54bf6e.
//
// Solidity: function isOwner(address ) view returns(bool)
func (devWallet *DevWallet) UnpackIsOwner(data []byte) (bool, error) {
	out, err := devWallet.abi.Unpack("isOwner", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsValidSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1626ba7e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (devWallet *DevWallet) PackIsValidSignature(hash [32]byte, signature []byte) []byte {
	enc, err := devWallet.abi.Pack("isValidSignature", hash, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsValidSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1626ba7e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (devWallet *DevWallet) TryPackIsValidSignature(hash [32]byte, signature []byte) ([]byte, error) {
	return devWallet.abi.Pack("isValidSignature", hash, signature)
}

// UnpackIsValidSignature is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (devWallet *DevWallet) UnpackIsValidSignature(data []byte) ([4]byte, error) {
	out, err := devWallet.abi.Unpack("isValidSignature", data)
	if err != nil {
		return *new([4]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)
	return out0, nil
}

// PackThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42cde4e8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function threshold() view returns(uint256)
func (devWallet *DevWallet) PackThreshold() []byte {
	enc, err := devWallet.abi.Pack("threshold")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42cde4e8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function threshold() view returns(uint256)
func (devWallet *DevWallet) TryPackThreshold() ([]byte, error) {
	return devWallet.abi.Pack("threshold")
}

// UnpackThreshold is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x42cde4e8.
//
// Solidity: function threshold() view returns(uint256)
func (devWallet *DevWallet) UnpackThreshold(data []byte) (*big.Int, error) {
	out, err := devWallet.abi.Unpack("threshold", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// ERC3009DepositCollectorMetaData contains all meta data concerning the ERC3009DepositCollector contract.
var ERC3009DepositCollectorMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"_x402BatchSettlement\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"InvalidX402BatchSettlementAddress\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"OnlyX402BatchSettlement\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"SafeERC20FailedOperation\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"collectorData\",\"type\":\"bytes\"}],\"name\":\"collect\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"x402BatchSettlement\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "ERC3009DepositCollector",
	Bin: "0x60a060405234801561000f575f5ffd5b5060405161053738038061053783398101604081905261002e91610068565b806001600160a01b0381166100565760405163e55654f560e01b815260040160405180910390fd5b6001600160a01b031660805250610095565b5f60208284031215610078575f5ffd5b81516001600160a01b038116811461008e575f5ffd5b9392505050565b60805161047e6100b95f395f8181603d01528181609b015261019b015261047e5ff3fe608060405234801561000f575f5ffd5b5060043610610034575f3560e01c80634dec6d9514610038578063e416d8d31461007b575b5f5ffd5b61005f7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b03909116815260200160405180910390f35b61008e610089366004610288565b610090565b005b336001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016146100d957604051639794beb960e01b815260040160405180910390fd5b5f8080806100e98587018761033d565b93509350935093505f878360405160200161010e929190918252602082015260400190565b60408051601f198184030181529082905280516020909101206388b7ab6360e01b825291506001600160a01b038b16906388b7ab639061015e908e9030908e908b908b9089908b9060040161040c565b5f604051808303815f87803b158015610175575f5ffd5b505af1158015610187573d5f5f3e3d5ffd5b506101c0925050506001600160a01b038b167f00000000000000000000000000000000000000000000000000000000000000008b6101cd565b5050505050505050505050565b6101da838383600161020b565b61020657604051635274afe760e01b81526001600160a01b038416600482015260240160405180910390fd5b505050565b60405163a9059cbb60e01b5f8181526001600160a01b038616600452602485905291602083604481808b5af1925060015f51148316610261578383151615610255573d5f823e3d81fd5b5f873b113d1516831692505b60405250949350505050565b80356001600160a01b0381168114610283575f5ffd5b919050565b5f5f5f5f5f5f60a0878903121561029d575f5ffd5b6102a68761026d565b95506102b46020880161026d565b94506040870135935060608701359250608087013567ffffffffffffffff8111156102dd575f5ffd5b8701601f810189136102ed575f5ffd5b803567ffffffffffffffff811115610303575f5ffd5b896020828401011115610314575f5ffd5b60208201935080925050509295509295509295565b634e487b7160e01b5f52604160045260245ffd5b5f5f5f5f60808587031215610350575f5ffd5b843593506020850135925060408501359150606085013567ffffffffffffffff81111561037b575f5ffd5b8501601f8101871361038b575f5ffd5b803567ffffffffffffffff8111156103a5576103a5610329565b604051601f8201601f19908116603f0116810167ffffffffffffffff811182821017156103d4576103d4610329565b6040528181528282016020018910156103eb575f5ffd5b816020840160208301375f6020838301015280935050505092959194509250565b60018060a01b038816815260018060a01b03871660208201528560408201528460608201528360808201528260a082015260e060c08201525f82518060e0840152806020850161010085015e5f6101008285010152610100601f19601f8301168401019150509897505050505050505056",
}

// ERC3009DepositCollector is an auto generated Go binding around an Ethereum contract.
type ERC3009DepositCollector struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *ERC3009DepositCollector) GetABI() abi.ABI {
	return c.abi
}

// NewERC3009DepositCollector creates a new instance of ERC3009DepositCollector.
func NewERC3009DepositCollector() *ERC3009DepositCollector {
	parsed, err := ERC3009DepositCollectorMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &ERC3009DepositCollector{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *ERC3009DepositCollector) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address _x402BatchSettlement) returns()
func (eRC3009DepositCollector *ERC3009DepositCollector) PackConstructor(_x402BatchSettlement common.Address) []byte {
	enc, err := eRC3009DepositCollector.abi.Pack("", _x402BatchSettlement)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackCollect is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe416d8d3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes collectorData) returns()
func (eRC3009DepositCollector *ERC3009DepositCollector) PackCollect(payer common.Address, token common.Address, amount *big.Int, channelId [32]byte, collectorData []byte) []byte {
	enc, err := eRC3009DepositCollector.abi.Pack("collect", payer, token, amount, channelId, collectorData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCollect is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe416d8d3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes collectorData) returns()
func (eRC3009DepositCollector *ERC3009DepositCollector) TryPackCollect(payer common.Address, token common.Address, amount *big.Int, channelId [32]byte, collectorData []byte) ([]byte, error) {
	return eRC3009DepositCollector.abi.Pack("collect", payer, token, amount, channelId, collectorData)
}

// PackX402BatchSettlement is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4dec6d95.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (eRC3009DepositCollector *ERC3009DepositCollector) PackX402BatchSettlement() []byte {
	enc, err := eRC3009DepositCollector.abi.Pack("x402BatchSettlement")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackX402BatchSettlement is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4dec6d95.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (eRC3009DepositCollector *ERC3009DepositCollector) TryPackX402BatchSettlement() ([]byte, error) {
	return eRC3009DepositCollector.abi.Pack("x402BatchSettlement")
}

// UnpackX402BatchSettlement is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4dec6d95.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (eRC3009DepositCollector *ERC3009DepositCollector) UnpackX402BatchSettlement(data []byte) (common.Address, error) {
	out, err := eRC3009DepositCollector.abi.Unpack("x402BatchSettlement", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (eRC3009DepositCollector *ERC3009DepositCollector) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], eRC3009DepositCollector.abi.Errors["InvalidX402BatchSettlementAddress"].ID.Bytes()[:4]) {
		return eRC3009DepositCollector.UnpackInvalidX402BatchSettlementAddressError(raw[4:])
	}
	if bytes.Equal(raw[:4], eRC3009DepositCollector.abi.Errors["OnlyX402BatchSettlement"].ID.Bytes()[:4]) {
		return eRC3009DepositCollector.UnpackOnlyX402BatchSettlementError(raw[4:])
	}
	if bytes.Equal(raw[:4], eRC3009DepositCollector.abi.Errors["SafeERC20FailedOperation"].ID.Bytes()[:4]) {
		return eRC3009DepositCollector.UnpackSafeERC20FailedOperationError(raw[4:])
	}
	return nil, errors.New("unknown error")
}

// ERC3009DepositCollectorInvalidX402BatchSettlementAddress represents a InvalidX402BatchSettlementAddress error raised by the ERC3009DepositCollector contract.
type ERC3009DepositCollectorInvalidX402BatchSettlementAddress struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidX402BatchSettlementAddress()
func ERC3009DepositCollectorInvalidX402BatchSettlementAddressErrorID() common.Hash {
	return common.HexToHash("0xe55654f5f68077420f259fbec852fb469076d8d6100038ac0b1c47d3de717706")
}

// UnpackInvalidX402BatchSettlementAddressError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidX402BatchSettlementAddress()
func (eRC3009DepositCollector *ERC3009DepositCollector) UnpackInvalidX402BatchSettlementAddressError(raw []byte) (*ERC3009DepositCollectorInvalidX402BatchSettlementAddress, error) {
	out := new(ERC3009DepositCollectorInvalidX402BatchSettlementAddress)
	if err := eRC3009DepositCollector.abi.UnpackIntoInterface(out, "InvalidX402BatchSettlementAddress", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ERC3009DepositCollectorOnlyX402BatchSettlement represents a OnlyX402BatchSettlement error raised by the ERC3009DepositCollector contract.
type ERC3009DepositCollectorOnlyX402BatchSettlement struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OnlyX402BatchSettlement()
func ERC3009DepositCollectorOnlyX402BatchSettlementErrorID() common.Hash {
	return common.HexToHash("0x9794beb9a4ed84875f4613850b52e4fda54022cdb5ef864ebc1d150c7987b10b")
}

// UnpackOnlyX402BatchSettlementError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OnlyX402BatchSettlement()
func (eRC3009DepositCollector *ERC3009DepositCollector) UnpackOnlyX402BatchSettlementError(raw []byte) (*ERC3009DepositCollectorOnlyX402BatchSettlement, error) {
	out := new(ERC3009DepositCollectorOnlyX402BatchSettlement)
	if err := eRC3009DepositCollector.abi.UnpackIntoInterface(out, "OnlyX402BatchSettlement", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ERC3009DepositCollectorSafeERC20FailedOperation represents a SafeERC20FailedOperation error raised by the ERC3009DepositCollector contract.
type ERC3009DepositCollectorSafeERC20FailedOperation struct {
	Token common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error SafeERC20FailedOperation(address token)
func ERC3009DepositCollectorSafeERC20FailedOperationErrorID() common.Hash {
	return common.HexToHash("0x5274afe73c98b4749fc91ffae6b7b574e7842cb2144a159e9377a5f20b32edf9")
}

// UnpackSafeERC20FailedOperationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error SafeERC20FailedOperation(address token)
func (eRC3009DepositCollector *ERC3009DepositCollector) UnpackSafeERC20FailedOperationError(raw []byte) (*ERC3009DepositCollectorSafeERC20FailedOperation, error) {
	out := new(ERC3009DepositCollectorSafeERC20FailedOperation)
	if err := eRC3009DepositCollector.abi.UnpackIntoInterface(out, "SafeERC20FailedOperation", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// FareboxUSDv2MetaData contains all meta data concerning the FareboxUSDv2 contract.
var FareboxUSDv2MetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"string\",\"name\":\"name_\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"version_\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"symbol_\",\"type\":\"string\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"authorizer\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"}],\"name\":\"AuthorizationUsed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"DOMAIN_SEPARATOR\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"PERMIT_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"RECEIVE_WITH_AUTHORIZATION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"TRANSFER_WITH_AUTHORIZATION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"authorizer\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"}],\"name\":\"authorizationState\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"nonces\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner_\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"},{\"internalType\":\"uint8\",\"name\":\"v\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"r\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"s\",\"type\":\"bytes32\"}],\"name\":\"permit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validBefore\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"receiveWithAuthorization\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validBefore\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"transferWithAuthorization\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"validBefore\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"nonce\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"v\",\"type\":\"uint8\"},{\"internalType\":\"bytes32\",\"name\":\"r\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"s\",\"type\":\"bytes32\"}],\"name\":\"transferWithAuthorization\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"version\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "FareboxUSDv2",
	Bin: "0x608060405234801561000f575f5ffd5b506040516119a53803806119a583398101604081905261002e9161010c565b5f610039848261021f565b506001610046838261021f565b506002610053828261021f565b5050600380546001600160a01b03191633179055506102d99050565b634e487b7160e01b5f52604160045260245ffd5b5f82601f830112610092575f5ffd5b81516001600160401b038111156100ab576100ab61006f565b604051601f8201601f19908116603f011681016001600160401b03811182821017156100d9576100d961006f565b6040528181528382016020018510156100f0575f5ffd5b8160208501602083015e5f918101602001919091529392505050565b5f5f5f6060848603121561011e575f5ffd5b83516001600160401b03811115610133575f5ffd5b61013f86828701610083565b602086015190945090506001600160401b0381111561015c575f5ffd5b61016886828701610083565b604086015190935090506001600160401b03811115610185575f5ffd5b61019186828701610083565b9150509250925092565b600181811c908216806101af57607f821691505b6020821081036101cd57634e487b7160e01b5f52602260045260245ffd5b50919050565b601f82111561021a57805f5260205f20601f840160051c810160208510156101f85750805b601f840160051c820191505b81811015610217575f8155600101610204565b50505b505050565b81516001600160401b038111156102385761023861006f565b61024c81610246845461019b565b846101d3565b6020601f82116001811461027e575f83156102675750848201515b5f19600385901b1c1916600184901b178455610217565b5f84815260208120601f198516915b828110156102ad578785015182556020948501946001909201910161028d565b50848210156102ca57868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b6116bf806102e65f395ff3fe608060405234801561000f575f5ffd5b506004361061013d575f3560e01c80637f2eecc3116100b4578063a9059cbb11610079578063a9059cbb146102e4578063cf092995146102f7578063d505accf1461030a578063dd62ed3e1461031d578063e3ee160e14610347578063e94a01021461035a575f5ffd5b80637f2eecc31461025057806388b7ab63146102775780638da5cb5b1461028a57806395d89b41146102b5578063a0cc6a68146102bd575f5ffd5b8063313ce56711610105578063313ce567146101d35780633644e515146101ed57806340c10f19146101f557806354fd4d501461020a57806370a08231146102125780637ecebe0014610231575f5ffd5b806306fdde0314610141578063095ea7b31461015f57806318160ddd1461018257806323b872dd1461019957806330adf81f146101ac575b5f5ffd5b610149610392565b6040516101569190611276565b60405180910390f35b61017261016d3660046112a3565b61041d565b6040519015158152602001610156565b61018b60045481565b604051908152602001610156565b6101726101a73660046112cb565b610433565b61018b7f6e71edae12b1b97f4d1f60370fef10105fa2faae0126114a169c64845d6126c981565b6101db600681565b60405160ff9091168152602001610156565b61018b61050a565b6102086102033660046112a3565b61059b565b005b6101496106e9565b61018b610220366004611305565b60056020525f908152604090205481565b61018b61023f366004611305565b60076020525f908152604090205481565b61018b7fd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de881565b610208610285366004611332565b6106f6565b60035461029d906001600160a01b031681565b6040516001600160a01b039091168152602001610156565b6101496107a0565b61018b7f7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a226781565b6101726102f23660046112a3565b6107ad565b610208610305366004611332565b6107b9565b61020861031836600461143a565b6107e9565b61018b61032b3660046114a0565b600660209081525f928352604080842090915290825290205481565b6102086103553660046114d1565b6109bd565b6101726103683660046112a3565b6001600160a01b03919091165f908152600860209081526040808320938352929052205460ff1690565b5f805461039e9061154c565b80601f01602080910402602001604051908101604052809291908181526020018280546103ca9061154c565b80156104155780601f106103ec57610100808354040283529160200191610415565b820191905f5260205f20905b8154815290600101906020018083116103f857829003601f168201915b505050505081565b5f610429338484610a39565b5060015b92915050565b6001600160a01b0383165f908152600660209081526040808320338452909152812054808311156104bc5760405162461bcd60e51b815260206004820152602860248201527f45524332303a207472616e7366657220616d6f756e74206578636565647320616044820152676c6c6f77616e636560c01b60648201526084015b60405180910390fd5b5f1981146104f2576104ce8382611598565b6001600160a01b0386165f9081526006602090815260408083203384529091529020555b6104fd858585610a9a565b60019150505b9392505050565b5f7f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f5f60405161053a91906115ab565b6040518091039020600160405161055191906115ab565b60408051918290038220602083019490945281019190915260608101919091524660808201523060a082015260c00160405160208183030381529060405280519060200120905090565b6003546001600160a01b031633146106015760405162461bcd60e51b815260206004820152602360248201527f46617265626f785553443a2063616c6c6572206973206e6f7420746865206f776044820152623732b960e91b60648201526084016104b3565b6001600160a01b0382166106635760405162461bcd60e51b8152602060048201526024808201527f46617265626f785553443a206d696e7420746f20746865207a65726f206164646044820152637265737360e01b60648201526084016104b3565b8060045f8282546106749190611647565b90915550506001600160a01b0382165f90815260056020526040812080548392906106a0908490611647565b90915550506040518181526001600160a01b038316905f907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef9060200160405180910390a35050565b6001805461039e9061154c565b6001600160a01b038616331461075c5760405162461bcd60e51b815260206004820152602560248201527f46696174546f6b656e56323a2063616c6c6572206d7573742062652074686520604482015264706179656560d81b60648201526084016104b3565b61078c7fd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de888888888888888610c75565b610797878787610a9a565b50505050505050565b6002805461039e9061154c565b5f610429338484610a9a565b61078c7f7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a226788888888888888610c75565b428410156108395760405162461bcd60e51b815260206004820152601e60248201527f46696174546f6b656e56323a207065726d69742069732065787069726564000060448201526064016104b3565b6001600160a01b0387165f90815260076020526040812080547f6e71edae12b1b97f4d1f60370fef10105fa2faae0126114a169c64845d6126c9918a918a918a9190866108858361165a565b909155506040805160208101969096526001600160a01b0394851690860152929091166060840152608083015260a082015260c0810186905260e0016040516020818303038152906040528051906020012090505f6108e261050a565b60405161190160f01b602082015260228101919091526042810183905260620160408051601f1981840301815282825280516020918201209083018790529082018590526001600160f81b031960f888901b166060830152915061095b908a908390606101604051602081830303815290604052610f0f565b6109a75760405162461bcd60e51b815260206004820152601a60248201527f454950323631323a20696e76616c6964207369676e617475726500000000000060448201526064016104b3565b6109b2898989610a39565b505050505050505050565b610a2e7f7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a22678a8a8a8a8a8a89898c604051602001610a1a93929190928352602083019190915260f81b6001600160f81b031916604082015260410190565b604051602081830303815290604052610c75565b6109b2898989610a9a565b6001600160a01b038381165f8181526006602090815260408083209487168084529482529182902085905590518481527f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92591015b60405180910390a3505050565b6001600160a01b038316610afe5760405162461bcd60e51b815260206004820152602560248201527f45524332303a207472616e736665722066726f6d20746865207a65726f206164604482015264647265737360d81b60648201526084016104b3565b6001600160a01b038216610b605760405162461bcd60e51b815260206004820152602360248201527f45524332303a207472616e7366657220746f20746865207a65726f206164647260448201526265737360e81b60648201526084016104b3565b6001600160a01b0383165f90815260056020526040902054811115610bd65760405162461bcd60e51b815260206004820152602660248201527f45524332303a207472616e7366657220616d6f756e7420657863656564732062604482015265616c616e636560d01b60648201526084016104b3565b6001600160a01b0383165f9081526005602052604081208054839290610bfd908490611598565b90915550506001600160a01b0382165f9081526005602052604081208054839290610c29908490611647565b92505081905550816001600160a01b0316836001600160a01b03167fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef83604051610a8d91815260200190565b834211610cd85760405162461bcd60e51b815260206004820152602b60248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e206973206e6f60448201526a1d081e595d081d985b1a5960aa1b60648201526084016104b3565b824210610d355760405162461bcd60e51b815260206004820152602560248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e2069732065786044820152641c1a5c995960da1b60648201526084016104b3565b6001600160a01b0387165f90815260086020908152604080832085845290915290205460ff1615610dbf5760405162461bcd60e51b815260206004820152602e60248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e20697320757360448201526d1959081bdc8818d85b98d95b195960921b60648201526084016104b3565b6040805160208082018b90526001600160a01b038a811683850152891660608301526080820188905260a0820187905260c0820186905260e08083018690528351808403909101815261010090920190925280519101205f610e1f61050a565b60405161190160f01b6020820152602281019190915260428101839052606201604051602081830303815290604052805190602001209050610e62898285610f0f565b610eae5760405162461bcd60e51b815260206004820152601e60248201527f46696174546f6b656e56323a20696e76616c6964207369676e6174757265000060448201526064016104b3565b6001600160a01b0389165f818152600860209081526040808320888452909152808220805460ff19166001179055518692917f98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a591a350505050505050505050565b5f6001600160a01b0384163b15611006575f5f856001600160a01b0316631626ba7e60e01b8686604051602401610f47929190611672565b60408051601f198184030181529181526020820180516001600160e01b03166001600160e01b0319909416939093179092529051610f859190611692565b5f60405180830381855afa9150503d805f8114610fbd576040519150601f19603f3d011682016040523d82523d5f602084013e610fc2565b606091505b5091509150818015610fd657506020815110155b8015610ffd57508051630b135d3f60e11b90610ffb90830160209081019084016116a8565b145b92505050610503565b836001600160a01b031661101a848461102c565b6001600160a01b031614949350505050565b5f815160411461108a5760405162461bcd60e51b815260206004820152602360248201527f45435265636f7665723a20696e76616c6964207369676e6174757265206c656e6044820152620cee8d60eb1b60648201526084016104b3565b6020820151604083015160608401515f1a7f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a082111561111a5760405162461bcd60e51b815260206004820152602660248201527f45435265636f7665723a20696e76616c6964207369676e6174757265202773276044820152652076616c756560d01b60648201526084016104b3565b8060ff16601b148061112f57508060ff16601c145b61118a5760405162461bcd60e51b815260206004820152602660248201527f45435265636f7665723a20696e76616c6964207369676e6174757265202776276044820152652076616c756560d01b60648201526084016104b3565b604080515f8082526020820180845289905260ff841692820192909252606081018590526080810184905260019060a0016020604051602081039080840390855afa1580156111db573d5f5f3e3d5ffd5b5050604051601f1901519150506001600160a01b03811661123e5760405162461bcd60e51b815260206004820152601c60248201527f45435265636f7665723a20696e76616c6964207369676e61747572650000000060448201526064016104b3565b9695505050505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f6105036020830184611248565b80356001600160a01b038116811461129e575f5ffd5b919050565b5f5f604083850312156112b4575f5ffd5b6112bd83611288565b946020939093013593505050565b5f5f5f606084860312156112dd575f5ffd5b6112e684611288565b92506112f460208501611288565b929592945050506040919091013590565b5f60208284031215611315575f5ffd5b61050382611288565b634e487b7160e01b5f52604160045260245ffd5b5f5f5f5f5f5f5f60e0888a031215611348575f5ffd5b61135188611288565b965061135f60208901611288565b955060408801359450606088013593506080880135925060a0880135915060c088013567ffffffffffffffff811115611396575f5ffd5b8801601f81018a136113a6575f5ffd5b803567ffffffffffffffff8111156113c0576113c061131e565b604051601f8201601f19908116603f0116810167ffffffffffffffff811182821017156113ef576113ef61131e565b6040528181528282016020018c1015611406575f5ffd5b816020840160208301375f6020838301015280935050505092959891949750929550565b803560ff8116811461129e575f5ffd5b5f5f5f5f5f5f5f60e0888a031215611450575f5ffd5b61145988611288565b965061146760208901611288565b955060408801359450606088013593506114836080890161142a565b9699959850939692959460a0840135945060c09093013592915050565b5f5f604083850312156114b1575f5ffd5b6114ba83611288565b91506114c860208401611288565b90509250929050565b5f5f5f5f5f5f5f5f5f6101208a8c0312156114ea575f5ffd5b6114f38a611288565b985061150160208b01611288565b975060408a0135965060608a0135955060808a0135945060a08a0135935061152b60c08b0161142a565b989b979a50959894979396929550929360e081013593506101000135919050565b600181811c9082168061156057607f821691505b60208210810361157e57634e487b7160e01b5f52602260045260245ffd5b50919050565b634e487b7160e01b5f52601160045260245ffd5b8181038181111561042d5761042d611584565b5f5f83545f8160011c905060018216806115c657607f821691505b6020821081036115e457634e487b7160e01b5f52602260045260245ffd5b8080156115f8576001811461160d5761163b565b60ff198416875282151583028701945061163b565b5f888152602090205f5b8481101561163357815489820152600190910190602001611617565b505082870194505b50929695505050505050565b8082018082111561042d5761042d611584565b5f6001820161166b5761166b611584565b5060010190565b828152604060208201525f61168a6040830184611248565b949350505050565b5f82518060208501845e5f920191825250919050565b5f602082840312156116b8575f5ffd5b505191905056",
}

// FareboxUSDv2 is an auto generated Go binding around an Ethereum contract.
type FareboxUSDv2 struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *FareboxUSDv2) GetABI() abi.ABI {
	return c.abi
}

// NewFareboxUSDv2 creates a new instance of FareboxUSDv2.
func NewFareboxUSDv2() *FareboxUSDv2 {
	parsed, err := FareboxUSDv2MetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &FareboxUSDv2{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *FareboxUSDv2) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(string name_, string version_, string symbol_) returns()
func (fareboxUSDv2 *FareboxUSDv2) PackConstructor(name_ string, version_ string, symbol_ string) []byte {
	enc, err := fareboxUSDv2.abi.Pack("", name_, version_, symbol_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDOMAINSEPARATOR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3644e515.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) PackDOMAINSEPARATOR() []byte {
	enc, err := fareboxUSDv2.abi.Pack("DOMAIN_SEPARATOR")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDOMAINSEPARATOR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3644e515.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) TryPackDOMAINSEPARATOR() ([]byte, error) {
	return fareboxUSDv2.abi.Pack("DOMAIN_SEPARATOR")
}

// UnpackDOMAINSEPARATOR is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3644e515.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) UnpackDOMAINSEPARATOR(data []byte) ([32]byte, error) {
	out, err := fareboxUSDv2.abi.Unpack("DOMAIN_SEPARATOR", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackPERMITTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x30adf81f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function PERMIT_TYPEHASH() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) PackPERMITTYPEHASH() []byte {
	enc, err := fareboxUSDv2.abi.Pack("PERMIT_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPERMITTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x30adf81f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function PERMIT_TYPEHASH() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) TryPackPERMITTYPEHASH() ([]byte, error) {
	return fareboxUSDv2.abi.Pack("PERMIT_TYPEHASH")
}

// UnpackPERMITTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x30adf81f.
//
// Solidity: function PERMIT_TYPEHASH() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) UnpackPERMITTYPEHASH(data []byte) ([32]byte, error) {
	out, err := fareboxUSDv2.abi.Unpack("PERMIT_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackRECEIVEWITHAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7f2eecc3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function RECEIVE_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) PackRECEIVEWITHAUTHORIZATIONTYPEHASH() []byte {
	enc, err := fareboxUSDv2.abi.Pack("RECEIVE_WITH_AUTHORIZATION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRECEIVEWITHAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7f2eecc3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function RECEIVE_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) TryPackRECEIVEWITHAUTHORIZATIONTYPEHASH() ([]byte, error) {
	return fareboxUSDv2.abi.Pack("RECEIVE_WITH_AUTHORIZATION_TYPEHASH")
}

// UnpackRECEIVEWITHAUTHORIZATIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7f2eecc3.
//
// Solidity: function RECEIVE_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) UnpackRECEIVEWITHAUTHORIZATIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := fareboxUSDv2.abi.Unpack("RECEIVE_WITH_AUTHORIZATION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackTRANSFERWITHAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0cc6a68.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) PackTRANSFERWITHAUTHORIZATIONTYPEHASH() []byte {
	enc, err := fareboxUSDv2.abi.Pack("TRANSFER_WITH_AUTHORIZATION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTRANSFERWITHAUTHORIZATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa0cc6a68.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) TryPackTRANSFERWITHAUTHORIZATIONTYPEHASH() ([]byte, error) {
	return fareboxUSDv2.abi.Pack("TRANSFER_WITH_AUTHORIZATION_TYPEHASH")
}

// UnpackTRANSFERWITHAUTHORIZATIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa0cc6a68.
//
// Solidity: function TRANSFER_WITH_AUTHORIZATION_TYPEHASH() view returns(bytes32)
func (fareboxUSDv2 *FareboxUSDv2) UnpackTRANSFERWITHAUTHORIZATIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := fareboxUSDv2.abi.Unpack("TRANSFER_WITH_AUTHORIZATION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) PackAllowance(arg0 common.Address, arg1 common.Address) []byte {
	enc, err := fareboxUSDv2.abi.Pack("allowance", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) TryPackAllowance(arg0 common.Address, arg1 common.Address) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("allowance", arg0, arg1)
}

// UnpackAllowance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) UnpackAllowance(data []byte) (*big.Int, error) {
	out, err := fareboxUSDv2.abi.Unpack("allowance", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) PackApprove(spender common.Address, value *big.Int) []byte {
	enc, err := fareboxUSDv2.abi.Pack("approve", spender, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) TryPackApprove(spender common.Address, value *big.Int) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("approve", spender, value)
}

// UnpackApprove is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) UnpackApprove(data []byte) (bool, error) {
	out, err := fareboxUSDv2.abi.Unpack("approve", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackAuthorizationState is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe94a0102.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function authorizationState(address authorizer, bytes32 nonce) view returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) PackAuthorizationState(authorizer common.Address, nonce [32]byte) []byte {
	enc, err := fareboxUSDv2.abi.Pack("authorizationState", authorizer, nonce)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAuthorizationState is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe94a0102.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function authorizationState(address authorizer, bytes32 nonce) view returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) TryPackAuthorizationState(authorizer common.Address, nonce [32]byte) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("authorizationState", authorizer, nonce)
}

// UnpackAuthorizationState is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe94a0102.
//
// Solidity: function authorizationState(address authorizer, bytes32 nonce) view returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) UnpackAuthorizationState(data []byte) (bool, error) {
	out, err := fareboxUSDv2.abi.Unpack("authorizationState", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) PackBalanceOf(arg0 common.Address) []byte {
	enc, err := fareboxUSDv2.abi.Pack("balanceOf", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) TryPackBalanceOf(arg0 common.Address) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("balanceOf", arg0)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := fareboxUSDv2.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() view returns(uint8)
func (fareboxUSDv2 *FareboxUSDv2) PackDecimals() []byte {
	enc, err := fareboxUSDv2.abi.Pack("decimals")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function decimals() view returns(uint8)
func (fareboxUSDv2 *FareboxUSDv2) TryPackDecimals() ([]byte, error) {
	return fareboxUSDv2.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (fareboxUSDv2 *FareboxUSDv2) UnpackDecimals(data []byte) (uint8, error) {
	out, err := fareboxUSDv2.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (fareboxUSDv2 *FareboxUSDv2) PackMint(to common.Address, amount *big.Int) []byte {
	enc, err := fareboxUSDv2.abi.Pack("mint", to, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40c10f19.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (fareboxUSDv2 *FareboxUSDv2) TryPackMint(to common.Address, amount *big.Int) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("mint", to, amount)
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (fareboxUSDv2 *FareboxUSDv2) PackName() []byte {
	enc, err := fareboxUSDv2.abi.Pack("name")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function name() view returns(string)
func (fareboxUSDv2 *FareboxUSDv2) TryPackName() ([]byte, error) {
	return fareboxUSDv2.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (fareboxUSDv2 *FareboxUSDv2) UnpackName(data []byte) (string, error) {
	out, err := fareboxUSDv2.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackNonces is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7ecebe00.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function nonces(address ) view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) PackNonces(arg0 common.Address) []byte {
	enc, err := fareboxUSDv2.abi.Pack("nonces", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackNonces is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7ecebe00.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function nonces(address ) view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) TryPackNonces(arg0 common.Address) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("nonces", arg0)
}

// UnpackNonces is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7ecebe00.
//
// Solidity: function nonces(address ) view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) UnpackNonces(data []byte) (*big.Int, error) {
	out, err := fareboxUSDv2.abi.Unpack("nonces", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (fareboxUSDv2 *FareboxUSDv2) PackOwner() []byte {
	enc, err := fareboxUSDv2.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (fareboxUSDv2 *FareboxUSDv2) TryPackOwner() ([]byte, error) {
	return fareboxUSDv2.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (fareboxUSDv2 *FareboxUSDv2) UnpackOwner(data []byte) (common.Address, error) {
	out, err := fareboxUSDv2.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackPermit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd505accf.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function permit(address owner_, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) returns()
func (fareboxUSDv2 *FareboxUSDv2) PackPermit(owner common.Address, spender common.Address, value *big.Int, deadline *big.Int, v uint8, r [32]byte, s [32]byte) []byte {
	enc, err := fareboxUSDv2.abi.Pack("permit", owner, spender, value, deadline, v, r, s)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPermit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd505accf.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function permit(address owner_, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) returns()
func (fareboxUSDv2 *FareboxUSDv2) TryPackPermit(owner common.Address, spender common.Address, value *big.Int, deadline *big.Int, v uint8, r [32]byte, s [32]byte) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("permit", owner, spender, value, deadline, v, r, s)
}

// PackReceiveWithAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x88b7ab63.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) returns()
func (fareboxUSDv2 *FareboxUSDv2) PackReceiveWithAuthorization(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, signature []byte) []byte {
	enc, err := fareboxUSDv2.abi.Pack("receiveWithAuthorization", from, to, value, validAfter, validBefore, nonce, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReceiveWithAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x88b7ab63.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function receiveWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) returns()
func (fareboxUSDv2 *FareboxUSDv2) TryPackReceiveWithAuthorization(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, signature []byte) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("receiveWithAuthorization", from, to, value, validAfter, validBefore, nonce, signature)
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() view returns(string)
func (fareboxUSDv2 *FareboxUSDv2) PackSymbol() []byte {
	enc, err := fareboxUSDv2.abi.Pack("symbol")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function symbol() view returns(string)
func (fareboxUSDv2 *FareboxUSDv2) TryPackSymbol() ([]byte, error) {
	return fareboxUSDv2.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (fareboxUSDv2 *FareboxUSDv2) UnpackSymbol(data []byte) (string, error) {
	out, err := fareboxUSDv2.abi.Unpack("symbol", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function totalSupply() view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) PackTotalSupply() []byte {
	enc, err := fareboxUSDv2.abi.Pack("totalSupply")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function totalSupply() view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) TryPackTotalSupply() ([]byte, error) {
	return fareboxUSDv2.abi.Pack("totalSupply")
}

// UnpackTotalSupply is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (fareboxUSDv2 *FareboxUSDv2) UnpackTotalSupply(data []byte) (*big.Int, error) {
	out, err := fareboxUSDv2.abi.Unpack("totalSupply", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) PackTransfer(to common.Address, value *big.Int) []byte {
	enc, err := fareboxUSDv2.abi.Pack("transfer", to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) TryPackTransfer(to common.Address, value *big.Int) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("transfer", to, value)
}

// UnpackTransfer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) UnpackTransfer(data []byte) (bool, error) {
	out, err := fareboxUSDv2.abi.Unpack("transfer", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) PackTransferFrom(from common.Address, to common.Address, value *big.Int) []byte {
	enc, err := fareboxUSDv2.abi.Pack("transferFrom", from, to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) TryPackTransferFrom(from common.Address, to common.Address, value *big.Int) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("transferFrom", from, to, value)
}

// UnpackTransferFrom is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (fareboxUSDv2 *FareboxUSDv2) UnpackTransferFrom(data []byte) (bool, error) {
	out, err := fareboxUSDv2.abi.Unpack("transferFrom", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTransferWithAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcf092995.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) returns()
func (fareboxUSDv2 *FareboxUSDv2) PackTransferWithAuthorization(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, signature []byte) []byte {
	enc, err := fareboxUSDv2.abi.Pack("transferWithAuthorization", from, to, value, validAfter, validBefore, nonce, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferWithAuthorization is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcf092995.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature) returns()
func (fareboxUSDv2 *FareboxUSDv2) TryPackTransferWithAuthorization(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, signature []byte) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("transferWithAuthorization", from, to, value, validAfter, validBefore, nonce, signature)
}

// PackTransferWithAuthorization0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe3ee160e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) returns()
func (fareboxUSDv2 *FareboxUSDv2) PackTransferWithAuthorization0(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, v uint8, r [32]byte, s [32]byte) []byte {
	enc, err := fareboxUSDv2.abi.Pack("transferWithAuthorization0", from, to, value, validAfter, validBefore, nonce, v, r, s)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferWithAuthorization0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe3ee160e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) returns()
func (fareboxUSDv2 *FareboxUSDv2) TryPackTransferWithAuthorization0(from common.Address, to common.Address, value *big.Int, validAfter *big.Int, validBefore *big.Int, nonce [32]byte, v uint8, r [32]byte, s [32]byte) ([]byte, error) {
	return fareboxUSDv2.abi.Pack("transferWithAuthorization0", from, to, value, validAfter, validBefore, nonce, v, r, s)
}

// PackVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x54fd4d50.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function version() view returns(string)
func (fareboxUSDv2 *FareboxUSDv2) PackVersion() []byte {
	enc, err := fareboxUSDv2.abi.Pack("version")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x54fd4d50.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function version() view returns(string)
func (fareboxUSDv2 *FareboxUSDv2) TryPackVersion() ([]byte, error) {
	return fareboxUSDv2.abi.Pack("version")
}

// UnpackVersion is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x54fd4d50.
//
// Solidity: function version() view returns(string)
func (fareboxUSDv2 *FareboxUSDv2) UnpackVersion(data []byte) (string, error) {
	out, err := fareboxUSDv2.abi.Unpack("version", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// FareboxUSDv2Approval represents a Approval event raised by the FareboxUSDv2 contract.
type FareboxUSDv2Approval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const FareboxUSDv2ApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (FareboxUSDv2Approval) ContractEventName() string {
	return FareboxUSDv2ApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (fareboxUSDv2 *FareboxUSDv2) UnpackApprovalEvent(log *types.Log) (*FareboxUSDv2Approval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != fareboxUSDv2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(FareboxUSDv2Approval)
	if len(log.Data) > 0 {
		if err := fareboxUSDv2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range fareboxUSDv2.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// FareboxUSDv2AuthorizationUsed represents a AuthorizationUsed event raised by the FareboxUSDv2 contract.
type FareboxUSDv2AuthorizationUsed struct {
	Authorizer common.Address
	Nonce      [32]byte
	Raw        *types.Log // Blockchain specific contextual infos
}

const FareboxUSDv2AuthorizationUsedEventName = "AuthorizationUsed"

// ContractEventName returns the user-defined event name.
func (FareboxUSDv2AuthorizationUsed) ContractEventName() string {
	return FareboxUSDv2AuthorizationUsedEventName
}

// UnpackAuthorizationUsedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)
func (fareboxUSDv2 *FareboxUSDv2) UnpackAuthorizationUsedEvent(log *types.Log) (*FareboxUSDv2AuthorizationUsed, error) {
	event := "AuthorizationUsed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != fareboxUSDv2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(FareboxUSDv2AuthorizationUsed)
	if len(log.Data) > 0 {
		if err := fareboxUSDv2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range fareboxUSDv2.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// FareboxUSDv2Transfer represents a Transfer event raised by the FareboxUSDv2 contract.
type FareboxUSDv2Transfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const FareboxUSDv2TransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (FareboxUSDv2Transfer) ContractEventName() string {
	return FareboxUSDv2TransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (fareboxUSDv2 *FareboxUSDv2) UnpackTransferEvent(log *types.Log) (*FareboxUSDv2Transfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != fareboxUSDv2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(FareboxUSDv2Transfer)
	if len(log.Data) > 0 {
		if err := fareboxUSDv2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range fareboxUSDv2.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// Permit2MetaData contains all meta data concerning the Permit2 contract.
var Permit2MetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"name\":\"AllowanceExpired\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ExcessiveInvalidation\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"InsufficientAllowance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"maxAmount\",\"type\":\"uint256\"}],\"name\":\"InvalidAmount\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidContractSignature\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidNonce\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidSignature\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidSignatureLength\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidSigner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"LengthMismatch\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"signatureDeadline\",\"type\":\"uint256\"}],\"name\":\"SignatureExpired\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint160\",\"name\":\"amount\",\"type\":\"uint160\"},{\"indexed\":false,\"internalType\":\"uint48\",\"name\":\"expiration\",\"type\":\"uint48\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"Lockdown\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint48\",\"name\":\"newNonce\",\"type\":\"uint48\"},{\"indexed\":false,\"internalType\":\"uint48\",\"name\":\"oldNonce\",\"type\":\"uint48\"}],\"name\":\"NonceInvalidation\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint160\",\"name\":\"amount\",\"type\":\"uint160\"},{\"indexed\":false,\"internalType\":\"uint48\",\"name\":\"expiration\",\"type\":\"uint48\"},{\"indexed\":false,\"internalType\":\"uint48\",\"name\":\"nonce\",\"type\":\"uint48\"}],\"name\":\"Permit\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"word\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"mask\",\"type\":\"uint256\"}],\"name\":\"UnorderedNonceInvalidation\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"DOMAIN_SEPARATOR\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint160\",\"name\":\"amount\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"expiration\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"nonce\",\"type\":\"uint48\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"amount\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"expiration\",\"type\":\"uint48\"}],\"name\":\"approve\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint48\",\"name\":\"newNonce\",\"type\":\"uint48\"}],\"name\":\"invalidateNonces\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"wordPos\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"mask\",\"type\":\"uint256\"}],\"name\":\"invalidateUnorderedNonces\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"internalType\":\"structIAllowanceTransfer.TokenSpenderPair[]\",\"name\":\"approvals\",\"type\":\"tuple[]\"}],\"name\":\"lockdown\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"nonceBitmap\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"amount\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"expiration\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"nonce\",\"type\":\"uint48\"}],\"internalType\":\"structIAllowanceTransfer.PermitDetails[]\",\"name\":\"details\",\"type\":\"tuple[]\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"sigDeadline\",\"type\":\"uint256\"}],\"internalType\":\"structIAllowanceTransfer.PermitBatch\",\"name\":\"permitBatch\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"permit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"amount\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"expiration\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"nonce\",\"type\":\"uint48\"}],\"internalType\":\"structIAllowanceTransfer.PermitDetails\",\"name\":\"details\",\"type\":\"tuple\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"sigDeadline\",\"type\":\"uint256\"}],\"internalType\":\"structIAllowanceTransfer.PermitSingle\",\"name\":\"permitSingle\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"permit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions\",\"name\":\"permitted\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"requestedAmount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.SignatureTransferDetails\",\"name\":\"transferDetails\",\"type\":\"tuple\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"permitTransferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions[]\",\"name\":\"permitted\",\"type\":\"tuple[]\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitBatchTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"requestedAmount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.SignatureTransferDetails[]\",\"name\":\"transferDetails\",\"type\":\"tuple[]\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"permitTransferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions\",\"name\":\"permitted\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"requestedAmount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.SignatureTransferDetails\",\"name\":\"transferDetails\",\"type\":\"tuple\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"witness\",\"type\":\"bytes32\"},{\"internalType\":\"string\",\"name\":\"witnessTypeString\",\"type\":\"string\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"permitWitnessTransferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions[]\",\"name\":\"permitted\",\"type\":\"tuple[]\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitBatchTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"requestedAmount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.SignatureTransferDetails[]\",\"name\":\"transferDetails\",\"type\":\"tuple[]\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"witness\",\"type\":\"bytes32\"},{\"internalType\":\"string\",\"name\":\"witnessTypeString\",\"type\":\"string\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"permitWitnessTransferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"amount\",\"type\":\"uint160\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"internalType\":\"structIAllowanceTransfer.AllowanceTransferDetails[]\",\"name\":\"transferDetails\",\"type\":\"tuple[]\"}],\"name\":\"transferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"amount\",\"type\":\"uint160\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"transferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "Permit2",
	Bin: "0x60c0346100bb574660a052602081017f8cad95687ba82c2ce50e74f7b754645e5117c3a5bec8151c0726d5857980a86681527f9ac997416e8ff9d2ff6bebeb7149f65cdae5e32e2b90440b566bb3044041d36a60408301524660608301523060808301526080825260a082019180831060018060401b038411176100a557826040525190206080526123c090816100c1823960805181611d26015260a05181611d000152f35b634e487b7160e01b600052604160045260246000fd5b600080fdfe6040608081526004908136101561001557600080fd5b600090813560e01c80630d58b1db1461126c578063137c29fe146110755780632a2d80d114610db75780632b67b57014610bde57806330f28b7a14610ade5780633644e51514610a9d57806336c7851614610a285780633ff9dcb1146109a85780634fe02b441461093f57806365d9723c146107ac57806387517c451461067a578063927da105146105c3578063cc53287f146104a3578063edd9444b1461033a5763fe8ec1a7146100c657600080fd5b346103365760c07ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc3601126103365767ffffffffffffffff833581811161033257610114903690860161164b565b60243582811161032e5761012b903690870161161a565b6101336114e6565b9160843585811161032a5761014b9036908a016115c1565b98909560a43590811161032657610164913691016115c1565b969095815190610173826113ff565b606b82527f5065726d697442617463685769746e6573735472616e7366657246726f6d285460208301527f6f6b656e5065726d697373696f6e735b5d207065726d69747465642c61646472838301527f657373207370656e6465722c75696e74323536206e6f6e63652c75696e74323560608301527f3620646561646c696e652c000000000000000000000000000000000000000000608083015282519a8b9181610222602085018096611edc565b918237018a8152039961025b7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe09b8c8101835282611437565b5190209085515161026b81611e04565b908a5b8181106102f95750506102f6999a6102ed9183516102a081610294602082018095611eaf565b03848101835282611437565b519020602089810151858b015195519182019687526040820192909252336060820152608081019190915260a081019390935260643560c08401528260e081015b03908101835282611437565b51902093611b39565b80f35b8061031161030b610321938c5161175e565b51611f9d565b61031b828661175e565b52611e53565b61026e565b8880fd5b8780fd5b8480fd5b8380fd5b5080fd5b5091346103365760807ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc3601126103365767ffffffffffffffff9080358281116103325761038b903690830161164b565b60243583811161032e576103a2903690840161161a565b9390926103ad6114e6565b9160643590811161049f576103c4913691016115c1565b949093835151976103d489611e04565b98885b81811061047d5750506102f697988151610425816103f9602082018095611eaf565b037fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe08101835282611437565b5190206020860151828701519083519260208401947ffcf35f5ac6a2c28868dc44c302166470266239195f02b0ee408334829333b7668652840152336060840152608083015260a082015260a081526102ed8161141b565b808b61031b8261049461030b61049a968d5161175e565b9261175e565b6103d7565b8680fd5b5082346105bf57602090817ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc3601126103325780359067ffffffffffffffff821161032e576104f49136910161161a565b929091845b848110610504578580f35b8061051a61051560019388886118b5565b6118c5565b61052f84610529848a8a6118b5565b016118c5565b3389528385528589209173ffffffffffffffffffffffffffffffffffffffff80911692838b528652868a20911690818a5285528589207fffffffffffffffffffffffff000000000000000000000000000000000000000081541690558551918252848201527f89b1add15eff56b3dfe299ad94e01f2b52fbcb80ae1a3baea6ae8c04cb2b98a4853392a2016104f9565b8280fd5b50346103365760607ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc36011261033657610676816105ff6114a0565b936106086114c3565b6106106114e6565b73ffffffffffffffffffffffffffffffffffffffff968716835260016020908152848420928816845291825283832090871683528152919020549251938316845260a083901c65ffffffffffff169084015260d09190911c604083015281906060820190565b0390f35b50346103365760807ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc360112610336576106b26114a0565b906106bb6114c3565b916106c46114e6565b65ffffffffffff926064358481169081810361032a5779ffffffffffff0000000000000000000000000000000000000000947fda9fa7c1b00402c17d0161b249b1ab8bbec047c5a52207b9c112deffd817036b94338a5260016020527fffffffffffff0000000000000000000000000000000000000000000000000000858b209873ffffffffffffffffffffffffffffffffffffffff809416998a8d5260205283878d209b169a8b8d52602052868c209486156000146107a457504216925b8454921697889360a01b16911617179055815193845260208401523392a480f35b905092610783565b5082346105bf5760607ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc3601126105bf576107e56114a0565b906107ee6114c3565b9265ffffffffffff604435818116939084810361032a57338852602091600183528489209673ffffffffffffffffffffffffffffffffffffffff80911697888b528452858a20981697888a5283528489205460d01c93848711156109175761ffff9085840316116108f05750907f55eb90d810e1700b35a8e7e25395ff7f2b2259abd7415ca2284dfb1c246418f393929133895260018252838920878a528252838920888a5282528389209079ffffffffffffffffffffffffffffffffffffffffffffffffffff7fffffffffffff000000000000000000000000000000000000000000000000000083549260d01b16911617905582519485528401523392a480f35b84517f24d35a26000000000000000000000000000000000000000000000000000000008152fd5b5084517f756688fe000000000000000000000000000000000000000000000000000000008152fd5b503461033657807ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc360112610336578060209273ffffffffffffffffffffffffffffffffffffffff61098f6114a0565b1681528084528181206024358252845220549051908152f35b5082346105bf57817ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc3601126105bf577f3704902f963766a4e561bbaab6e6cdc1b1dd12f6e9e99648da8843b3f46b918d90359160243533855284602052818520848652602052818520818154179055815193845260208401523392a280f35b8234610a9a5760807ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc360112610a9a57610a606114a0565b610a686114c3565b610a706114e6565b6064359173ffffffffffffffffffffffffffffffffffffffff8316830361032e576102f6936117a1565b80fd5b503461033657817ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc36011261033657602090610ad7611cfd565b9051908152f35b508290346105bf576101007ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc3601126105bf57610b1a3661152a565b90807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7c36011261033257610b4c611478565b9160e43567ffffffffffffffff8111610bda576102f694610b6f913691016115c1565b939092610b7c8351611f9d565b6020840151828501519083519260208401947f939c21a48a8dbe3a9a2404a1d46691e4d39f6583d6ec6b35714604c986d801068652840152336060840152608083015260a082015260a08152610bd18161141b565b51902091611a67565b8580fd5b509134610336576101007ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc36011261033657610c186114a0565b7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffdc360160c08112610332576080855191610c51836113e3565b1261033257845190610c6282611398565b73ffffffffffffffffffffffffffffffffffffffff91602435838116810361049f578152604435838116810361049f57602082015265ffffffffffff606435818116810361032a5788830152608435908116810361049f576060820152815260a435938285168503610bda576020820194855260c4359087830182815260e43567ffffffffffffffff811161032657610cfe90369084016115c1565b929093804211610d88575050918591610d786102f6999a610d7e95610d238851611f07565b90898c511690519083519260208401947ff3841cd1ff0085026a6327b620b67997ce40f282c88a8e905a7a5626e310f3d086528401526060830152608082015260808152610d70816113ff565b519020611db8565b91612010565b51925116916118e6565b602492508a51917fcd21db4f000000000000000000000000000000000000000000000000000000008352820152fd5b5091346103365760607ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc93818536011261033257610df36114a0565b9260249081359267ffffffffffffffff9788851161032a578590853603011261049f578051978589018981108282111761104a578252848301358181116103265785019036602383011215610326578382013591610e50836115ef565b90610e5d85519283611437565b838252602093878584019160071b83010191368311611046578801905b828210610fe9575050508a526044610e93868801611509565b96838c01978852013594838b0191868352604435908111610fe557610ebb90369087016115c1565b959096804211610fba575050508998995151610ed681611e04565b908b5b818110610f9757505092889492610d7892610f6497958351610f02816103f98682018095611eaf565b5190209073ffffffffffffffffffffffffffffffffffffffff9a8b8b51169151928551948501957faf1b0d30d2cab0380e68f0689007e3254993c596f2fdd0aaa7f4d04f794408638752850152830152608082015260808152610d70816113ff565b51169082515192845b848110610f78578580f35b80610f918585610f8b600195875161175e565b516118e6565b01610f6d565b80610311610fac8e9f9e93610fb2945161175e565b51611f07565b9b9a9b610ed9565b8551917fcd21db4f000000000000000000000000000000000000000000000000000000008352820152fd5b8a80fd5b6080823603126110465785608091885161100281611398565b61100b85611509565b8152611018838601611509565b838201526110278a8601611607565b8a8201528d611037818701611607565b90820152815201910190610e7a565b8c80fd5b84896041867f4e487b7100000000000000000000000000000000000000000000000000000000835252fd5b5082346105bf576101407ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc3601126105bf576110b03661152a565b91807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7c360112610332576110e2611478565b67ffffffffffffffff93906101043585811161049f5761110590369086016115c1565b90936101243596871161032a57611125610bd1966102f6983691016115c1565b969095825190611134826113ff565b606482527f5065726d69745769746e6573735472616e7366657246726f6d28546f6b656e5060208301527f65726d697373696f6e73207065726d69747465642c6164647265737320737065848301527f6e6465722c75696e74323536206e6f6e63652c75696e7432353620646561646c60608301527f696e652c0000000000000000000000000000000000000000000000000000000060808301528351948591816111e3602085018096611edc565b918237018b8152039361121c7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe095868101835282611437565b5190209261122a8651611f9d565b6020878101518589015195519182019687526040820192909252336060820152608081019190915260a081019390935260e43560c08401528260e081016102e1565b5082346105bf576020807ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc36011261033257813567ffffffffffffffff92838211610bda5736602383011215610bda5781013592831161032e576024906007368386831b8401011161049f57865b8581106112e5578780f35b80821b83019060807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffdc83360301126103265761139288876001946060835161132c81611398565b611368608461133c8d8601611509565b9485845261134c60448201611509565b809785015261135d60648201611509565b809885015201611509565b918291015273ffffffffffffffffffffffffffffffffffffffff80808093169516931691166117a1565b016112da565b6080810190811067ffffffffffffffff8211176113b457604052565b7f4e487b7100000000000000000000000000000000000000000000000000000000600052604160045260246000fd5b6060810190811067ffffffffffffffff8211176113b457604052565b60a0810190811067ffffffffffffffff8211176113b457604052565b60c0810190811067ffffffffffffffff8211176113b457604052565b90601f7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe0910116810190811067ffffffffffffffff8211176113b457604052565b60c4359073ffffffffffffffffffffffffffffffffffffffff8216820361149b57565b600080fd5b6004359073ffffffffffffffffffffffffffffffffffffffff8216820361149b57565b6024359073ffffffffffffffffffffffffffffffffffffffff8216820361149b57565b6044359073ffffffffffffffffffffffffffffffffffffffff8216820361149b57565b359073ffffffffffffffffffffffffffffffffffffffff8216820361149b57565b7ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc01906080821261149b576040805190611563826113e3565b8082941261149b57805181810181811067ffffffffffffffff8211176113b457825260043573ffffffffffffffffffffffffffffffffffffffff8116810361149b578152602435602082015282526044356020830152606435910152565b9181601f8401121561149b5782359167ffffffffffffffff831161149b576020838186019501011161149b57565b67ffffffffffffffff81116113b45760051b60200190565b359065ffffffffffff8216820361149b57565b9181601f8401121561149b5782359167ffffffffffffffff831161149b576020808501948460061b01011161149b57565b91909160608184031261149b576040805191611666836113e3565b8294813567ffffffffffffffff9081811161149b57830182601f8201121561149b578035611693816115ef565b926116a087519485611437565b818452602094858086019360061b8501019381851161149b579086899897969594939201925b8484106116e3575050505050855280820135908501520135910152565b90919293949596978483031261149b578851908982019082821085831117611730578a928992845261171487611509565b81528287013583820152815201930191908897969594936116c6565b602460007f4e487b710000000000000000000000000000000000000000000000000000000081526041600452fd5b80518210156117725760209160051b010190565b7f4e487b7100000000000000000000000000000000000000000000000000000000600052603260045260246000fd5b92919273ffffffffffffffffffffffffffffffffffffffff604060008284168152600160205282828220961695868252602052818120338252602052209485549565ffffffffffff8760a01c16804211611884575082871696838803611812575b5050611810955016926122fc565b565b878484161160001461184f57602488604051907ff96fb0710000000000000000000000000000000000000000000000000000000082526004820152fd5b7fffffffffffffffffffffffff000000000000000000000000000000000000000084846118109a031691161790553880611802565b602490604051907fd81b2f2e0000000000000000000000000000000000000000000000000000000082526004820152fd5b91908110156117725760061b0190565b3573ffffffffffffffffffffffffffffffffffffffff8116810361149b5790565b9065ffffffffffff908160608401511673ffffffffffffffffffffffffffffffffffffffff908185511694826020820151169280866040809401511695169560009187835260016020528383208984526020528383209916988983526020528282209184835460d01c03611a3e579185611a1794927fc6a377bfc4eb120024a8ac08eef205be16b817020812c73223e81d1bdb9708ec98979694508715600014611a1c5779ffffffffffff00000000000000000000000000000000000000009042165b60a01b167fffffffffffff00000000000000000000000000000000000000000000000000006001860160d01b1617179055519384938491604091949373ffffffffffffffffffffffffffffffffffffffff606085019616845265ffffffffffff809216602085015216910152565b0390a4565b5079ffffffffffff0000000000000000000000000000000000000000876119a9565b600484517f756688fe000000000000000000000000000000000000000000000000000000008152fd5b9192909360a435936040840151804211611b085750602084510151808611611ad75750918591610d78611aa794611aa2602088015186611c89565b611db8565b73ffffffffffffffffffffffffffffffffffffffff809151511692608435918216820361149b57611810936122fc565b602490604051907f3728b83d0000000000000000000000000000000000000000000000000000000082526004820152fd5b602490604051907fcd21db4f0000000000000000000000000000000000000000000000000000000082526004820152fd5b959093958051519560409283830151804211611c595750848803611c3057611b70918691610d7860209b611aa28d88015186611c89565b60005b868110611b84575050505050505050565b611b8f81835161175e565b5188611b9c83878a6118b5565b01359089810151808311611c00575091818888886001968596611bc6575b50505050505001611b73565b611bf595611bef9273ffffffffffffffffffffffffffffffffffffffff610515935116956118b5565b916122fc565b803888888883611bba565b6024908651907f3728b83d0000000000000000000000000000000000000000000000000000000082526004820152fd5b600484517fff633a38000000000000000000000000000000000000000000000000000000008152fd5b6024908551907fcd21db4f0000000000000000000000000000000000000000000000000000000082526004820152fd5b9073ffffffffffffffffffffffffffffffffffffffff600160ff83161b9216600052600060205260406000209060081c6000526020526040600020818154188091551615611cd357565b60046040517f756688fe000000000000000000000000000000000000000000000000000000008152fd5b467f000000000000000000000000000000000000000000000000000000000000000003611d48577f000000000000000000000000000000000000000000000000000000000000000090565b60405160208101907f8cad95687ba82c2ce50e74f7b754645e5117c3a5bec8151c0726d5857980a86682527f9ac997416e8ff9d2ff6bebeb7149f65cdae5e32e2b90440b566bb3044041d36a604082015246606082015230608082015260808152611db2816113ff565b51902090565b611dc0611cfd565b906040519060208201927f190100000000000000000000000000000000000000000000000000000000000084526022830152604282015260428152611db281611398565b90611e0e826115ef565b611e1b6040519182611437565b8281527fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe0611e4982946115ef565b0190602036910137565b7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff8114611e805760010190565b7f4e487b7100000000000000000000000000000000000000000000000000000000600052601160045260246000fd5b805160208092019160005b828110611ec8575050505090565b835185529381019392810192600101611eba565b9081519160005b838110611ef4575050016000815290565b8060208092840101518185015201611ee3565b60405160208101917f65626cad6cb96493bf6f5ebea28756c966f023ab9e8a83a7101849d5573b3678835273ffffffffffffffffffffffffffffffffffffffff8082511660408401526020820151166060830152606065ffffffffffff9182604082015116608085015201511660a082015260a0815260c0810181811067ffffffffffffffff8211176113b45760405251902090565b6040516020808201927f618358ac3db8dc274f0cd8829da7e234bd48cd73c4a740aede1adec9846d06a1845273ffffffffffffffffffffffffffffffffffffffff81511660408401520151606082015260608152611db281611398565b919082604091031261149b576020823592013590565b6000843b6121775750604182036120f55761202d82820182611ffa565b939092604010156117725760209360009360ff6040608095013560f81c5b60405194855216868401526040830152606082015282805260015afa156120e95773ffffffffffffffffffffffffffffffffffffffff80600051169182156120bf57160361209557565b60046040517f815e1d64000000000000000000000000000000000000000000000000000000008152fd5b60046040517f8baa579f000000000000000000000000000000000000000000000000000000008152fd5b6040513d6000823e3d90fd5b6040820361214d5761210991810190611ffa565b91601b7f7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff84169360ff1c019060ff8211611e805760209360009360ff60809461204b565b60046040517f4be6321b000000000000000000000000000000000000000000000000000000008152fd5b929391601f928173ffffffffffffffffffffffffffffffffffffffff60646020957fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe0604051988997889687947f1626ba7e000000000000000000000000000000000000000000000000000000009e8f8752600487015260406024870152816044870152868601378b85828601015201168101030192165afa9081156122f1578291612273575b507fffffffff000000000000000000000000000000000000000000000000000000009150160361224957565b60046040517fb0669cbc000000000000000000000000000000000000000000000000000000008152fd5b90506020813d82116122e9575b8161228d60209383611437565b810103126103365751907fffffffff0000000000000000000000000000000000000000000000000000000082168203610a9a57507fffffffff00000000000000000000000000000000000000000000000000000000903861221d565b3d9150612280565b6040513d84823e3d90fd5b9060006064926020958295604051947f23b872dd0000000000000000000000000000000000000000000000000000000086526004860152602485015260448401525af13d15601f3d116001600051141617161561235557565b60646040517f08c379a000000000000000000000000000000000000000000000000000000000815260206004820152601460248201527f5452414e534645525f46524f4d5f4641494c45440000000000000000000000006044820152fdfea164736f6c6343000811000a",
}

// Permit2 is an auto generated Go binding around an Ethereum contract.
type Permit2 struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *Permit2) GetABI() abi.ABI {
	return c.abi
}

// NewPermit2 creates a new instance of Permit2.
func NewPermit2() *Permit2 {
	parsed, err := Permit2MetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &Permit2{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *Permit2) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackDOMAINSEPARATOR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3644e515.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (permit2 *Permit2) PackDOMAINSEPARATOR() []byte {
	enc, err := permit2.abi.Pack("DOMAIN_SEPARATOR")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDOMAINSEPARATOR is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3644e515.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (permit2 *Permit2) TryPackDOMAINSEPARATOR() ([]byte, error) {
	return permit2.abi.Pack("DOMAIN_SEPARATOR")
}

// UnpackDOMAINSEPARATOR is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3644e515.
//
// Solidity: function DOMAIN_SEPARATOR() view returns(bytes32)
func (permit2 *Permit2) UnpackDOMAINSEPARATOR(data []byte) ([32]byte, error) {
	out, err := permit2.abi.Unpack("DOMAIN_SEPARATOR", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x927da105.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allowance(address , address , address ) view returns(uint160 amount, uint48 expiration, uint48 nonce)
func (permit2 *Permit2) PackAllowance(arg0 common.Address, arg1 common.Address, arg2 common.Address) []byte {
	enc, err := permit2.abi.Pack("allowance", arg0, arg1, arg2)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x927da105.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function allowance(address , address , address ) view returns(uint160 amount, uint48 expiration, uint48 nonce)
func (permit2 *Permit2) TryPackAllowance(arg0 common.Address, arg1 common.Address, arg2 common.Address) ([]byte, error) {
	return permit2.abi.Pack("allowance", arg0, arg1, arg2)
}

// AllowanceOutput serves as a container for the return parameters of contract
// method Allowance.
type AllowanceOutput struct {
	Amount     *big.Int
	Expiration *big.Int
	Nonce      *big.Int
}

// UnpackAllowance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x927da105.
//
// Solidity: function allowance(address , address , address ) view returns(uint160 amount, uint48 expiration, uint48 nonce)
func (permit2 *Permit2) UnpackAllowance(data []byte) (AllowanceOutput, error) {
	out, err := permit2.abi.Unpack("allowance", data)
	outstruct := new(AllowanceOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Amount = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.Expiration = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	outstruct.Nonce = abi.ConvertType(out[2], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x87517c45.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approve(address token, address spender, uint160 amount, uint48 expiration) returns()
func (permit2 *Permit2) PackApprove(token common.Address, spender common.Address, amount *big.Int, expiration *big.Int) []byte {
	enc, err := permit2.abi.Pack("approve", token, spender, amount, expiration)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x87517c45.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approve(address token, address spender, uint160 amount, uint48 expiration) returns()
func (permit2 *Permit2) TryPackApprove(token common.Address, spender common.Address, amount *big.Int, expiration *big.Int) ([]byte, error) {
	return permit2.abi.Pack("approve", token, spender, amount, expiration)
}

// PackInvalidateNonces is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x65d9723c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function invalidateNonces(address token, address spender, uint48 newNonce) returns()
func (permit2 *Permit2) PackInvalidateNonces(token common.Address, spender common.Address, newNonce *big.Int) []byte {
	enc, err := permit2.abi.Pack("invalidateNonces", token, spender, newNonce)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackInvalidateNonces is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x65d9723c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function invalidateNonces(address token, address spender, uint48 newNonce) returns()
func (permit2 *Permit2) TryPackInvalidateNonces(token common.Address, spender common.Address, newNonce *big.Int) ([]byte, error) {
	return permit2.abi.Pack("invalidateNonces", token, spender, newNonce)
}

// PackInvalidateUnorderedNonces is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3ff9dcb1.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) returns()
func (permit2 *Permit2) PackInvalidateUnorderedNonces(wordPos *big.Int, mask *big.Int) []byte {
	enc, err := permit2.abi.Pack("invalidateUnorderedNonces", wordPos, mask)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackInvalidateUnorderedNonces is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3ff9dcb1.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function invalidateUnorderedNonces(uint256 wordPos, uint256 mask) returns()
func (permit2 *Permit2) TryPackInvalidateUnorderedNonces(wordPos *big.Int, mask *big.Int) ([]byte, error) {
	return permit2.abi.Pack("invalidateUnorderedNonces", wordPos, mask)
}

// PackLockdown is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcc53287f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function lockdown((address,address)[] approvals) returns()
func (permit2 *Permit2) PackLockdown(approvals []IAllowanceTransferTokenSpenderPair) []byte {
	enc, err := permit2.abi.Pack("lockdown", approvals)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackLockdown is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcc53287f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function lockdown((address,address)[] approvals) returns()
func (permit2 *Permit2) TryPackLockdown(approvals []IAllowanceTransferTokenSpenderPair) ([]byte, error) {
	return permit2.abi.Pack("lockdown", approvals)
}

// PackNonceBitmap is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4fe02b44.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function nonceBitmap(address , uint256 ) view returns(uint256)
func (permit2 *Permit2) PackNonceBitmap(arg0 common.Address, arg1 *big.Int) []byte {
	enc, err := permit2.abi.Pack("nonceBitmap", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackNonceBitmap is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4fe02b44.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function nonceBitmap(address , uint256 ) view returns(uint256)
func (permit2 *Permit2) TryPackNonceBitmap(arg0 common.Address, arg1 *big.Int) ([]byte, error) {
	return permit2.abi.Pack("nonceBitmap", arg0, arg1)
}

// UnpackNonceBitmap is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4fe02b44.
//
// Solidity: function nonceBitmap(address , uint256 ) view returns(uint256)
func (permit2 *Permit2) UnpackNonceBitmap(data []byte) (*big.Int, error) {
	out, err := permit2.abi.Unpack("nonceBitmap", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackPermit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2a2d80d1.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function permit(address owner, ((address,uint160,uint48,uint48)[],address,uint256) permitBatch, bytes signature) returns()
func (permit2 *Permit2) PackPermit(owner common.Address, permitBatch IAllowanceTransferPermitBatch, signature []byte) []byte {
	enc, err := permit2.abi.Pack("permit", owner, permitBatch, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPermit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2a2d80d1.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function permit(address owner, ((address,uint160,uint48,uint48)[],address,uint256) permitBatch, bytes signature) returns()
func (permit2 *Permit2) TryPackPermit(owner common.Address, permitBatch IAllowanceTransferPermitBatch, signature []byte) ([]byte, error) {
	return permit2.abi.Pack("permit", owner, permitBatch, signature)
}

// PackPermit0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2b67b570.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function permit(address owner, ((address,uint160,uint48,uint48),address,uint256) permitSingle, bytes signature) returns()
func (permit2 *Permit2) PackPermit0(owner common.Address, permitSingle IAllowanceTransferPermitSingle, signature []byte) []byte {
	enc, err := permit2.abi.Pack("permit0", owner, permitSingle, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPermit0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2b67b570.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function permit(address owner, ((address,uint160,uint48,uint48),address,uint256) permitSingle, bytes signature) returns()
func (permit2 *Permit2) TryPackPermit0(owner common.Address, permitSingle IAllowanceTransferPermitSingle, signature []byte) ([]byte, error) {
	return permit2.abi.Pack("permit0", owner, permitSingle, signature)
}

// PackPermitTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x30f28b7a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function permitTransferFrom(((address,uint256),uint256,uint256) permit, (address,uint256) transferDetails, address owner, bytes signature) returns()
func (permit2 *Permit2) PackPermitTransferFrom(permit ISignatureTransferPermitTransferFrom, transferDetails ISignatureTransferSignatureTransferDetails, owner common.Address, signature []byte) []byte {
	enc, err := permit2.abi.Pack("permitTransferFrom", permit, transferDetails, owner, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPermitTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x30f28b7a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function permitTransferFrom(((address,uint256),uint256,uint256) permit, (address,uint256) transferDetails, address owner, bytes signature) returns()
func (permit2 *Permit2) TryPackPermitTransferFrom(permit ISignatureTransferPermitTransferFrom, transferDetails ISignatureTransferSignatureTransferDetails, owner common.Address, signature []byte) ([]byte, error) {
	return permit2.abi.Pack("permitTransferFrom", permit, transferDetails, owner, signature)
}

// PackPermitTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xedd9444b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function permitTransferFrom(((address,uint256)[],uint256,uint256) permit, (address,uint256)[] transferDetails, address owner, bytes signature) returns()
func (permit2 *Permit2) PackPermitTransferFrom0(permit ISignatureTransferPermitBatchTransferFrom, transferDetails []ISignatureTransferSignatureTransferDetails, owner common.Address, signature []byte) []byte {
	enc, err := permit2.abi.Pack("permitTransferFrom0", permit, transferDetails, owner, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPermitTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xedd9444b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function permitTransferFrom(((address,uint256)[],uint256,uint256) permit, (address,uint256)[] transferDetails, address owner, bytes signature) returns()
func (permit2 *Permit2) TryPackPermitTransferFrom0(permit ISignatureTransferPermitBatchTransferFrom, transferDetails []ISignatureTransferSignatureTransferDetails, owner common.Address, signature []byte) ([]byte, error) {
	return permit2.abi.Pack("permitTransferFrom0", permit, transferDetails, owner, signature)
}

// PackPermitWitnessTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x137c29fe.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function permitWitnessTransferFrom(((address,uint256),uint256,uint256) permit, (address,uint256) transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature) returns()
func (permit2 *Permit2) PackPermitWitnessTransferFrom(permit ISignatureTransferPermitTransferFrom, transferDetails ISignatureTransferSignatureTransferDetails, owner common.Address, witness [32]byte, witnessTypeString string, signature []byte) []byte {
	enc, err := permit2.abi.Pack("permitWitnessTransferFrom", permit, transferDetails, owner, witness, witnessTypeString, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPermitWitnessTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x137c29fe.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function permitWitnessTransferFrom(((address,uint256),uint256,uint256) permit, (address,uint256) transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature) returns()
func (permit2 *Permit2) TryPackPermitWitnessTransferFrom(permit ISignatureTransferPermitTransferFrom, transferDetails ISignatureTransferSignatureTransferDetails, owner common.Address, witness [32]byte, witnessTypeString string, signature []byte) ([]byte, error) {
	return permit2.abi.Pack("permitWitnessTransferFrom", permit, transferDetails, owner, witness, witnessTypeString, signature)
}

// PackPermitWitnessTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfe8ec1a7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function permitWitnessTransferFrom(((address,uint256)[],uint256,uint256) permit, (address,uint256)[] transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature) returns()
func (permit2 *Permit2) PackPermitWitnessTransferFrom0(permit ISignatureTransferPermitBatchTransferFrom, transferDetails []ISignatureTransferSignatureTransferDetails, owner common.Address, witness [32]byte, witnessTypeString string, signature []byte) []byte {
	enc, err := permit2.abi.Pack("permitWitnessTransferFrom0", permit, transferDetails, owner, witness, witnessTypeString, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPermitWitnessTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfe8ec1a7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function permitWitnessTransferFrom(((address,uint256)[],uint256,uint256) permit, (address,uint256)[] transferDetails, address owner, bytes32 witness, string witnessTypeString, bytes signature) returns()
func (permit2 *Permit2) TryPackPermitWitnessTransferFrom0(permit ISignatureTransferPermitBatchTransferFrom, transferDetails []ISignatureTransferSignatureTransferDetails, owner common.Address, witness [32]byte, witnessTypeString string, signature []byte) ([]byte, error) {
	return permit2.abi.Pack("permitWitnessTransferFrom0", permit, transferDetails, owner, witness, witnessTypeString, signature)
}

// PackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0d58b1db.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom((address,address,uint160,address)[] transferDetails) returns()
func (permit2 *Permit2) PackTransferFrom(transferDetails []IAllowanceTransferAllowanceTransferDetails) []byte {
	enc, err := permit2.abi.Pack("transferFrom", transferDetails)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0d58b1db.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom((address,address,uint160,address)[] transferDetails) returns()
func (permit2 *Permit2) TryPackTransferFrom(transferDetails []IAllowanceTransferAllowanceTransferDetails) ([]byte, error) {
	return permit2.abi.Pack("transferFrom", transferDetails)
}

// PackTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x36c78516.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom(address from, address to, uint160 amount, address token) returns()
func (permit2 *Permit2) PackTransferFrom0(from common.Address, to common.Address, amount *big.Int, token common.Address) []byte {
	enc, err := permit2.abi.Pack("transferFrom0", from, to, amount, token)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x36c78516.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address from, address to, uint160 amount, address token) returns()
func (permit2 *Permit2) TryPackTransferFrom0(from common.Address, to common.Address, amount *big.Int, token common.Address) ([]byte, error) {
	return permit2.abi.Pack("transferFrom0", from, to, amount, token)
}

// Permit2Approval represents a Approval event raised by the Permit2 contract.
type Permit2Approval struct {
	Owner      common.Address
	Token      common.Address
	Spender    common.Address
	Amount     *big.Int
	Expiration *big.Int
	Raw        *types.Log // Blockchain specific contextual infos
}

const Permit2ApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (Permit2Approval) ContractEventName() string {
	return Permit2ApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration)
func (permit2 *Permit2) UnpackApprovalEvent(log *types.Log) (*Permit2Approval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != permit2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(Permit2Approval)
	if len(log.Data) > 0 {
		if err := permit2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range permit2.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// Permit2Lockdown represents a Lockdown event raised by the Permit2 contract.
type Permit2Lockdown struct {
	Owner   common.Address
	Token   common.Address
	Spender common.Address
	Raw     *types.Log // Blockchain specific contextual infos
}

const Permit2LockdownEventName = "Lockdown"

// ContractEventName returns the user-defined event name.
func (Permit2Lockdown) ContractEventName() string {
	return Permit2LockdownEventName
}

// UnpackLockdownEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Lockdown(address indexed owner, address token, address spender)
func (permit2 *Permit2) UnpackLockdownEvent(log *types.Log) (*Permit2Lockdown, error) {
	event := "Lockdown"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != permit2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(Permit2Lockdown)
	if len(log.Data) > 0 {
		if err := permit2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range permit2.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// Permit2NonceInvalidation represents a NonceInvalidation event raised by the Permit2 contract.
type Permit2NonceInvalidation struct {
	Owner    common.Address
	Token    common.Address
	Spender  common.Address
	NewNonce *big.Int
	OldNonce *big.Int
	Raw      *types.Log // Blockchain specific contextual infos
}

const Permit2NonceInvalidationEventName = "NonceInvalidation"

// ContractEventName returns the user-defined event name.
func (Permit2NonceInvalidation) ContractEventName() string {
	return Permit2NonceInvalidationEventName
}

// UnpackNonceInvalidationEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event NonceInvalidation(address indexed owner, address indexed token, address indexed spender, uint48 newNonce, uint48 oldNonce)
func (permit2 *Permit2) UnpackNonceInvalidationEvent(log *types.Log) (*Permit2NonceInvalidation, error) {
	event := "NonceInvalidation"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != permit2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(Permit2NonceInvalidation)
	if len(log.Data) > 0 {
		if err := permit2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range permit2.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// Permit2Permit represents a Permit event raised by the Permit2 contract.
type Permit2Permit struct {
	Owner      common.Address
	Token      common.Address
	Spender    common.Address
	Amount     *big.Int
	Expiration *big.Int
	Nonce      *big.Int
	Raw        *types.Log // Blockchain specific contextual infos
}

const Permit2PermitEventName = "Permit"

// ContractEventName returns the user-defined event name.
func (Permit2Permit) ContractEventName() string {
	return Permit2PermitEventName
}

// UnpackPermitEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Permit(address indexed owner, address indexed token, address indexed spender, uint160 amount, uint48 expiration, uint48 nonce)
func (permit2 *Permit2) UnpackPermitEvent(log *types.Log) (*Permit2Permit, error) {
	event := "Permit"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != permit2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(Permit2Permit)
	if len(log.Data) > 0 {
		if err := permit2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range permit2.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// Permit2UnorderedNonceInvalidation represents a UnorderedNonceInvalidation event raised by the Permit2 contract.
type Permit2UnorderedNonceInvalidation struct {
	Owner common.Address
	Word  *big.Int
	Mask  *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const Permit2UnorderedNonceInvalidationEventName = "UnorderedNonceInvalidation"

// ContractEventName returns the user-defined event name.
func (Permit2UnorderedNonceInvalidation) ContractEventName() string {
	return Permit2UnorderedNonceInvalidationEventName
}

// UnpackUnorderedNonceInvalidationEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask)
func (permit2 *Permit2) UnpackUnorderedNonceInvalidationEvent(log *types.Log) (*Permit2UnorderedNonceInvalidation, error) {
	event := "UnorderedNonceInvalidation"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != permit2.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(Permit2UnorderedNonceInvalidation)
	if len(log.Data) > 0 {
		if err := permit2.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range permit2.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (permit2 *Permit2) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], permit2.abi.Errors["AllowanceExpired"].ID.Bytes()[:4]) {
		return permit2.UnpackAllowanceExpiredError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2.abi.Errors["ExcessiveInvalidation"].ID.Bytes()[:4]) {
		return permit2.UnpackExcessiveInvalidationError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2.abi.Errors["InsufficientAllowance"].ID.Bytes()[:4]) {
		return permit2.UnpackInsufficientAllowanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2.abi.Errors["InvalidAmount"].ID.Bytes()[:4]) {
		return permit2.UnpackInvalidAmountError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2.abi.Errors["InvalidContractSignature"].ID.Bytes()[:4]) {
		return permit2.UnpackInvalidContractSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2.abi.Errors["InvalidNonce"].ID.Bytes()[:4]) {
		return permit2.UnpackInvalidNonceError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2.abi.Errors["InvalidSignature"].ID.Bytes()[:4]) {
		return permit2.UnpackInvalidSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2.abi.Errors["InvalidSignatureLength"].ID.Bytes()[:4]) {
		return permit2.UnpackInvalidSignatureLengthError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2.abi.Errors["InvalidSigner"].ID.Bytes()[:4]) {
		return permit2.UnpackInvalidSignerError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2.abi.Errors["LengthMismatch"].ID.Bytes()[:4]) {
		return permit2.UnpackLengthMismatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2.abi.Errors["SignatureExpired"].ID.Bytes()[:4]) {
		return permit2.UnpackSignatureExpiredError(raw[4:])
	}
	return nil, errors.New("unknown error")
}

// Permit2AllowanceExpired represents a AllowanceExpired error raised by the Permit2 contract.
type Permit2AllowanceExpired struct {
	Deadline *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AllowanceExpired(uint256 deadline)
func Permit2AllowanceExpiredErrorID() common.Hash {
	return common.HexToHash("0xd81b2f2ea5299d48bcd8506f12d1e6ff337164a422c72ebd4b90f46050ec56ed")
}

// UnpackAllowanceExpiredError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AllowanceExpired(uint256 deadline)
func (permit2 *Permit2) UnpackAllowanceExpiredError(raw []byte) (*Permit2AllowanceExpired, error) {
	out := new(Permit2AllowanceExpired)
	if err := permit2.abi.UnpackIntoInterface(out, "AllowanceExpired", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2ExcessiveInvalidation represents a ExcessiveInvalidation error raised by the Permit2 contract.
type Permit2ExcessiveInvalidation struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ExcessiveInvalidation()
func Permit2ExcessiveInvalidationErrorID() common.Hash {
	return common.HexToHash("0x24d35a26575a9b509ec60f68e8ee549b975cd83a2415ee6697654900cfc2a7db")
}

// UnpackExcessiveInvalidationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ExcessiveInvalidation()
func (permit2 *Permit2) UnpackExcessiveInvalidationError(raw []byte) (*Permit2ExcessiveInvalidation, error) {
	out := new(Permit2ExcessiveInvalidation)
	if err := permit2.abi.UnpackIntoInterface(out, "ExcessiveInvalidation", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2InsufficientAllowance represents a InsufficientAllowance error raised by the Permit2 contract.
type Permit2InsufficientAllowance struct {
	Amount *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientAllowance(uint256 amount)
func Permit2InsufficientAllowanceErrorID() common.Hash {
	return common.HexToHash("0xf96fb071a20c7c6ca6fe21962093840887676a5016d375384e8346d67cb799f0")
}

// UnpackInsufficientAllowanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientAllowance(uint256 amount)
func (permit2 *Permit2) UnpackInsufficientAllowanceError(raw []byte) (*Permit2InsufficientAllowance, error) {
	out := new(Permit2InsufficientAllowance)
	if err := permit2.abi.UnpackIntoInterface(out, "InsufficientAllowance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2InvalidAmount represents a InvalidAmount error raised by the Permit2 contract.
type Permit2InvalidAmount struct {
	MaxAmount *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidAmount(uint256 maxAmount)
func Permit2InvalidAmountErrorID() common.Hash {
	return common.HexToHash("0x3728b83da61d63401ac13ad617e59d729e6cb5ed67c24fa9dc4e9b626307fd6e")
}

// UnpackInvalidAmountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidAmount(uint256 maxAmount)
func (permit2 *Permit2) UnpackInvalidAmountError(raw []byte) (*Permit2InvalidAmount, error) {
	out := new(Permit2InvalidAmount)
	if err := permit2.abi.UnpackIntoInterface(out, "InvalidAmount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2InvalidContractSignature represents a InvalidContractSignature error raised by the Permit2 contract.
type Permit2InvalidContractSignature struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidContractSignature()
func Permit2InvalidContractSignatureErrorID() common.Hash {
	return common.HexToHash("0xb0669cbc44dcc813760e2b75f75ec6b5f9f11c5a9277f3ad2e7a63052ae97f7a")
}

// UnpackInvalidContractSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidContractSignature()
func (permit2 *Permit2) UnpackInvalidContractSignatureError(raw []byte) (*Permit2InvalidContractSignature, error) {
	out := new(Permit2InvalidContractSignature)
	if err := permit2.abi.UnpackIntoInterface(out, "InvalidContractSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2InvalidNonce represents a InvalidNonce error raised by the Permit2 contract.
type Permit2InvalidNonce struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidNonce()
func Permit2InvalidNonceErrorID() common.Hash {
	return common.HexToHash("0x756688fec2871909d72599c334b663ffcc94654c438569966c7fd3ab3a351f34")
}

// UnpackInvalidNonceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidNonce()
func (permit2 *Permit2) UnpackInvalidNonceError(raw []byte) (*Permit2InvalidNonce, error) {
	out := new(Permit2InvalidNonce)
	if err := permit2.abi.UnpackIntoInterface(out, "InvalidNonce", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2InvalidSignature represents a InvalidSignature error raised by the Permit2 contract.
type Permit2InvalidSignature struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidSignature()
func Permit2InvalidSignatureErrorID() common.Hash {
	return common.HexToHash("0x8baa579fce362245063d36f11747a89dd489c54795634fc673cc0e0db51fedc5")
}

// UnpackInvalidSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidSignature()
func (permit2 *Permit2) UnpackInvalidSignatureError(raw []byte) (*Permit2InvalidSignature, error) {
	out := new(Permit2InvalidSignature)
	if err := permit2.abi.UnpackIntoInterface(out, "InvalidSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2InvalidSignatureLength represents a InvalidSignatureLength error raised by the Permit2 contract.
type Permit2InvalidSignatureLength struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidSignatureLength()
func Permit2InvalidSignatureLengthErrorID() common.Hash {
	return common.HexToHash("0x4be6321b1c5c52e8bf12be29c94fdc79660cce8a7886a11425ece4c2331dafa7")
}

// UnpackInvalidSignatureLengthError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidSignatureLength()
func (permit2 *Permit2) UnpackInvalidSignatureLengthError(raw []byte) (*Permit2InvalidSignatureLength, error) {
	out := new(Permit2InvalidSignatureLength)
	if err := permit2.abi.UnpackIntoInterface(out, "InvalidSignatureLength", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2InvalidSigner represents a InvalidSigner error raised by the Permit2 contract.
type Permit2InvalidSigner struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidSigner()
func Permit2InvalidSignerErrorID() common.Hash {
	return common.HexToHash("0x815e1d64efb74fbe314c20a2b8a2335d18bce12a19165e447fa36bcb35959528")
}

// UnpackInvalidSignerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidSigner()
func (permit2 *Permit2) UnpackInvalidSignerError(raw []byte) (*Permit2InvalidSigner, error) {
	out := new(Permit2InvalidSigner)
	if err := permit2.abi.UnpackIntoInterface(out, "InvalidSigner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2LengthMismatch represents a LengthMismatch error raised by the Permit2 contract.
type Permit2LengthMismatch struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error LengthMismatch()
func Permit2LengthMismatchErrorID() common.Hash {
	return common.HexToHash("0xff633a3803c58b9bc21e58efecee59f27e033cc0b1883fccb4969c76146fe60f")
}

// UnpackLengthMismatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error LengthMismatch()
func (permit2 *Permit2) UnpackLengthMismatchError(raw []byte) (*Permit2LengthMismatch, error) {
	out := new(Permit2LengthMismatch)
	if err := permit2.abi.UnpackIntoInterface(out, "LengthMismatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2SignatureExpired represents a SignatureExpired error raised by the Permit2 contract.
type Permit2SignatureExpired struct {
	SignatureDeadline *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error SignatureExpired(uint256 signatureDeadline)
func Permit2SignatureExpiredErrorID() common.Hash {
	return common.HexToHash("0xcd21db4f5222c209a625f44a7faa4c7077b21128ed96c96bd5c3a0f7bcc95d38")
}

// UnpackSignatureExpiredError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error SignatureExpired(uint256 signatureDeadline)
func (permit2 *Permit2) UnpackSignatureExpiredError(raw []byte) (*Permit2SignatureExpired, error) {
	out := new(Permit2SignatureExpired)
	if err := permit2.abi.UnpackIntoInterface(out, "SignatureExpired", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2DepositCollectorMetaData contains all meta data concerning the Permit2DepositCollector contract.
var Permit2DepositCollectorMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"_x402BatchSettlement\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"_permit2\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"InvalidPermit2Address\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidX402BatchSettlementAddress\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"OnlyX402BatchSettlement\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"Permit2612AmountMismatch\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"EIP2612PermitFailedWithData\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"errorCode\",\"type\":\"uint256\"}],\"name\":\"EIP2612PermitFailedWithPanic\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"}],\"name\":\"EIP2612PermitFailedWithReason\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"DEPOSIT_WITNESS_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"DEPOSIT_WITNESS_TYPE_STRING\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"PERMIT2\",\"outputs\":[{\"internalType\":\"contractISignatureTransfer\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"payer\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"channelId\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"collectorData\",\"type\":\"bytes\"}],\"name\":\"collect\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"x402BatchSettlement\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "Permit2DepositCollector",
	Bin: "0x60c060405234801561000f575f5ffd5b50604051610abf380380610abf83398101604081905261002e916100b0565b816001600160a01b0381166100565760405163e55654f560e01b815260040160405180910390fd5b6001600160a01b039081166080528116610083576040516359106c8960e01b815260040160405180910390fd5b6001600160a01b031660a052506100e1565b80516001600160a01b03811681146100ab575f5ffd5b919050565b5f5f604083850312156100c1575f5ffd5b6100ca83610095565b91506100d860208401610095565b90509250929050565b60805160a0516109a361011c5f395f818160f001528181610266015261048f01525f8181607c0152818161014e01526104ca01526109a35ff3fe608060405234801561000f575f5ffd5b5060043610610055575f3560e01c806322971aa0146100595780634dec6d95146100775780634f829976146100b65780636afdd850146100eb578063e416d8d314610112575b5f5ffd5b610061610127565b60405161006e919061059b565b60405180910390f35b61009e7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b03909116815260200161006e565b6100dd7fba0000097e86dabe64178afe31109221193339a6861598f2133fcbdc92c8447981565b60405190815260200161006e565b61009e7f000000000000000000000000000000000000000000000000000000000000000081565b6101256101203660046105cf565b610143565b005b6040518060a001604052806066815260200161093d6066913981565b336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161461018c57604051639794beb960e01b815260040160405180910390fd5b5f80808061019c85870187610721565b93509350935093505f815111156101b9576101b98a8a8a84610204565b6040805160a0810182526001600160a01b038b1660608201908152608082018b90528152602081018690529081018490526101f78b8a8a8487610440565b5050505050505050505050565b5f5f5f5f5f8580602001905181019061021d9190610798565b945094509450945094508685146102475760405163050cda4960e01b815260040160405180910390fd5b60405163d505accf60e01b81526001600160a01b038a811660048301527f000000000000000000000000000000000000000000000000000000000000000081166024830152604482018790526064820186905260ff8516608483015260a4820184905260c4820183905289169063d505accf9060e4015f604051808303815f87803b1580156102d4575f5ffd5b505af19250505080156102e5575060015b610435576102f16107e4565b806308c379a00361036157506103056107fd565b8061031057506103c3565b896001600160a01b0316896001600160a01b03167f0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e783604051610353919061059b565b60405180910390a350610435565b634e487b71036103c357610373610881565b9061037e57506103c3565b896001600160a01b0316896001600160a01b03167f278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d1976238360405161035391815260200190565b3d8080156103ec576040519150601f19603f3d011682016040523d82523d5f602084013e6103f1565b606091505b50896001600160a01b0316896001600160a01b03167f41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe83604051610353919061059b565b505050505050505050565b604080517fba0000097e86dabe64178afe31109221193339a6861598f2133fcbdc92c8447960208201529081018490525f906060016040516020818303038152906040528051906020012090507f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031663137c29fe8460405180604001604052807f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031681526020018981525089856040518060a001604052806066815260200161093d60669139886040518763ffffffff1660e01b81526004016105389695949392919061089e565b5f604051808303815f87803b15801561054f575f5ffd5b505af1158015610561573d5f5f3e3d5ffd5b50505050505050505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f6105ad602083018461056d565b9392505050565b80356001600160a01b03811681146105ca575f5ffd5b919050565b5f5f5f5f5f5f60a087890312156105e4575f5ffd5b6105ed876105b4565b95506105fb602088016105b4565b94506040870135935060608701359250608087013567ffffffffffffffff811115610624575f5ffd5b8701601f81018913610634575f5ffd5b803567ffffffffffffffff81111561064a575f5ffd5b89602082840101111561065b575f5ffd5b60208201935080925050509295509295509295565b634e487b7160e01b5f52604160045260245ffd5b601f8201601f1916810167ffffffffffffffff811182821017156106aa576106aa610670565b6040525050565b5f82601f8301126106c0575f5ffd5b813567ffffffffffffffff8111156106da576106da610670565b6040516106f1601f8301601f191660200182610684565b818152846020838601011115610705575f5ffd5b816020850160208301375f918101602001919091529392505050565b5f5f5f5f60808587031215610734575f5ffd5b8435935060208501359250604085013567ffffffffffffffff811115610758575f5ffd5b610764878288016106b1565b925050606085013567ffffffffffffffff811115610780575f5ffd5b61078c878288016106b1565b91505092959194509250565b5f5f5f5f5f60a086880312156107ac575f5ffd5b855160208701516040880151919650945060ff811681146107cb575f5ffd5b6060870151608090970151959894975095949392505050565b5f60033d11156107fa5760045f5f3e505f5160e01c5b90565b5f60443d101561080a5790565b6040513d600319016004823e80513d602482011167ffffffffffffffff8211171561083457505090565b808201805167ffffffffffffffff811115610850575050505090565b3d840160031901828201602001111561086a575050505090565b61087960208285010185610684565b509392505050565b5f5f60233d111561089a57602060045f3e50505f516001905b9091565b6108bc81885180516001600160a01b03168252602090810151910152565b60208701516040820152604087015160608201526108f0608082018780516001600160a01b03168252602090810151910152565b60018060a01b03851660c08201528360e08201526101406101008201525f61091c61014083018561056d565b82810361012084015261092f818561056d565b999850505050505050505056fe4465706f7369745769746e657373207769746e657373294465706f7369745769746e6573732862797465733332206368616e6e656c496429546f6b656e5065726d697373696f6e73286164647265737320746f6b656e2c75696e7432353620616d6f756e7429",
}

// Permit2DepositCollector is an auto generated Go binding around an Ethereum contract.
type Permit2DepositCollector struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *Permit2DepositCollector) GetABI() abi.ABI {
	return c.abi
}

// NewPermit2DepositCollector creates a new instance of Permit2DepositCollector.
func NewPermit2DepositCollector() *Permit2DepositCollector {
	parsed, err := Permit2DepositCollectorMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &Permit2DepositCollector{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *Permit2DepositCollector) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address _x402BatchSettlement, address _permit2) returns()
func (permit2DepositCollector *Permit2DepositCollector) PackConstructor(_x402BatchSettlement common.Address, _permit2 common.Address) []byte {
	enc, err := permit2DepositCollector.abi.Pack("", _x402BatchSettlement, _permit2)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDEPOSITWITNESSTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4f829976.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function DEPOSIT_WITNESS_TYPEHASH() view returns(bytes32)
func (permit2DepositCollector *Permit2DepositCollector) PackDEPOSITWITNESSTYPEHASH() []byte {
	enc, err := permit2DepositCollector.abi.Pack("DEPOSIT_WITNESS_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDEPOSITWITNESSTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4f829976.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function DEPOSIT_WITNESS_TYPEHASH() view returns(bytes32)
func (permit2DepositCollector *Permit2DepositCollector) TryPackDEPOSITWITNESSTYPEHASH() ([]byte, error) {
	return permit2DepositCollector.abi.Pack("DEPOSIT_WITNESS_TYPEHASH")
}

// UnpackDEPOSITWITNESSTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4f829976.
//
// Solidity: function DEPOSIT_WITNESS_TYPEHASH() view returns(bytes32)
func (permit2DepositCollector *Permit2DepositCollector) UnpackDEPOSITWITNESSTYPEHASH(data []byte) ([32]byte, error) {
	out, err := permit2DepositCollector.abi.Unpack("DEPOSIT_WITNESS_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackDEPOSITWITNESSTYPESTRING is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x22971aa0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function DEPOSIT_WITNESS_TYPE_STRING() view returns(string)
func (permit2DepositCollector *Permit2DepositCollector) PackDEPOSITWITNESSTYPESTRING() []byte {
	enc, err := permit2DepositCollector.abi.Pack("DEPOSIT_WITNESS_TYPE_STRING")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDEPOSITWITNESSTYPESTRING is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x22971aa0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function DEPOSIT_WITNESS_TYPE_STRING() view returns(string)
func (permit2DepositCollector *Permit2DepositCollector) TryPackDEPOSITWITNESSTYPESTRING() ([]byte, error) {
	return permit2DepositCollector.abi.Pack("DEPOSIT_WITNESS_TYPE_STRING")
}

// UnpackDEPOSITWITNESSTYPESTRING is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x22971aa0.
//
// Solidity: function DEPOSIT_WITNESS_TYPE_STRING() view returns(string)
func (permit2DepositCollector *Permit2DepositCollector) UnpackDEPOSITWITNESSTYPESTRING(data []byte) (string, error) {
	out, err := permit2DepositCollector.abi.Unpack("DEPOSIT_WITNESS_TYPE_STRING", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackPERMIT2 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6afdd850.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function PERMIT2() view returns(address)
func (permit2DepositCollector *Permit2DepositCollector) PackPERMIT2() []byte {
	enc, err := permit2DepositCollector.abi.Pack("PERMIT2")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPERMIT2 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6afdd850.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function PERMIT2() view returns(address)
func (permit2DepositCollector *Permit2DepositCollector) TryPackPERMIT2() ([]byte, error) {
	return permit2DepositCollector.abi.Pack("PERMIT2")
}

// UnpackPERMIT2 is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6afdd850.
//
// Solidity: function PERMIT2() view returns(address)
func (permit2DepositCollector *Permit2DepositCollector) UnpackPERMIT2(data []byte) (common.Address, error) {
	out, err := permit2DepositCollector.abi.Unpack("PERMIT2", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackCollect is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe416d8d3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes collectorData) returns()
func (permit2DepositCollector *Permit2DepositCollector) PackCollect(payer common.Address, token common.Address, amount *big.Int, channelId [32]byte, collectorData []byte) []byte {
	enc, err := permit2DepositCollector.abi.Pack("collect", payer, token, amount, channelId, collectorData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCollect is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe416d8d3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes collectorData) returns()
func (permit2DepositCollector *Permit2DepositCollector) TryPackCollect(payer common.Address, token common.Address, amount *big.Int, channelId [32]byte, collectorData []byte) ([]byte, error) {
	return permit2DepositCollector.abi.Pack("collect", payer, token, amount, channelId, collectorData)
}

// PackX402BatchSettlement is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4dec6d95.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (permit2DepositCollector *Permit2DepositCollector) PackX402BatchSettlement() []byte {
	enc, err := permit2DepositCollector.abi.Pack("x402BatchSettlement")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackX402BatchSettlement is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4dec6d95.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (permit2DepositCollector *Permit2DepositCollector) TryPackX402BatchSettlement() ([]byte, error) {
	return permit2DepositCollector.abi.Pack("x402BatchSettlement")
}

// UnpackX402BatchSettlement is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4dec6d95.
//
// Solidity: function x402BatchSettlement() view returns(address)
func (permit2DepositCollector *Permit2DepositCollector) UnpackX402BatchSettlement(data []byte) (common.Address, error) {
	out, err := permit2DepositCollector.abi.Unpack("x402BatchSettlement", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// Permit2DepositCollectorEIP2612PermitFailedWithData represents a EIP2612PermitFailedWithData event raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorEIP2612PermitFailedWithData struct {
	Token common.Address
	Owner common.Address
	Data  []byte
	Raw   *types.Log // Blockchain specific contextual infos
}

const Permit2DepositCollectorEIP2612PermitFailedWithDataEventName = "EIP2612PermitFailedWithData"

// ContractEventName returns the user-defined event name.
func (Permit2DepositCollectorEIP2612PermitFailedWithData) ContractEventName() string {
	return Permit2DepositCollectorEIP2612PermitFailedWithDataEventName
}

// UnpackEIP2612PermitFailedWithDataEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data)
func (permit2DepositCollector *Permit2DepositCollector) UnpackEIP2612PermitFailedWithDataEvent(log *types.Log) (*Permit2DepositCollectorEIP2612PermitFailedWithData, error) {
	event := "EIP2612PermitFailedWithData"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != permit2DepositCollector.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(Permit2DepositCollectorEIP2612PermitFailedWithData)
	if len(log.Data) > 0 {
		if err := permit2DepositCollector.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range permit2DepositCollector.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// Permit2DepositCollectorEIP2612PermitFailedWithPanic represents a EIP2612PermitFailedWithPanic event raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorEIP2612PermitFailedWithPanic struct {
	Token     common.Address
	Owner     common.Address
	ErrorCode *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const Permit2DepositCollectorEIP2612PermitFailedWithPanicEventName = "EIP2612PermitFailedWithPanic"

// ContractEventName returns the user-defined event name.
func (Permit2DepositCollectorEIP2612PermitFailedWithPanic) ContractEventName() string {
	return Permit2DepositCollectorEIP2612PermitFailedWithPanicEventName
}

// UnpackEIP2612PermitFailedWithPanicEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode)
func (permit2DepositCollector *Permit2DepositCollector) UnpackEIP2612PermitFailedWithPanicEvent(log *types.Log) (*Permit2DepositCollectorEIP2612PermitFailedWithPanic, error) {
	event := "EIP2612PermitFailedWithPanic"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != permit2DepositCollector.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(Permit2DepositCollectorEIP2612PermitFailedWithPanic)
	if len(log.Data) > 0 {
		if err := permit2DepositCollector.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range permit2DepositCollector.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// Permit2DepositCollectorEIP2612PermitFailedWithReason represents a EIP2612PermitFailedWithReason event raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorEIP2612PermitFailedWithReason struct {
	Token  common.Address
	Owner  common.Address
	Reason string
	Raw    *types.Log // Blockchain specific contextual infos
}

const Permit2DepositCollectorEIP2612PermitFailedWithReasonEventName = "EIP2612PermitFailedWithReason"

// ContractEventName returns the user-defined event name.
func (Permit2DepositCollectorEIP2612PermitFailedWithReason) ContractEventName() string {
	return Permit2DepositCollectorEIP2612PermitFailedWithReasonEventName
}

// UnpackEIP2612PermitFailedWithReasonEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason)
func (permit2DepositCollector *Permit2DepositCollector) UnpackEIP2612PermitFailedWithReasonEvent(log *types.Log) (*Permit2DepositCollectorEIP2612PermitFailedWithReason, error) {
	event := "EIP2612PermitFailedWithReason"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != permit2DepositCollector.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(Permit2DepositCollectorEIP2612PermitFailedWithReason)
	if len(log.Data) > 0 {
		if err := permit2DepositCollector.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range permit2DepositCollector.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (permit2DepositCollector *Permit2DepositCollector) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], permit2DepositCollector.abi.Errors["InvalidPermit2Address"].ID.Bytes()[:4]) {
		return permit2DepositCollector.UnpackInvalidPermit2AddressError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2DepositCollector.abi.Errors["InvalidX402BatchSettlementAddress"].ID.Bytes()[:4]) {
		return permit2DepositCollector.UnpackInvalidX402BatchSettlementAddressError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2DepositCollector.abi.Errors["OnlyX402BatchSettlement"].ID.Bytes()[:4]) {
		return permit2DepositCollector.UnpackOnlyX402BatchSettlementError(raw[4:])
	}
	if bytes.Equal(raw[:4], permit2DepositCollector.abi.Errors["Permit2612AmountMismatch"].ID.Bytes()[:4]) {
		return permit2DepositCollector.UnpackPermit2612AmountMismatchError(raw[4:])
	}
	return nil, errors.New("unknown error")
}

// Permit2DepositCollectorInvalidPermit2Address represents a InvalidPermit2Address error raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorInvalidPermit2Address struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidPermit2Address()
func Permit2DepositCollectorInvalidPermit2AddressErrorID() common.Hash {
	return common.HexToHash("0x59106c89c9b272a2d1f1659a6166b3441b4dd6dd32f75473f5484e8766f47110")
}

// UnpackInvalidPermit2AddressError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidPermit2Address()
func (permit2DepositCollector *Permit2DepositCollector) UnpackInvalidPermit2AddressError(raw []byte) (*Permit2DepositCollectorInvalidPermit2Address, error) {
	out := new(Permit2DepositCollectorInvalidPermit2Address)
	if err := permit2DepositCollector.abi.UnpackIntoInterface(out, "InvalidPermit2Address", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2DepositCollectorInvalidX402BatchSettlementAddress represents a InvalidX402BatchSettlementAddress error raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorInvalidX402BatchSettlementAddress struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidX402BatchSettlementAddress()
func Permit2DepositCollectorInvalidX402BatchSettlementAddressErrorID() common.Hash {
	return common.HexToHash("0xe55654f5f68077420f259fbec852fb469076d8d6100038ac0b1c47d3de717706")
}

// UnpackInvalidX402BatchSettlementAddressError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidX402BatchSettlementAddress()
func (permit2DepositCollector *Permit2DepositCollector) UnpackInvalidX402BatchSettlementAddressError(raw []byte) (*Permit2DepositCollectorInvalidX402BatchSettlementAddress, error) {
	out := new(Permit2DepositCollectorInvalidX402BatchSettlementAddress)
	if err := permit2DepositCollector.abi.UnpackIntoInterface(out, "InvalidX402BatchSettlementAddress", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2DepositCollectorOnlyX402BatchSettlement represents a OnlyX402BatchSettlement error raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorOnlyX402BatchSettlement struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OnlyX402BatchSettlement()
func Permit2DepositCollectorOnlyX402BatchSettlementErrorID() common.Hash {
	return common.HexToHash("0x9794beb9a4ed84875f4613850b52e4fda54022cdb5ef864ebc1d150c7987b10b")
}

// UnpackOnlyX402BatchSettlementError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OnlyX402BatchSettlement()
func (permit2DepositCollector *Permit2DepositCollector) UnpackOnlyX402BatchSettlementError(raw []byte) (*Permit2DepositCollectorOnlyX402BatchSettlement, error) {
	out := new(Permit2DepositCollectorOnlyX402BatchSettlement)
	if err := permit2DepositCollector.abi.UnpackIntoInterface(out, "OnlyX402BatchSettlement", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// Permit2DepositCollectorPermit2612AmountMismatch represents a Permit2612AmountMismatch error raised by the Permit2DepositCollector contract.
type Permit2DepositCollectorPermit2612AmountMismatch struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error Permit2612AmountMismatch()
func Permit2DepositCollectorPermit2612AmountMismatchErrorID() common.Hash {
	return common.HexToHash("0x050cda497e70d136409d6ab7072a104828e2ffb4be43a59d07e1a5960d8cb9a3")
}

// UnpackPermit2612AmountMismatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error Permit2612AmountMismatch()
func (permit2DepositCollector *Permit2DepositCollector) UnpackPermit2612AmountMismatchError(raw []byte) (*Permit2DepositCollectorPermit2612AmountMismatch, error) {
	out := new(Permit2DepositCollectorPermit2612AmountMismatch)
	if err := permit2DepositCollector.abi.UnpackIntoInterface(out, "Permit2612AmountMismatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// UptoPermit2ProxyMetaData contains all meta data concerning the UptoPermit2Proxy contract.
var UptoPermit2ProxyMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"_permit2\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"AmountExceedsPermitted\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidAmount\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidDestination\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidOwner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidPermit2Address\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"PaymentTooEarly\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"Permit2612AmountMismatch\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ReentrancyGuardReentrantCall\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"UnauthorizedFacilitator\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"EIP2612PermitFailedWithData\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"errorCode\",\"type\":\"uint256\"}],\"name\":\"EIP2612PermitFailedWithPanic\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"}],\"name\":\"EIP2612PermitFailedWithReason\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"Settled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"SettledWithPermit\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"PERMIT2\",\"outputs\":[{\"internalType\":\"contractISignatureTransfer\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"WITNESS_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"WITNESS_TYPE_STRING\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions\",\"name\":\"permitted\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"facilitator\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"}],\"internalType\":\"structx402UptoPermit2Proxy.Witness\",\"name\":\"witness\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"settle\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"r\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"s\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"v\",\"type\":\"uint8\"}],\"internalType\":\"structx402BasePermit2Proxy.EIP2612Permit\",\"name\":\"permit2612\",\"type\":\"tuple\"},{\"components\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.TokenPermissions\",\"name\":\"permitted\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"internalType\":\"structISignatureTransfer.PermitTransferFrom\",\"name\":\"permit\",\"type\":\"tuple\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"facilitator\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"validAfter\",\"type\":\"uint256\"}],\"internalType\":\"structx402UptoPermit2Proxy.Witness\",\"name\":\"witness\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"settleWithPermit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "UptoPermit2Proxy",
	Bin: "0x60a060405234801561000f575f5ffd5b50604051610d24380380610d2483398101604081905261002e91610068565b806001600160a01b038116610056576040516359106c8960e01b815260040160405180910390fd5b6001600160a01b031660805250610095565b5f60208284031215610078575f5ffd5b81516001600160a01b038116811461008e575f5ffd5b9392505050565b608051610c6a6100ba5f395f818160c60152818161046901526107310152610c6a5ff3fe608060405234801561000f575f5ffd5b5060043610610055575f3560e01c8063016c174814610059578063156e21521461006e5780632c03ae6a1461008c5780636afdd850146100c1578063ff11e7b414610100575b5f5ffd5b61006c6100673660046108a2565b610113565b005b610076610299565b6040516100839190610968565b60405180910390f35b6100b37fd4171c445a74218b01d4fd8af34ff1106580ea1e36ff837e64484bfaa2253b7581565b604051908152602001610083565b6100e87f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610083565b61006c61010e366004610981565b6102b5565b61011b6103f8565b60208601358511156101405760405163fe64b4c760e01b815260040160405180910390fd5b61015060408401602085016109ff565b6001600160a01b0316336001600160a01b03161461018157604051630f6fae8760e01b815260040160405180910390fd5b61019d61019160208801886109ff565b858960208a0135610436565b5f7fd4171c445a74218b01d4fd8af34ff1106580ea1e36ff837e64484bfaa2253b756101cc60208601866109ff565b6101dc60408701602088016109ff565b6040805160208101949094526001600160a01b039283168482015291166060830152850135608082015260a00160405160208183030381529060405280519060200120905061025f878787875f01602081019061023991906109ff565b8860400135866040518060a0016040528060788152602001610bf2607891398a8a610675565b6040517fde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d8905f90a1506102906107ab565b50505050505050565b6040518060a0016040528060788152602001610bf26078913981565b6102bd6103f8565b60208601358511156102e25760405163fe64b4c760e01b815260040160405180910390fd5b6102f260408401602085016109ff565b6001600160a01b0316336001600160a01b03161461032357604051630f6fae8760e01b815260040160405180910390fd5b5f7fd4171c445a74218b01d4fd8af34ff1106580ea1e36ff837e64484bfaa2253b7561035260208601866109ff565b61036260408701602088016109ff565b6040805160208101949094526001600160a01b039283168482015291166060830152850135608082015260a0016040516020818303038152906040528051906020012090506103bf878787875f01602081019061023991906109ff565b6040517f97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b6905f90a1506103f06107ab565b505050505050565b6104006107d5565b61043460017f9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f0061042e565b90565b90610815565b565b813581146104575760405163050cda4960e01b815260040160405180910390fd5b6001600160a01b03841663d505accf847f00000000000000000000000000000000000000000000000000000000000000008535602087013561049f60a0890160808a01610a18565b604080516001600160e01b031960e089901b1681526001600160a01b0396871660048201529590941660248601526044850192909252606484015260ff16608483015285013560a4820152606085013560c482015260e4015f604051808303815f87803b15801561050e575f5ffd5b505af192505050801561051f575060015b61066f5761052b610a38565b806308c379a00361059b575061053f610a89565b8061054a57506105fd565b836001600160a01b0316856001600160a01b03167f0fea7e5a0e14e9f700b9b0666ffd524bacb9ceb9e6234ea2bfb8e1d0ee2365e78360405161058d9190610968565b60405180910390a35061066f565b634e487b71036105fd576105ad610b0d565b906105b857506105fd565b836001600160a01b0316856001600160a01b03167f278207c426558a8c6ef49e9a3c6f87d257ca5c1852f0c988ad5caf894d1976238360405161058d91815260200190565b3d808015610626576040519150601f19603f3d011682016040523d82523d5f602084013e61062b565b606091505b50836001600160a01b0316856001600160a01b03167f41d715076dfd9c1fd3135fbb7675020aab7fb8e82349a0cd5aaa970dcfb816fe8360405161058d9190610968565b50505050565b875f036106955760405163162908e360e11b815260040160405180910390fd5b6001600160a01b0387166106bc576040516349e27cff60e01b815260040160405180910390fd5b6001600160a01b0386166106e35760405163ac6b05f560e01b815260040160405180910390fd5b844210156107045760405163532a9cfd60e11b815260040160405180910390fd5b6040805180820182526001600160a01b038089168252602082018b905291516309be14ff60e11b815290917f0000000000000000000000000000000000000000000000000000000000000000169063137c29fe90610772908d9085908d908b908b908b908b90600401610b52565b5f604051808303815f87803b158015610789575f5ffd5b505af115801561079b573d5f5f3e3d5ffd5b5050505050505050505050505050565b6104345f7f9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f0061042e565b7f9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f005c1561043457604051633ee5aeb560e01b815260040160405180910390fd5b80825d5050565b5f6080828403121561082c575f5ffd5b50919050565b80356001600160a01b0381168114610848575f5ffd5b919050565b5f6060828403121561082c575f5ffd5b5f5f83601f84011261086d575f5ffd5b50813567ffffffffffffffff811115610884575f5ffd5b60208301915083602082850101111561089b575f5ffd5b9250929050565b5f5f5f5f5f5f5f8789036101e08112156108ba575f5ffd5b60a08112156108c7575f5ffd5b508796506108d88960a08a0161081c565b955061012088013594506108ef6101408901610832565b93506108ff896101608a0161084d565b92506101c088013567ffffffffffffffff81111561091b575f5ffd5b6109278a828b0161085d565b989b979a50959850939692959293505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f61097a602083018461093a565b9392505050565b5f5f5f5f5f5f6101408789031215610997575f5ffd5b6109a1888861081c565b9550608087013594506109b660a08801610832565b93506109c58860c0890161084d565b925061012087013567ffffffffffffffff8111156109e1575f5ffd5b6109ed89828a0161085d565b979a9699509497509295939492505050565b5f60208284031215610a0f575f5ffd5b61097a82610832565b5f60208284031215610a28575f5ffd5b813560ff8116811461097a575f5ffd5b5f60033d111561042b5760045f5f3e505f5160e01c90565b601f8201601f1916810167ffffffffffffffff81118282101715610a8257634e487b7160e01b5f52604160045260245ffd5b6040525050565b5f60443d1015610a965790565b6040513d600319016004823e80513d602482011167ffffffffffffffff82111715610ac057505090565b808201805167ffffffffffffffff811115610adc575050505090565b3d8401600319018282016020011115610af6575050505090565b610b0560208285010185610a50565b509392505050565b5f5f60233d1115610b2657602060045f3e50505f516001905b9091565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b6001600160a01b03610b6389610832565b168152602088810135818301526040808a0135908301526060808a01359083015287516001600160a01b0316608083015287015160a08201525f610bb260c08301886001600160a01b03169052565b8560e0830152610140610100830152610bcf61014083018661093a565b828103610120840152610be3818587610b2a565b9a995050505050505050505056fe5769746e657373207769746e65737329546f6b656e5065726d697373696f6e73286164647265737320746f6b656e2c75696e7432353620616d6f756e74295769746e657373286164647265737320746f2c6164647265737320666163696c697461746f722c75696e743235362076616c6964416674657229",
}

// UptoPermit2Proxy is an auto generated Go binding around an Ethereum contract.
type UptoPermit2Proxy struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *UptoPermit2Proxy) GetABI() abi.ABI {
	return c.abi
}

// NewUptoPermit2Proxy creates a new instance of UptoPermit2Proxy.
func NewUptoPermit2Proxy() *UptoPermit2Proxy {
	parsed, err := UptoPermit2ProxyMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &UptoPermit2Proxy{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *UptoPermit2Proxy) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address _permit2) returns()
func (uptoPermit2Proxy *UptoPermit2Proxy) PackConstructor(_permit2 common.Address) []byte {
	enc, err := uptoPermit2Proxy.abi.Pack("", _permit2)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackPERMIT2 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6afdd850.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function PERMIT2() view returns(address)
func (uptoPermit2Proxy *UptoPermit2Proxy) PackPERMIT2() []byte {
	enc, err := uptoPermit2Proxy.abi.Pack("PERMIT2")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPERMIT2 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6afdd850.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function PERMIT2() view returns(address)
func (uptoPermit2Proxy *UptoPermit2Proxy) TryPackPERMIT2() ([]byte, error) {
	return uptoPermit2Proxy.abi.Pack("PERMIT2")
}

// UnpackPERMIT2 is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6afdd850.
//
// Solidity: function PERMIT2() view returns(address)
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackPERMIT2(data []byte) (common.Address, error) {
	out, err := uptoPermit2Proxy.abi.Unpack("PERMIT2", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackWITNESSTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2c03ae6a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function WITNESS_TYPEHASH() view returns(bytes32)
func (uptoPermit2Proxy *UptoPermit2Proxy) PackWITNESSTYPEHASH() []byte {
	enc, err := uptoPermit2Proxy.abi.Pack("WITNESS_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWITNESSTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2c03ae6a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function WITNESS_TYPEHASH() view returns(bytes32)
func (uptoPermit2Proxy *UptoPermit2Proxy) TryPackWITNESSTYPEHASH() ([]byte, error) {
	return uptoPermit2Proxy.abi.Pack("WITNESS_TYPEHASH")
}

// UnpackWITNESSTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x2c03ae6a.
//
// Solidity: function WITNESS_TYPEHASH() view returns(bytes32)
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackWITNESSTYPEHASH(data []byte) ([32]byte, error) {
	out, err := uptoPermit2Proxy.abi.Unpack("WITNESS_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackWITNESSTYPESTRING is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x156e2152.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function WITNESS_TYPE_STRING() view returns(string)
func (uptoPermit2Proxy *UptoPermit2Proxy) PackWITNESSTYPESTRING() []byte {
	enc, err := uptoPermit2Proxy.abi.Pack("WITNESS_TYPE_STRING")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWITNESSTYPESTRING is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x156e2152.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function WITNESS_TYPE_STRING() view returns(string)
func (uptoPermit2Proxy *UptoPermit2Proxy) TryPackWITNESSTYPESTRING() ([]byte, error) {
	return uptoPermit2Proxy.abi.Pack("WITNESS_TYPE_STRING")
}

// UnpackWITNESSTYPESTRING is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x156e2152.
//
// Solidity: function WITNESS_TYPE_STRING() view returns(string)
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackWITNESSTYPESTRING(data []byte) (string, error) {
	out, err := uptoPermit2Proxy.abi.Unpack("WITNESS_TYPE_STRING", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackSettle is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xff11e7b4.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function settle(((address,uint256),uint256,uint256) permit, uint256 amount, address owner, (address,address,uint256) witness, bytes signature) returns()
func (uptoPermit2Proxy *UptoPermit2Proxy) PackSettle(permit ISignatureTransferPermitTransferFrom, amount *big.Int, owner common.Address, witness X402UptoPermit2ProxyWitness, signature []byte) []byte {
	enc, err := uptoPermit2Proxy.abi.Pack("settle", permit, amount, owner, witness, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSettle is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xff11e7b4.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function settle(((address,uint256),uint256,uint256) permit, uint256 amount, address owner, (address,address,uint256) witness, bytes signature) returns()
func (uptoPermit2Proxy *UptoPermit2Proxy) TryPackSettle(permit ISignatureTransferPermitTransferFrom, amount *big.Int, owner common.Address, witness X402UptoPermit2ProxyWitness, signature []byte) ([]byte, error) {
	return uptoPermit2Proxy.abi.Pack("settle", permit, amount, owner, witness, signature)
}

// PackSettleWithPermit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x016c1748.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function settleWithPermit((uint256,uint256,bytes32,bytes32,uint8) permit2612, ((address,uint256),uint256,uint256) permit, uint256 amount, address owner, (address,address,uint256) witness, bytes signature) returns()
func (uptoPermit2Proxy *UptoPermit2Proxy) PackSettleWithPermit(permit2612 X402BasePermit2ProxyEIP2612Permit, permit ISignatureTransferPermitTransferFrom, amount *big.Int, owner common.Address, witness X402UptoPermit2ProxyWitness, signature []byte) []byte {
	enc, err := uptoPermit2Proxy.abi.Pack("settleWithPermit", permit2612, permit, amount, owner, witness, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSettleWithPermit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x016c1748.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function settleWithPermit((uint256,uint256,bytes32,bytes32,uint8) permit2612, ((address,uint256),uint256,uint256) permit, uint256 amount, address owner, (address,address,uint256) witness, bytes signature) returns()
func (uptoPermit2Proxy *UptoPermit2Proxy) TryPackSettleWithPermit(permit2612 X402BasePermit2ProxyEIP2612Permit, permit ISignatureTransferPermitTransferFrom, amount *big.Int, owner common.Address, witness X402UptoPermit2ProxyWitness, signature []byte) ([]byte, error) {
	return uptoPermit2Proxy.abi.Pack("settleWithPermit", permit2612, permit, amount, owner, witness, signature)
}

// UptoPermit2ProxyEIP2612PermitFailedWithData represents a EIP2612PermitFailedWithData event raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyEIP2612PermitFailedWithData struct {
	Token common.Address
	Owner common.Address
	Data  []byte
	Raw   *types.Log // Blockchain specific contextual infos
}

const UptoPermit2ProxyEIP2612PermitFailedWithDataEventName = "EIP2612PermitFailedWithData"

// ContractEventName returns the user-defined event name.
func (UptoPermit2ProxyEIP2612PermitFailedWithData) ContractEventName() string {
	return UptoPermit2ProxyEIP2612PermitFailedWithDataEventName
}

// UnpackEIP2612PermitFailedWithDataEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data)
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackEIP2612PermitFailedWithDataEvent(log *types.Log) (*UptoPermit2ProxyEIP2612PermitFailedWithData, error) {
	event := "EIP2612PermitFailedWithData"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != uptoPermit2Proxy.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(UptoPermit2ProxyEIP2612PermitFailedWithData)
	if len(log.Data) > 0 {
		if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range uptoPermit2Proxy.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UptoPermit2ProxyEIP2612PermitFailedWithPanic represents a EIP2612PermitFailedWithPanic event raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyEIP2612PermitFailedWithPanic struct {
	Token     common.Address
	Owner     common.Address
	ErrorCode *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const UptoPermit2ProxyEIP2612PermitFailedWithPanicEventName = "EIP2612PermitFailedWithPanic"

// ContractEventName returns the user-defined event name.
func (UptoPermit2ProxyEIP2612PermitFailedWithPanic) ContractEventName() string {
	return UptoPermit2ProxyEIP2612PermitFailedWithPanicEventName
}

// UnpackEIP2612PermitFailedWithPanicEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode)
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackEIP2612PermitFailedWithPanicEvent(log *types.Log) (*UptoPermit2ProxyEIP2612PermitFailedWithPanic, error) {
	event := "EIP2612PermitFailedWithPanic"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != uptoPermit2Proxy.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(UptoPermit2ProxyEIP2612PermitFailedWithPanic)
	if len(log.Data) > 0 {
		if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range uptoPermit2Proxy.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UptoPermit2ProxyEIP2612PermitFailedWithReason represents a EIP2612PermitFailedWithReason event raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyEIP2612PermitFailedWithReason struct {
	Token  common.Address
	Owner  common.Address
	Reason string
	Raw    *types.Log // Blockchain specific contextual infos
}

const UptoPermit2ProxyEIP2612PermitFailedWithReasonEventName = "EIP2612PermitFailedWithReason"

// ContractEventName returns the user-defined event name.
func (UptoPermit2ProxyEIP2612PermitFailedWithReason) ContractEventName() string {
	return UptoPermit2ProxyEIP2612PermitFailedWithReasonEventName
}

// UnpackEIP2612PermitFailedWithReasonEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason)
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackEIP2612PermitFailedWithReasonEvent(log *types.Log) (*UptoPermit2ProxyEIP2612PermitFailedWithReason, error) {
	event := "EIP2612PermitFailedWithReason"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != uptoPermit2Proxy.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(UptoPermit2ProxyEIP2612PermitFailedWithReason)
	if len(log.Data) > 0 {
		if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range uptoPermit2Proxy.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UptoPermit2ProxySettled represents a Settled event raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxySettled struct {
	Raw *types.Log // Blockchain specific contextual infos
}

const UptoPermit2ProxySettledEventName = "Settled"

// ContractEventName returns the user-defined event name.
func (UptoPermit2ProxySettled) ContractEventName() string {
	return UptoPermit2ProxySettledEventName
}

// UnpackSettledEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Settled()
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackSettledEvent(log *types.Log) (*UptoPermit2ProxySettled, error) {
	event := "Settled"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != uptoPermit2Proxy.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(UptoPermit2ProxySettled)
	if len(log.Data) > 0 {
		if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range uptoPermit2Proxy.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UptoPermit2ProxySettledWithPermit represents a SettledWithPermit event raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxySettledWithPermit struct {
	Raw *types.Log // Blockchain specific contextual infos
}

const UptoPermit2ProxySettledWithPermitEventName = "SettledWithPermit"

// ContractEventName returns the user-defined event name.
func (UptoPermit2ProxySettledWithPermit) ContractEventName() string {
	return UptoPermit2ProxySettledWithPermitEventName
}

// UnpackSettledWithPermitEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event SettledWithPermit()
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackSettledWithPermitEvent(log *types.Log) (*UptoPermit2ProxySettledWithPermit, error) {
	event := "SettledWithPermit"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != uptoPermit2Proxy.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(UptoPermit2ProxySettledWithPermit)
	if len(log.Data) > 0 {
		if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range uptoPermit2Proxy.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], uptoPermit2Proxy.abi.Errors["AmountExceedsPermitted"].ID.Bytes()[:4]) {
		return uptoPermit2Proxy.UnpackAmountExceedsPermittedError(raw[4:])
	}
	if bytes.Equal(raw[:4], uptoPermit2Proxy.abi.Errors["InvalidAmount"].ID.Bytes()[:4]) {
		return uptoPermit2Proxy.UnpackInvalidAmountError(raw[4:])
	}
	if bytes.Equal(raw[:4], uptoPermit2Proxy.abi.Errors["InvalidDestination"].ID.Bytes()[:4]) {
		return uptoPermit2Proxy.UnpackInvalidDestinationError(raw[4:])
	}
	if bytes.Equal(raw[:4], uptoPermit2Proxy.abi.Errors["InvalidOwner"].ID.Bytes()[:4]) {
		return uptoPermit2Proxy.UnpackInvalidOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], uptoPermit2Proxy.abi.Errors["InvalidPermit2Address"].ID.Bytes()[:4]) {
		return uptoPermit2Proxy.UnpackInvalidPermit2AddressError(raw[4:])
	}
	if bytes.Equal(raw[:4], uptoPermit2Proxy.abi.Errors["PaymentTooEarly"].ID.Bytes()[:4]) {
		return uptoPermit2Proxy.UnpackPaymentTooEarlyError(raw[4:])
	}
	if bytes.Equal(raw[:4], uptoPermit2Proxy.abi.Errors["Permit2612AmountMismatch"].ID.Bytes()[:4]) {
		return uptoPermit2Proxy.UnpackPermit2612AmountMismatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], uptoPermit2Proxy.abi.Errors["ReentrancyGuardReentrantCall"].ID.Bytes()[:4]) {
		return uptoPermit2Proxy.UnpackReentrancyGuardReentrantCallError(raw[4:])
	}
	if bytes.Equal(raw[:4], uptoPermit2Proxy.abi.Errors["UnauthorizedFacilitator"].ID.Bytes()[:4]) {
		return uptoPermit2Proxy.UnpackUnauthorizedFacilitatorError(raw[4:])
	}
	return nil, errors.New("unknown error")
}

// UptoPermit2ProxyAmountExceedsPermitted represents a AmountExceedsPermitted error raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyAmountExceedsPermitted struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AmountExceedsPermitted()
func UptoPermit2ProxyAmountExceedsPermittedErrorID() common.Hash {
	return common.HexToHash("0xfe64b4c79c64499c7b848a8b3ba618f45c6f9ef21365d5d7e24aeb3ff041c552")
}

// UnpackAmountExceedsPermittedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AmountExceedsPermitted()
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackAmountExceedsPermittedError(raw []byte) (*UptoPermit2ProxyAmountExceedsPermitted, error) {
	out := new(UptoPermit2ProxyAmountExceedsPermitted)
	if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, "AmountExceedsPermitted", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// UptoPermit2ProxyInvalidAmount represents a InvalidAmount error raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyInvalidAmount struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidAmount()
func UptoPermit2ProxyInvalidAmountErrorID() common.Hash {
	return common.HexToHash("0x2c5211c6cb73b16841677a034781e8336d18ce66df858e54153c86854e11f7b8")
}

// UnpackInvalidAmountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidAmount()
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackInvalidAmountError(raw []byte) (*UptoPermit2ProxyInvalidAmount, error) {
	out := new(UptoPermit2ProxyInvalidAmount)
	if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, "InvalidAmount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// UptoPermit2ProxyInvalidDestination represents a InvalidDestination error raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyInvalidDestination struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidDestination()
func UptoPermit2ProxyInvalidDestinationErrorID() common.Hash {
	return common.HexToHash("0xac6b05f542ae1b66b4b43710bf4773616692aad79ee0fe8cb9c5db0f38dd0764")
}

// UnpackInvalidDestinationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidDestination()
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackInvalidDestinationError(raw []byte) (*UptoPermit2ProxyInvalidDestination, error) {
	out := new(UptoPermit2ProxyInvalidDestination)
	if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, "InvalidDestination", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// UptoPermit2ProxyInvalidOwner represents a InvalidOwner error raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyInvalidOwner struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidOwner()
func UptoPermit2ProxyInvalidOwnerErrorID() common.Hash {
	return common.HexToHash("0x49e27cffb37b1ca4a9bf5318243b2014d13f940af232b8552c208bdea15739da")
}

// UnpackInvalidOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidOwner()
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackInvalidOwnerError(raw []byte) (*UptoPermit2ProxyInvalidOwner, error) {
	out := new(UptoPermit2ProxyInvalidOwner)
	if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, "InvalidOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// UptoPermit2ProxyInvalidPermit2Address represents a InvalidPermit2Address error raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyInvalidPermit2Address struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidPermit2Address()
func UptoPermit2ProxyInvalidPermit2AddressErrorID() common.Hash {
	return common.HexToHash("0x59106c89c9b272a2d1f1659a6166b3441b4dd6dd32f75473f5484e8766f47110")
}

// UnpackInvalidPermit2AddressError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidPermit2Address()
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackInvalidPermit2AddressError(raw []byte) (*UptoPermit2ProxyInvalidPermit2Address, error) {
	out := new(UptoPermit2ProxyInvalidPermit2Address)
	if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, "InvalidPermit2Address", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// UptoPermit2ProxyPaymentTooEarly represents a PaymentTooEarly error raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyPaymentTooEarly struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error PaymentTooEarly()
func UptoPermit2ProxyPaymentTooEarlyErrorID() common.Hash {
	return common.HexToHash("0xa65539fa34358c9b74d7a9931e9f563c9c02f41d47fa53ce79e35e1cadee70d6")
}

// UnpackPaymentTooEarlyError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error PaymentTooEarly()
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackPaymentTooEarlyError(raw []byte) (*UptoPermit2ProxyPaymentTooEarly, error) {
	out := new(UptoPermit2ProxyPaymentTooEarly)
	if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, "PaymentTooEarly", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// UptoPermit2ProxyPermit2612AmountMismatch represents a Permit2612AmountMismatch error raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyPermit2612AmountMismatch struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error Permit2612AmountMismatch()
func UptoPermit2ProxyPermit2612AmountMismatchErrorID() common.Hash {
	return common.HexToHash("0x050cda497e70d136409d6ab7072a104828e2ffb4be43a59d07e1a5960d8cb9a3")
}

// UnpackPermit2612AmountMismatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error Permit2612AmountMismatch()
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackPermit2612AmountMismatchError(raw []byte) (*UptoPermit2ProxyPermit2612AmountMismatch, error) {
	out := new(UptoPermit2ProxyPermit2612AmountMismatch)
	if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, "Permit2612AmountMismatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// UptoPermit2ProxyReentrancyGuardReentrantCall represents a ReentrancyGuardReentrantCall error raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyReentrancyGuardReentrantCall struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ReentrancyGuardReentrantCall()
func UptoPermit2ProxyReentrancyGuardReentrantCallErrorID() common.Hash {
	return common.HexToHash("0x3ee5aeb571de7fc460830b4d0017439a1ca56fb0bc39062227ade4fe4a24c1ca")
}

// UnpackReentrancyGuardReentrantCallError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ReentrancyGuardReentrantCall()
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackReentrancyGuardReentrantCallError(raw []byte) (*UptoPermit2ProxyReentrancyGuardReentrantCall, error) {
	out := new(UptoPermit2ProxyReentrancyGuardReentrantCall)
	if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, "ReentrancyGuardReentrantCall", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// UptoPermit2ProxyUnauthorizedFacilitator represents a UnauthorizedFacilitator error raised by the UptoPermit2Proxy contract.
type UptoPermit2ProxyUnauthorizedFacilitator struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UnauthorizedFacilitator()
func UptoPermit2ProxyUnauthorizedFacilitatorErrorID() common.Hash {
	return common.HexToHash("0x0f6fae871871fa0fd46c599941c98ffc4031e3ee5fe33675d627b18699e5ae52")
}

// UnpackUnauthorizedFacilitatorError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UnauthorizedFacilitator()
func (uptoPermit2Proxy *UptoPermit2Proxy) UnpackUnauthorizedFacilitatorError(raw []byte) (*UptoPermit2ProxyUnauthorizedFacilitator, error) {
	out := new(UptoPermit2ProxyUnauthorizedFacilitator)
	if err := uptoPermit2Proxy.abi.UnpackIntoInterface(out, "UnauthorizedFacilitator", raw); err != nil {
		return nil, err
	}
	return out, nil
}
