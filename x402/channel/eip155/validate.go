package eip155

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/settle"
)

// validate reports what is wrong with payments.batch_settlement before
// anything is dialled, each problem naming its key.
func validate(c settle.SchemeConfig) []error {
	bc := c.Channels
	var errs []error
	add := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if bc.WithdrawDelay != 0 && (bc.WithdrawDelay < channel.MinWithdrawDelay || bc.WithdrawDelay > channel.MaxWithdrawDelay) {
		add("payments.batch_settlement.withdraw_delay", "%d is out of range [%d, %d] seconds", bc.WithdrawDelay, channel.MinWithdrawDelay, channel.MaxWithdrawDelay)
	}
	lead := bc
	lead.ClaimThreshold = "" // checked on its own: claimPolicy stops at its first problem
	if _, err := claimPolicy(lead); err != nil {
		errs = append(errs, err)
	}
	if bc.ClaimThreshold != "" {
		if _, err := x402.ParseUSDC(bc.ClaimThreshold); err != nil {
			add("payments.batch_settlement.claim_threshold", "%v", err)
		}
	}
	switch bc.ReceiverAuthorizer {
	case "", "facilitator":
	case "key":
		key := "payments.batch_settlement.receiver_authorizer_key_env"
		env := bc.ReceiverAuthorizerKeyEnv
		if env == "" {
			add(key, "required with receiver_authorizer: key")
			break
		}
		val := ""
		if c.Getenv != nil {
			val = strings.TrimPrefix(c.Getenv(env), "0x")
		}
		if val == "" {
			add(key, "$%s is empty: set it in the environment", env)
		} else if _, err := crypto.HexToECDSA(val); err != nil {
			add(key, "$%s is not a hex private key", env)
		}
	default:
		add("payments.batch_settlement.receiver_authorizer", "want facilitator or key, got %q", bc.ReceiverAuthorizer)
	}
	if bc.ReceiverAuthorizer != "" && c.Settler == "chain" {
		add("payments.batch_settlement.receiver_authorizer", "only with settler facilitator (settler chain: the relayer authorizes)")
	}
	return errs
}
