package gateway

import (
	"context"
	"math/big"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// relayerBalancer is a settler that can read its relayer's gas balance.
type relayerBalancer interface {
	RelayerBalance(ctx context.Context) (*big.Int, error)
}

// registerBooks adds the series the alert rules in deploy/ watch beyond the
// counters: what waits for the chain and for how long, the relayer's gas,
// the resold models' wallets; and initialises the labelled series at their
// known label values, so a rule or panel sees 0 before the first event.
func (m *metrics) registerBooks(s *Server) {
	m.reg.MustRegister(&pendingCollector{s: s,
		count: prometheus.NewDesc("farebox_settlements_pending",
			"Transfers signed or broadcast and not yet mined (from the settlement journal).", nil, nil),
		oldest: prometheus.NewDesc("farebox_settlement_oldest_pending_seconds",
			"Age of the oldest transfer not yet mined (0 when none).", nil, nil),
		relayer: prometheus.NewDesc("farebox_relayer_balance_wei",
			"The relayer's native balance, which pays the settlements' gas (absent without a relayer of farebox's own).", nil, nil)})
	f := registrar{m.reg}
	f.gaugeFunc("farebox_reseller_wallets_low", "Resold models whose wallet could not pay the upstream at its last check (0 when none).",
		func() float64 {
			n := 0
			for _, rt := range s.routes {
				if r, ok := rt.model.(reseller); ok && r.WalletLow() {
					n++
				}
			}
			return float64(n)
		})
	for _, name := range s.order {
		m.upstream.WithLabelValues(name)
		for _, status := range []string{"200", "402"} {
			m.requests.WithLabelValues("/v1/responses", name, status)
		}
	}
	for _, l := range []string{"connections", "in_flight", "slow_body"} {
		m.shed.WithLabelValues(l)
	}
	for _, o := range []string{"offered", "settled", "pending", "failed", "refused", "malformed"} {
		m.payments.WithLabelValues(o, "")
	}
}

// pendingCollector reads the journal's pending transfers and the relayer's
// balance once per scrape; a source that does not answer in time leaves
// its series out of that scrape.
type pendingCollector struct {
	s                      *Server
	count, oldest, relayer *prometheus.Desc
}

func (p *pendingCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- p.count
	ch <- p.oldest
	ch <- p.relayer
}

func (p *pendingCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if b := p.s.pay.books; b != nil {
		if entries, err := b.Pending(ctx); err == nil {
			age := 0.0
			if len(entries) > 0 {
				age = time.Since(entries[0].Created).Seconds()
			}
			ch <- prometheus.MustNewConstMetric(p.count, prometheus.GaugeValue, float64(len(entries)))
			ch <- prometheus.MustNewConstMetric(p.oldest, prometheus.GaugeValue, age)
		}
	}
	if rb, ok := p.s.pay.settler.(relayerBalancer); ok {
		if bal, err := rb.RelayerBalance(ctx); err == nil {
			v, _ := new(big.Float).SetInt(bal).Float64()
			ch <- prometheus.MustNewConstMetric(p.relayer, prometheus.GaugeValue, v)
		}
	}
}
