package evm

import (
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/farebox/farebox/x402"
)

// revertReasons maps fragments of the revert strings of Circle's FiatToken
// (and of the test token FareboxUSDv2, which uses the same strings) to x402 reason codes.
var revertReasons = []struct {
	fragment, reason string
}{
	{"authorization is used or canceled", x402.ReasonNonceAlreadyUsed},
	{"authorization is not yet valid", x402.ReasonValidAfter},
	{"authorization is expired", x402.ReasonValidBefore},
	{"invalid signature", x402.ReasonSignature},
	{"transfer amount exceeds balance", x402.ReasonInsufficientFunds},
	{"paused", x402.ReasonInvalidTxState},
	{"blacklisted", x402.ReasonInvalidTxState},
}

// revertReason extracts the Solidity revert string from a JSON-RPC error
// (eth_call / eth_estimateGas), or the error text when there is none.
func revertReason(err error) string {
	var de rpc.DataError
	if errors.As(err, &de) {
		if s, ok := de.ErrorData().(string); ok {
			if data, derr := hexutil.Decode(s); derr == nil {
				if reason, uerr := abi.UnpackRevert(data); uerr == nil {
					return reason
				}
			}
		}
	}
	return err.Error()
}

// reasonForRevert maps a revert string to an x402 reason code;
// invalid_transaction_state when it is not one FiatToken is known to give.
func reasonForRevert(revert string) string {
	lower := strings.ToLower(revert)
	for _, r := range revertReasons {
		if strings.Contains(lower, r.fragment) {
			return r.reason
		}
	}
	return x402.ReasonInvalidTxState
}

// isRevert tells a contract revert from a transport failure: nodes answer
// a reverting eth_call with "execution reverted" (geth, anvil) and data.
func isRevert(err error) bool {
	var de rpc.DataError
	if errors.As(err, &de) && de.ErrorData() != nil {
		return true
	}
	return strings.Contains(strings.ToLower(err.Error()), "revert")
}
