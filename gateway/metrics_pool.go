package gateway

import (
	"context"
	"math/big"
	"time"

	"github.com/farebox/farebox/upstream/pool"
	"github.com/prometheus/client_golang/prometheus"
)

// poolMetrics are the per-supplier series of pooled models.
type poolMetrics struct {
	calls *prometheus.CounterVec   // model, supplier, outcome
	ttft  *prometheus.HistogramVec // model, supplier
	spent *prometheus.CounterVec   // model, supplier
}

// poolObserver makes (once) and returns the pools' metrics.
func (m *metrics) poolObserver() pool.Observer {
	if m.pools == nil {
		f := registrar{m.reg}
		m.pools = &poolMetrics{
			calls: f.counterVec("farebox_supplier_calls_total",
				"Calls to each supplier of a pooled model by outcome (ok, client_error, rate_limited, too_large, timeout, payment, paid_failure, upstream_error, broken, abandoned).",
				"model", "supplier", "outcome"),
			ttft: f.histogramVec("farebox_supplier_time_to_first_token_seconds",
				"Time from a supplier call to its first output.", "model", "supplier"),
			spent: f.counterVec("farebox_supplier_spent_atomic_total",
				"USDC (atomic units) the operator spent on each supplier's answers: its cost, or an x402 seller's price.", "model", "supplier"),
		}
	}
	return m.pools
}

// Attempt implements pool.Observer.
func (pm *poolMetrics) Attempt(model, supplier string, kind pool.Kind, ttft time.Duration, cost *big.Int) {
	pm.calls.WithLabelValues(model, supplier, string(kind)).Inc()
	if ttft > 0 {
		pm.ttft.WithLabelValues(model, supplier).Observe(ttft.Seconds())
	}
	if cost != nil && cost.Sign() > 0 {
		v, _ := cost.Float64()
		pm.spent.WithLabelValues(model, supplier).Add(v)
	}
}

// registerPool adds the gauge of a pool's open circuits, one per supplier.
func (m *metrics) registerPool(model string, p *pool.Pool) {
	for _, s := range p.Suppliers() {
		name := s.Name
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "farebox_supplier_circuit_open",
			Help:        "1 while a supplier's circuit is open: it is skipped until its cooldown ends.",
			ConstLabels: prometheus.Labels{"model": model, "supplier": name}},
			func() float64 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				if p.Open(ctx)[name] {
					return 1
				}
				return 0
			}))
	}
}
