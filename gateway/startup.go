package gateway

import (
	"context"
	"fmt"
	"time"

	"github.com/farebox/farebox/x402"
)

// proveTimeout bounds the start-up proof: a facilitator or an RPC node
// that does not answer in this long would not settle payments either.
const proveTimeout = 20 * time.Second

// Prove asks the settler, once, whether the payments this server takes
// can settle: the facilitator's /supported lists scheme exact on every
// configured network, farebox's own relayer can pay gas (its chain id was
// checked as it was built). `farebox serve` refuses to start on its
// one-line error; nil when nothing is priced or the settler was supplied
// in process.
func (s *Server) Prove(ctx context.Context) error {
	if s.pay == nil || s.pay.prove == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, proveTimeout)
	defer cancel()
	return s.pay.prove(ctx)
}

// Prove builds only the configured settler (no store, no listener: safe
// beside a running farebox), proves it as Server.Prove does and closes
// it: `farebox serve --check` without --offline. c must have passed
// Validate.
func (c Config) Prove(ctx context.Context, getenv func(string) string) error {
	c = c.withDefaults()
	pc := c.Payments
	if pc.PayTo == "" || len(pc.Networks) == 0 || !c.priced() {
		return nil
	}
	reg, err := registry(pc, nil)
	if err != nil {
		return err
	}
	p := &payments{timeout: pc.SettleTimeout.D(30 * time.Second)}
	for _, name := range pc.Networks {
		n := lookupNetwork(reg, name)
		if n == nil {
			return fmt.Errorf("payments.networks: unknown network %q", name)
		}
		p.networks = append(p.networks, n)
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	p.verifier = &x402.Verifier{}
	defer p.close()
	if err := p.buildSettler(pc, getenv); err != nil {
		return err
	}
	if p.prove == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, proveTimeout)
	defer cancel()
	return p.prove(ctx)
}

// priced reports whether any model charges.
func (c Config) priced() bool {
	for _, m := range c.Models {
		if m.PricePerMTok != nil || (m.Price != "" && m.Price != "0") {
			return true
		}
	}
	return false
}
