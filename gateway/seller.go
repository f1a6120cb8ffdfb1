package gateway

import (
	"time"

	"github.com/farebox/farebox/charge"
)

// newSeller is the paid call over the payments' parts (built by
// newPayments): every wire's adapter sells its calls through it. A server
// without payments still has one, which sells free models only.
func (p *payments) newSeller(cfg Config) *charge.Seller {
	sl := &charge.Seller{PayTo: p.payTo, Networks: p.networks, MaxTimeout: p.maxTimeout,
		Before: p.before, EscrowOnly: p.escrowOnly, Schemes: &p.schemes, Refunder: p.refunder,
		SettleTimeout: p.timeout, Follows: p.chain != nil, KeepAlive: time.Duration(cfg.Keepalive),
		InFlight: p.inflight.add, Meters: payMeters{p}, Log: p.log}
	return sl
}

// payMeters are the paid call's counts in the payments' counters (read by
// /metrics under their historical names) and the Prometheus series.
type payMeters struct{ p *payments }

func (m payMeters) Payment(step, reason string) {
	c := &m.p.counts
	switch step {
	case "settled":
		c.settled.Add(1)
	case "pending":
		c.pending.Add(1)
	case "failed":
		c.failed.Add(1)
	case "malformed":
		c.refused.Add(1)
	}
	m.p.metrics.payment(step, reason)
}

func (m payMeters) Refused() { m.p.counts.refused.Add(1) }

func (m payMeters) Settling(d time.Duration) { m.p.metrics.settling.Observe(d.Seconds()) }

func (m payMeters) Outcome(o charge.Outcome) {
	c := &m.p.counts
	c.outcomes[o].Add(1)
	switch o {
	case charge.Kept:
		c.kept.Add(1)
	case charge.Released:
		c.released.Add(1)
	}
}

func (m payMeters) Upstream(product string, took time.Duration) {
	m.p.metrics.upstream.WithLabelValues(product).Observe(took.Seconds())
}

func (m payMeters) Streams(delta int) { m.p.metrics.streams.Add(float64(delta)) }

func (m payMeters) KeepAlive() { m.p.metrics.keepalive.Inc() }
