package gateway

import (
	"context"
	"math/big"
	"time"

	"github.com/farebox/farebox/x402/channel/service"
	"github.com/prometheus/client_golang/prometheus"
)

// registerChannels adds the batch-settlement channel service's series:
// its counters, and what its channels hold unclaimed (the server's risk:
// charges it loses if a payer withdraws before they are claimed).
func (m *metrics) registerChannels(svc *service.Service, store service.Store) {
	if svc == nil {
		return
	}
	f := registrar{m.reg}
	for _, c := range []struct {
		name, help string
		v          func(service.Stats) int64
	}{
		{"farebox_channel_deposits_total", "batch-settlement deposits sent on chain.", func(s service.Stats) int64 { return s.Deposits }},
		{"farebox_channel_vouchers_total", "batch-settlement vouchers committed (calls charged on a channel).", func(s service.Stats) int64 { return s.Vouchers }},
		{"farebox_channel_refunds_total", "Cooperative refunds sent on chain.", func(s service.Stats) int64 { return s.Refunds }},
		{"farebox_channel_aborts_total", "Channel calls given up without a charge (the answer failed).", func(s service.Stats) int64 { return s.Aborts }},
		{"farebox_channel_busy_refusals_total", "Payments refused because another request held their channel.", func(s service.Stats) int64 { return s.Busy }},
		{"farebox_channel_mismatches_total", "Corrective 402s: vouchers whose cumulative amount did not match the channel.", func(s service.Stats) int64 { return s.Mismatches }},
		{"farebox_channel_claim_transactions_total", "Claim-and-settle transactions sent.", func(s service.Stats) int64 { return s.ClaimTxs }},
		{"farebox_channel_claimed_channels_total", "Channel rows in the claims sent.", func(s service.Stats) int64 { return s.ClaimedChannels }},
		{"farebox_channel_deposits_skipped_total", "Deposits not sent because the channel already covered the voucher.", func(s service.Stats) int64 { return s.DepositsSkipped }},
		{"farebox_channel_refunds_refused_total", "Partial refunds refused as too soon after the last or too small.", func(s service.Stats) int64 { return s.RefundsRefused }},
		{"farebox_channel_claim_failures_total", "Claims of a receiver's channels that failed (retried on the next round).", func(s service.Stats) int64 { return s.ClaimFailures }},
		{"farebox_channel_quarantines_total", "Channels quarantined because the settlement contract refused their voucher at claim time (the log names each).", func(s service.Stats) int64 { return s.Quarantined }},
	} {
		f.counterFunc(c.name, c.help, nil, func() float64 { return float64(c.v(svc.Stats())) })
	}
	m.reg.MustRegister(&unclaimed{store: store,
		amount: prometheus.NewDesc("farebox_channel_unclaimed_atomic",
			"USDC (atomic units) charged on batch-settlement channels and not yet claimed on chain.", nil, nil),
		channels: prometheus.NewDesc("farebox_channels",
			"batch-settlement channels with a record (a fully refunded one is forgotten).", nil, nil),
		quarantined: prometheus.NewDesc("farebox_channels_quarantined",
			"batch-settlement channels no longer served nor claimed: the contract refused their voucher.", nil, nil)})
}

// unclaimed collects, from one read of the channel store per scrape, what
// the channels hold unclaimed and how many there are; a store that does
// not answer in time leaves both out of the scrape.
type unclaimed struct {
	store                         service.Store
	amount, channels, quarantined *prometheus.Desc
}

func (u *unclaimed) Describe(ch chan<- *prometheus.Desc) {
	ch <- u.amount
	ch <- u.channels
	ch <- u.quarantined
}

func (u *unclaimed) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	recs, err := u.store.List(ctx)
	if err != nil {
		return
	}
	total := new(big.Int)
	quarantined := 0
	for _, r := range recs {
		if r.Quarantine != nil {
			quarantined++ // its charges will never be claimed: not at risk, lost
			continue
		}
		total.Add(total, r.State.Unclaimed())
	}
	v, _ := new(big.Float).SetInt(total).Float64()
	ch <- prometheus.MustNewConstMetric(u.amount, prometheus.GaugeValue, v)
	ch <- prometheus.MustNewConstMetric(u.channels, prometheus.GaugeValue, float64(len(recs)))
	ch <- prometheus.MustNewConstMetric(u.quarantined, prometheus.GaugeValue, float64(quarantined))
}
