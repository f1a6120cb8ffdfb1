package upto

import (
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// upto is served on every EVM network whose settler is farebox's own
// relayer (it sends the proxy's settle itself).
func init() { settle.RegisterScheme(Scheme, "eip155", build) }

// build is upto settled by the configured relayer, or known and unserved
// (refused with ErrUnserved) when the settler is not one.
func build(d settle.SchemeDeps) (x402.ServerScheme, error) {
	chain, ok := d.Chain.(Chain)
	if !ok {
		return &x402.Unserved{SchemeName: Scheme, Refusal: ErrUnserved}, nil
	}
	u := NewServer(chain, d.Now)
	u.Engine, u.Log = d.Engine, d.Log
	return u, nil
}
