package gateway

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// chainSettler is a settler that is farebox's own relayer on a chain: it
// broadcasts exact transfers, and the engine asks it for balances and the
// transactions that moved payments. The schemes that need more of it
// (upto's proxy, the channels' transactions) ask for it themselves.
type chainSettler = settle.Chain

// buildSchemes builds the schemes registered for the networks' families,
// in the order they are offered: the metered ones first (batch-settlement,
// then upto), then exact. A metered scheme the configuration cannot serve
// (no chain settler of farebox's own, no facilitator that settles it)
// stays known, never offered, and refuses its payments with its own
// reason. The gateway names no scheme: it keeps the one that refunds and
// the one whose channels the admin API and the metrics show.
func (p *payments) buildSchemes(pc PaymentsConfig, now func() time.Time, getenv func(string) string, metered bool) error {
	d := settle.SchemeDeps{SchemeConfig: pc.schemeConfig(getenv), Engine: p.engine, Verifier: p.verifier,
		Settler: p.settler, PayTo: p.payTo, Networks: p.networks, Now: now, Log: p.log, Timeout: p.timeout,
		Overlap: p.overlap && !p.before, Metered: metered, ChannelStore: p.chanStore, AddCloser: p.addCloser}
	if p.chain != nil {
		d.Chain = p.chain
	}
	if err := settle.BuildSchemes(d, &p.schemes); err != nil {
		return err
	}
	for _, s := range p.schemes.All() {
		if r, ok := s.(x402.Refunder); ok && p.refunder == nil {
			p.refunder = r
		}
		if ch, ok := s.(settle.Channels); ok && p.channels == nil {
			p.channels = ch
			p.schemeMetrics = append(p.schemeMetrics, func(m *metrics) { m.registerChannels(ch) })
		}
	}
	return nil
}

// addCloser runs fn when the payments close: first, before what is
// already there, or after it.
func (p *payments) addCloser(fn func(), first bool) {
	if first {
		p.closers = append([]func(){fn}, p.closers...)
		return
	}
	p.closers = append(p.closers, fn)
}

// schemeConfig is what the schemes read of the payments configuration.
func (pc PaymentsConfig) schemeConfig(getenv func(string) string) settle.SchemeConfig {
	bc := pc.BatchSettlement
	return settle.SchemeConfig{Settler: pc.Settler, RPCURL: pc.Chain.RPCURL, Getenv: getenv,
		Channels: settle.ChannelsConfig{WithdrawDelay: bc.WithdrawDelay, ClaimInterval: time.Duration(bc.ClaimInterval),
			ClaimThreshold: bc.ClaimThreshold, ClaimWithdrawLead: time.Duration(bc.ClaimWithdrawLead),
			MinDeposit: bc.MinDeposit, RefundInterval: time.Duration(bc.RefundInterval), MinRefund: bc.MinRefund,
			ReceiverAuthorizer: bc.ReceiverAuthorizer, ReceiverAuthorizerKeyEnv: bc.ReceiverAuthorizerKeyEnv}}
}

// registry is the configured custom networks, those supplied in process,
// and the built-in ones they do not replace: an operator who declares
// eip155:84532 with their own token (anvil) means that token.
func registry(pc PaymentsConfig, extra []*x402.Network) (*x402.Registry, error) {
	var nets []*x402.Network
	for i, nc := range pc.CustomNetworks {
		if !common.IsHexAddress(nc.Asset) {
			return nil, fmt.Errorf("payments.custom_networks[%d].asset: %q is not an address", i, nc.Asset)
		}
		caip2 := nc.CAIP2
		if caip2 == "" {
			caip2 = fmt.Sprintf("eip155:%d", nc.ChainID)
		}
		nets = append(nets, x402.NewNetwork(caip2, nc.V1Name, big.NewInt(nc.ChainID), common.HexToAddress(nc.Asset), nc.Name, nc.Version))
	}
	nets = append(nets, extra...)
	taken := func(b *x402.Network) bool {
		for _, n := range nets {
			if n.CAIP2 == b.CAIP2 || (b.V1Name != "" && n.V1Name == b.V1Name) {
				return true
			}
		}
		return false
	}
	for _, b := range x402.DefaultRegistry().Networks() {
		if !taken(b) {
			nets = append(nets, b)
		}
	}
	reg, err := x402.NewRegistry(nets...)
	if err != nil {
		return nil, fmt.Errorf("payments.custom_networks: %w", err)
	}
	return reg, nil
}

func lookupNetwork(reg *x402.Registry, name string) *x402.Network {
	return reg.ByName(strings.TrimSpace(name))
}

// buildSettler makes the configured settler (and checker, when the config
// asks for verification beyond farebox's own) through the settler kind
// registered under payments.settler.
func (p *payments) buildSettler(pc PaymentsConfig, getenv func(string) string) error {
	build := settle.LookupSettler(pc.Settler)
	switch {
	case pc.Settler == "":
		return fmt.Errorf("payments.settler is required for priced models: facilitator or chain")
	case build == nil:
		return fmt.Errorf("payments.settler: want facilitator or chain, got %q", pc.Settler)
	}
	cc := pc.Chain
	parts, err := build(settle.SettlerDeps{
		SettlerConfig: settle.SettlerConfig{Kind: pc.Settler,
			Facilitator: pc.Facilitator.settings(),
			Chain: settle.ChainSettings{RPCURL: cc.RPCURL, RelayerKeyEnv: cc.RelayerKeyEnv,
				RelayerKeystore: cc.RelayerKeystore, RelayerPasswordFile: cc.RelayerPasswordFile, Simulate: cc.simulate(), PerPayer: cc.Simulate.perPayer,
				Confirmations: uint64(max(cc.Confirmations, 0))}},
		Networks: p.networks, Getenv: getenv, Timeout: p.timeout, Checked: p.verifier.Checker != nil,
		AddCloser: func(fn func()) { p.closers = append(p.closers, fn) },
	})
	if err != nil {
		return err
	}
	p.settler = parts.Settler
	p.prove = parts.Prove
	p.reader = parts.Reader
	if parts.Ready != nil {
		p.readiness = append(p.readiness, parts.Ready)
	}
	p.verifier.Gate = parts.Gate
	if parts.Checker != nil && p.verifier.Checker == nil {
		p.verifier.Checker = parts.Checker
	}
	return nil
}
