package channel

import "github.com/farebox/farebox/x402"

// Reason codes of the batch-settlement scheme on EVM: every code of the spec
// (coinbase/x402 specs/schemes/batch-settlement/scheme_batch_settlement_evm.md)
// plus the ones @x402/evm 2.27 adds, so clients see the codes they know.
const (
	ReasonAuthorizerAddressMismatch     = "invalid_batch_settlement_evm_authorizer_address_mismatch"
	ReasonChannelBusy                   = "invalid_batch_settlement_evm_channel_busy"
	ReasonChannelIDMismatch             = "invalid_batch_settlement_evm_channel_id_mismatch"
	ReasonChannelNotFound               = "invalid_batch_settlement_evm_channel_not_found"
	ReasonChannelStateReadFailed        = "invalid_batch_settlement_evm_channel_state_read_failed"
	ReasonChargeExceedsSignedCumulative = "invalid_batch_settlement_evm_charge_exceeds_signed_cumulative"
	ReasonClaimPayload                  = "invalid_batch_settlement_evm_claim_payload"
	ReasonClaimSimulationFailed         = "invalid_batch_settlement_evm_claim_simulation_failed"
	ReasonClaimTransactionFailed        = "invalid_batch_settlement_evm_claim_transaction_failed"
	ReasonCumulativeAmountMismatch      = "invalid_batch_settlement_evm_cumulative_amount_mismatch"
	ReasonCumulativeBelowClaimed        = "invalid_batch_settlement_evm_cumulative_below_claimed"
	ReasonCumulativeExceedsBalance      = "invalid_batch_settlement_evm_cumulative_exceeds_balance"
	ReasonDepositPayload                = "invalid_batch_settlement_evm_deposit_payload"
	ReasonDepositSimulationFailed       = "invalid_batch_settlement_evm_deposit_simulation_failed"
	ReasonDepositTransactionFailed      = "invalid_batch_settlement_evm_deposit_transaction_failed"
	ReasonEIP2612AmountMismatch         = "invalid_batch_settlement_evm_eip2612_amount_mismatch"
	ReasonEIP2612AssetMismatch          = "invalid_batch_settlement_evm_eip2612_asset_mismatch"
	ReasonEIP2612DeadlineExpired        = "invalid_batch_settlement_evm_eip2612_deadline_expired"
	ReasonEIP2612InvalidFormat          = "invalid_batch_settlement_evm_eip2612_invalid_format"
	ReasonEIP2612InvalidSignature       = "invalid_batch_settlement_evm_eip2612_invalid_signature"
	ReasonEIP2612OwnerMismatch          = "invalid_batch_settlement_evm_eip2612_owner_mismatch"
	ReasonEIP2612SpenderMismatch        = "invalid_batch_settlement_evm_eip2612_spender_mismatch"
	ReasonERC20ApprovalAssetMismatch    = "invalid_batch_settlement_evm_erc20_approval_asset_mismatch"
	ReasonERC20ApprovalBroadcastFailed  = "invalid_batch_settlement_evm_erc20_approval_broadcast_failed"
	ReasonERC20ApprovalFromMismatch     = "invalid_batch_settlement_evm_erc20_approval_from_mismatch"
	ReasonERC20ApprovalInvalidFormat    = "invalid_batch_settlement_evm_erc20_approval_invalid_format"
	ReasonERC20ApprovalUnavailable      = "invalid_batch_settlement_evm_erc20_approval_unavailable"
	ReasonERC20ApprovalWrongSpender     = "invalid_batch_settlement_evm_erc20_approval_wrong_spender"
	ReasonERC3009AuthorizationRequired  = "invalid_batch_settlement_evm_erc3009_authorization_required"
	ReasonInsufficientBalance           = "invalid_batch_settlement_evm_insufficient_balance"
	ReasonMissingChannel                = "invalid_batch_settlement_evm_missing_channel"
	ReasonMissingEIP712Domain           = "invalid_batch_settlement_evm_missing_eip712_domain"
	ReasonNetworkMismatch               = "invalid_batch_settlement_evm_network_mismatch"
	ReasonValidAfter                    = "invalid_batch_settlement_evm_payload_authorization_valid_after"
	ReasonValidBefore                   = "invalid_batch_settlement_evm_payload_authorization_valid_before"
	ReasonPayloadType                   = "invalid_batch_settlement_evm_payload_type"
	ReasonPermit2AllowanceRequired      = "invalid_batch_settlement_evm_permit2_allowance_required"
	ReasonPermit2AmountMismatch         = "invalid_batch_settlement_evm_permit2_amount_mismatch"
	ReasonPermit2AuthorizationRequired  = "invalid_batch_settlement_evm_permit2_authorization_required"
	ReasonPermit2DeadlineExpired        = "invalid_batch_settlement_evm_permit2_deadline_expired"
	ReasonPermit2InvalidSignature       = "invalid_batch_settlement_evm_permit2_invalid_signature"
	ReasonPermit2InvalidSpender         = "invalid_batch_settlement_evm_permit2_invalid_spender"
	ReasonReceiveAuthorizationSignature = "invalid_batch_settlement_evm_receive_authorization_signature"
	ReasonReceiverAuthorizerMismatch    = "invalid_batch_settlement_evm_receiver_authorizer_mismatch"
	ReasonReceiverMismatch              = "invalid_batch_settlement_evm_receiver_mismatch"
	ReasonRefundAmountInvalid           = "invalid_batch_settlement_evm_refund_amount_invalid"
	ReasonRefundNoBalance               = "invalid_batch_settlement_evm_refund_no_balance"
	ReasonRefundPayload                 = "invalid_batch_settlement_evm_refund_payload"
	ReasonRefundSimulationFailed        = "invalid_batch_settlement_evm_refund_simulation_failed"
	ReasonRefundTransactionFailed       = "invalid_batch_settlement_evm_refund_transaction_failed"
	ReasonRPCReadFailed                 = "invalid_batch_settlement_evm_rpc_read_failed"
	ReasonScheme                        = "invalid_batch_settlement_evm_scheme"
	ReasonSettlePayload                 = "invalid_batch_settlement_evm_settle_payload"
	ReasonSettleSimulationFailed        = "invalid_batch_settlement_evm_settle_simulation_failed"
	ReasonSettleTransactionFailed       = "invalid_batch_settlement_evm_settle_transaction_failed"
	ReasonTokenMismatch                 = "invalid_batch_settlement_evm_token_mismatch"
	ReasonTransactionReverted           = "invalid_batch_settlement_evm_transaction_reverted"
	ReasonUnknownSettleAction           = "invalid_batch_settlement_evm_unknown_settle_action"
	ReasonVoucherPayload                = "invalid_batch_settlement_evm_voucher_payload"
	ReasonVoucherSignature              = "invalid_batch_settlement_evm_voucher_signature"
	ReasonWaitForReceiptFailed          = "invalid_batch_settlement_evm_wait_for_receipt_failed"
	ReasonWithdrawDelayMismatch         = "invalid_batch_settlement_evm_withdraw_delay_mismatch"
	ReasonWithdrawDelayOutOfRange       = "invalid_batch_settlement_evm_withdraw_delay_out_of_range"
	ReasonChannelIDInvalid              = "invalid_batch_settlement_evm_channel_id_invalid"             // @x402/evm 2.27
	ReasonAuthorizerNotConfigured       = "invalid_batch_settlement_evm_authorizer_not_configured"      // @x402/evm 2.27
	ReasonDepositBelowMinDeposit        = "invalid_batch_settlement_evm_deposit_below_min_deposit"      // @x402/evm 2.27
	ReasonEIP6492FactoryNotAllowed      = "invalid_batch_settlement_evm_eip6492_factory_not_allowed"    // @x402/evm 2.27
	ReasonSmartWalletDeploymentFailed   = "invalid_batch_settlement_evm_smart_wallet_deployment_failed" // @x402/evm 2.27
	ReasonNothingToSettle               = "invalid_batch_settlement_evm_nothing_to_settle"              // @x402/evm 2.27
	ReasonVerificationStateUnavailable  = "invalid_batch_settlement_evm_verification_state_unavailable" // @x402/evm 2.27
	// ReasonChannelQuarantined is farebox's: the settlement contract
	// refused the channel's voucher when farebox claimed it (a contract
	// wallet that answers the contract differently), or the channel store
	// lost its vouchers (a voucher signed before could be served twice), so
	// the channel is no longer served. Its payer withdraws what is left on chain.
	ReasonChannelQuarantined = "invalid_batch_settlement_evm_channel_quarantined"
	// ReasonRefundTooSoon is farebox's: the channel was refunded less than
	// the server's refund interval ago (each refund is a transaction).
	ReasonRefundTooSoon = "invalid_batch_settlement_evm_refund_too_soon"
)

// Error is a refusal with a batch-settlement reason code. It converts to an
// *x402.Error (X402) for the gateway's single error writer.
type Error struct {
	Reason  string
	Message string // safe to show the client
}

func (e *Error) Error() string { return e.Reason + ": " + e.Message }

func refuse(reason, msg string) *Error { return &Error{Reason: reason, Message: msg} }

// X402 converts the refusal for the gateway's error writer (HTTP 402 with
// the reason as the error code).
func (e *Error) X402() *x402.Error { return &x402.Error{Reason: e.Reason, Message: e.Message} }
