package exact

import (
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// exact is served on every EVM network, with any settler.
func init() { settle.RegisterScheme(Scheme, "eip155", build) }

// build is exact for the composition: verified by the shared verifier,
// journaled by the engine, its broadcast transfers followed when the
// settler is farebox's own relayer.
func build(d settle.SchemeDeps) (x402.ServerScheme, error) {
	var followed Chain
	if d.Chain != nil {
		followed = d.Chain
	}
	return &Server{Verifier: d.Verifier, Engine: d.Engine, Chain: followed, Overlap: d.Overlap, Log: d.Log}, nil
}
