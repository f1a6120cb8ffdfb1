package facilitator

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/farebox/farebox/x402"
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
	opts, err := authOptions(fc, d.Getenv)
	if err != nil {
		return nil, err
	}
	if fc.AuthHeaderEnv != "" {
		v := d.Getenv(fc.AuthHeaderEnv)
		if v == "" {
			return nil, fmt.Errorf("payments.facilitator.auth_header_env: %s is empty", fc.AuthHeaderEnv)
		}
		opts = append(opts, WithAuthHeaders(func(string) http.Header { return http.Header{"Authorization": {v}} }))
	}
	opts = append(opts, WithTimeout(d.Timeout))
	if d.Chain.RPCURL != "" && len(d.Networks) > 0 {
		check, err := settle.BuildTxCheck(settle.Family(d.Networks[0]), d)
		if err != nil {
			return nil, err
		}
		if check != nil {
			opts = append(opts, WithTransactionCheck(func(ctx context.Context, r *x402.Requirement, hash string) error {
				return check(ctx, r.Network, hash)
			}))
		}
	}
	c, err := New(fc.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("payments.facilitator.url: %w", err)
	}
	parts := &settle.SettlerParts{Settler: c, Prove: func(ctx context.Context) error { return c.Prove(ctx, d.Networks) }}
	if d.Chain.RPCURL != "" && len(d.Networks) > 0 {
		// A settlement the facilitator leaves pending is followed there.
		if parts.Reader, err = settle.BuildTransferReader(settle.Family(d.Networks[0]), d); err != nil {
			return nil, err
		}
	}
	// While the facilitator is seen down, /readyz says so and paid calls
	// are refused before their model runs.
	parts.Ready, parts.Gate = c.Available, c.Available
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

// authOptions signs every request with the CDP API key when the
// facilitator is CDP's (kind cdp, or a url on its host).
func authOptions(fc settle.FacilitatorSettings, getenv func(string) string) ([]Option, error) {
	if fc.Kind != "cdp" && !(fc.Kind == "" && IsCDP(fc.URL)) {
		return nil, nil
	}
	if fc.KeyIDEnv == "" || fc.KeySecretEnv == "" {
		return nil, fmt.Errorf("payments.facilitator: the CDP facilitator needs key_id_env and key_secret_env (e.g. CDP_API_KEY_ID, CDP_API_KEY_SECRET)")
	}
	id, secret := getenv(fc.KeyIDEnv), getenv(fc.KeySecretEnv)
	if strings.TrimSpace(id) == "" {
		return nil, fmt.Errorf("payments.facilitator.key_id_env: $%s is empty", fc.KeyIDEnv)
	}
	if strings.TrimSpace(secret) == "" {
		return nil, fmt.Errorf("payments.facilitator.key_secret_env: $%s is empty", fc.KeySecretEnv)
	}
	key, err := ParseCDPKey(id, secret)
	if err != nil {
		return nil, fmt.Errorf("payments.facilitator.key_secret_env ($%s): %w", fc.KeySecretEnv, err)
	}
	return []Option{WithCDPKey(key, fc.Now)}, nil
}

// Prove asks the facilitator's /supported whether it settles exact
// payments on every network: farebox refuses to start rather than take
// payments that would fail at settlement after the model ran.
func (c *Client) Prove(ctx context.Context, networks []*x402.Network) error {
	sup, err := c.Supported(ctx)
	if err != nil {
		return fmt.Errorf("payments.facilitator.url %s: %w", c.base, err)
	}
	for _, n := range networks {
		if !sup.Supports(2, "exact", n.CAIP2) && !(n.V1Name != "" && sup.Supports(1, "exact", n.V1Name)) {
			return fmt.Errorf("payments.networks: the facilitator at %s does not settle scheme exact on network %s (its /supported lists %s)", c.base, n.CAIP2, kindsList(sup))
		}
	}
	return nil
}

// kindsList names a facilitator's kinds for a one-line error.
func kindsList(s *Supported) string {
	if len(s.Kinds) == 0 {
		return "nothing"
	}
	var out []string
	for _, k := range s.Kinds {
		if len(out) == 8 {
			out = append(out, "...")
			break
		}
		out = append(out, fmt.Sprintf("%s on %s (v%d)", k.Scheme, k.Network, k.X402Version))
	}
	return strings.Join(out, ", ")
}
