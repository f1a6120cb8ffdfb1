package facilitator

import (
	"fmt"
	"net/http"

	"github.com/farebox/farebox/x402/settle"
)

// The facilitator settler (payments.settler: facilitator), registered
// here so that a server names no settler.
func init() { settle.RegisterSettler("facilitator", build) }

// build makes the client of payments.facilitator and, when the config
// asks for verification beyond farebox's own, its checker: the
// facilitator's /verify, else the chain at payments.chain.rpc_url read
// locally (simulation and contract-wallet signatures).
func build(d settle.SettlerDeps) (*settle.SettlerParts, error) {
	fc := d.Facilitator
	if fc.URL == "" {
		return nil, fmt.Errorf("payments.facilitator.url is required with settler: facilitator")
	}
	var opts []Option
	if fc.AuthHeaderEnv != "" {
		v := d.Getenv(fc.AuthHeaderEnv)
		if v == "" {
			return nil, fmt.Errorf("payments.facilitator.auth_header_env: %s is empty", fc.AuthHeaderEnv)
		}
		opts = append(opts, WithAuthHeaders(func(string) http.Header { return http.Header{"Authorization": {v}} }))
	}
	opts = append(opts, WithTimeout(d.Timeout))
	c, err := New(fc.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("payments.facilitator.url: %w", err)
	}
	parts := &settle.SettlerParts{Settler: c}
	if d.Checked {
		return parts, nil
	}
	if fc.Verify {
		parts.Checker = c
		return parts, nil
	}
	if d.Chain.RPCURL != "" && len(d.Networks) > 0 {
		if parts.Checker, err = settle.BuildChecker(settle.Family(d.Networks[0]), d); err != nil {
			return nil, err
		}
	}
	return parts, nil
}
