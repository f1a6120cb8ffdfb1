package gateway

import (
	"context"
	"math/big"
	"time"

	"github.com/farebox/farebox/x402/settle"
	"github.com/prometheus/client_golang/prometheus"
)

// registerChannels adds the batch-settlement channel service's series:
// its counters, and what its channels hold unclaimed (the server's risk:
// charges it loses if a payer withdraws before they are claimed).
func (m *metrics) registerChannels(ch settle.Channels) {
	if ch == nil {
		return
	}
	f := registrar{m.reg}
	for _, c := range []struct {
		name, help string
		v          func(settle.ChannelStats) int64
	}{
		{"farebox_channel_deposits_total", "batch-settlement deposits sent on chain.", func(s settle.ChannelStats) int64 { return s.Deposits }},
		{"farebox_channel_vouchers_total", "batch-settlement vouchers committed (calls charged on a channel).", func(s settle.ChannelStats) int64 { return s.Vouchers }},
		{"farebox_channel_refunds_total", "Cooperative refunds sent on chain.", func(s settle.ChannelStats) int64 { return s.Refunds }},
		{"farebox_channel_aborts_total", "Channel calls given up without a charge (the answer failed).", func(s settle.ChannelStats) int64 { return s.Aborts }},
		{"farebox_channel_busy_refusals_total", "Payments refused because another request held their channel.", func(s settle.ChannelStats) int64 { return s.Busy }},
		{"farebox_channel_mismatches_total", "Corrective 402s: vouchers whose cumulative amount did not match the channel.", func(s settle.ChannelStats) int64 { return s.Mismatches }},
		{"farebox_channel_claim_transactions_total", "Claim-and-settle transactions sent.", func(s settle.ChannelStats) int64 { return s.ClaimTxs }},
		{"farebox_channel_claimed_channels_total", "Channel rows in the claims sent.", func(s settle.ChannelStats) int64 { return s.ClaimedChannels }},
		{"farebox_channel_deposits_skipped_total", "Deposits not sent because the channel already covered the voucher.", func(s settle.ChannelStats) int64 { return s.DepositsSkipped }},
		{"farebox_channel_refunds_refused_total", "Partial refunds refused as too soon after the last or too small.", func(s settle.ChannelStats) int64 { return s.RefundsRefused }},
		{"farebox_channel_claim_failures_total", "Claims of a receiver's channels that failed (retried on the next round).", func(s settle.ChannelStats) int64 { return s.ClaimFailures }},
		{"farebox_channel_quarantines_total", "Channels quarantined: the settlement contract refused their voucher at claim time, or the channel store lost their vouchers (the log names each).", func(s settle.ChannelStats) int64 { return s.Quarantined }},
	} {
		f.counterFunc(c.name, c.help, nil, func() float64 { return float64(c.v(ch.ChannelStats())) })
	}
	m.reg.MustRegister(&unclaimed{channels: ch,
		amount: prometheus.NewDesc("farebox_channel_unclaimed_atomic",
			"USDC (atomic units) charged on batch-settlement channels and not yet claimed on chain.", nil, nil),
		count: prometheus.NewDesc("farebox_channels",
			"batch-settlement channels with a record (a fully refunded one is forgotten).", nil, nil),
		quarantined: prometheus.NewDesc("farebox_channels_quarantined",
			"batch-settlement channels no longer served nor claimed: the contract refused their voucher, or the store lost it.", nil, nil)})
}

// unclaimed collects, from one read of the channel store per scrape, what
// the channels hold unclaimed and how many there are; a store that does
// not answer in time leaves both out of the scrape.
type unclaimed struct {
	channels                   settle.Channels
	amount, count, quarantined *prometheus.Desc
}

func (u *unclaimed) Describe(ch chan<- *prometheus.Desc) {
	ch <- u.amount
	ch <- u.count
	ch <- u.quarantined
}

func (u *unclaimed) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	h, err := u.channels.ChannelHoldings(ctx)
	if err != nil {
		return
	}
	v, _ := new(big.Float).SetInt(h.Unclaimed).Float64()
	ch <- prometheus.MustNewConstMetric(u.amount, prometheus.GaugeValue, v)
	ch <- prometheus.MustNewConstMetric(u.count, prometheus.GaugeValue, float64(h.Channels))
	ch <- prometheus.MustNewConstMetric(u.quarantined, prometheus.GaugeValue, float64(h.Quarantined))
}
