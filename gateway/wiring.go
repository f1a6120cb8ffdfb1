package gateway

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/facilitator"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/exact"
	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/upto"
)

// chainSettler is a settler that is farebox's own relayer on a chain
// (evm.Settler): it broadcasts exact transfers, settles upto payments
// after the answer and sends the channels' transactions. Beside
// Broadcaster, the engine asks it for balances (and which transfers a
// balance already shows) and, after a restart or a front-run, for the
// transaction that moved a payment (TransferTx, PaidBy).
type chainSettler interface {
	x402.Settler
	settle.Broadcaster
	settle.Balances
	settle.ShownBalances
	upto.Chain
	service.Relayer
	exact.Chain
	TransferTx(ctx context.Context, p *x402.Payment, req *x402.Requirement) (common.Hash, error)
	settle.FeeAwaiter
	OnCallGas(fn func(evm.CallGas))
}

// buildSchemes registers the schemes farebox takes, in the order they are
// offered: the metered ones first (batch-settlement, then upto), then
// exact. A metered scheme the configuration cannot serve (no chain
// settler of farebox's own, no facilitator that settles it) stays known,
// never offered, and refuses its payments with its own reason. This is
// the one place the gateway names a scheme.
func (p *payments) buildSchemes(pc PaymentsConfig, now func() time.Time, getenv func(string) string, metered bool) error {
	svc, err := p.buildChannels(pc, now, getenv, metered)
	if err != nil {
		return err
	}
	if svc != nil {
		bs := service.NewScheme(svc)
		p.schemes.Register(bs)
		p.refunder = bs
		store := p.chanStore
		p.chanSvc = svc
		p.schemeMetrics = append(p.schemeMetrics, func(m *metrics) { m.registerChannels(svc, store) })
	} else {
		p.schemes.Register(&x402.Unserved{SchemeName: channel.Scheme, Refusal: service.ErrUnserved})
	}
	if p.chain != nil {
		u := upto.NewServer(p.chain, now)
		u.Engine, u.Log = p.engine, p.log
		p.schemes.Register(u)
	} else {
		p.schemes.Register(&x402.Unserved{SchemeName: upto.Scheme, Refusal: upto.ErrUnserved})
	}
	var followed exact.Chain
	if p.chain != nil {
		followed = p.chain
	}
	p.schemes.Register(&exact.Server{Verifier: p.verifier, Engine: p.engine, Chain: followed,
		Overlap: p.overlap && !p.before, Log: p.log})
	return nil
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
	name = strings.TrimSpace(name)
	if n := reg.ByCAIP2(name); n != nil {
		return n
	}
	return reg.ByV1Name(name)
}

// buildSettler makes the configured settler (and checker, when the config
// asks for verification beyond farebox's own).
func (p *payments) buildSettler(pc PaymentsConfig, getenv func(string) string) error {
	switch pc.Settler {
	case "facilitator":
		fc := pc.Facilitator
		if fc.URL == "" {
			return fmt.Errorf("payments.facilitator.url is required with settler: facilitator")
		}
		var opts []facilitator.Option
		if fc.AuthHeaderEnv != "" {
			v := getenv(fc.AuthHeaderEnv)
			if v == "" {
				return fmt.Errorf("payments.facilitator.auth_header_env: %s is empty", fc.AuthHeaderEnv)
			}
			opts = append(opts, facilitator.WithAuthHeaders(func(string) http.Header { return http.Header{"Authorization": {v}} }))
		}
		opts = append(opts, facilitator.WithTimeout(p.timeout))
		c, err := facilitator.New(fc.URL, opts...)
		if err != nil {
			return fmt.Errorf("payments.facilitator.url: %w", err)
		}
		p.settler = c
		if fc.Verify && p.verifier.Checker == nil {
			p.verifier.Checker = c
		}
		if pc.Chain.RPCURL != "" && p.verifier.Checker == nil {
			// A chain to read: simulate (when on) and check contract-wallet
			// signatures locally instead of asking the facilitator.
			client, err := dialChain(pc.Chain.RPCURL)
			if err != nil {
				return err
			}
			p.closers = append(p.closers, client.Close)
			p.verifier.Checker = newChecker(client, pc.Chain)
		}
		return nil
	case "chain":
		cc := pc.Chain
		if cc.RPCURL == "" {
			return fmt.Errorf("payments.chain.rpc_url is required with settler: chain")
		}
		keyHex := strings.TrimPrefix(getenv(cc.RelayerKeyEnv), "0x")
		if keyHex == "" {
			return fmt.Errorf("settler chain: the relayer key is read from $%s, which is empty", cc.RelayerKeyEnv)
		}
		key, err := crypto.HexToECDSA(keyHex)
		if err != nil {
			return fmt.Errorf("$%s: %w", cc.RelayerKeyEnv, err)
		}
		client, err := dialChain(cc.RPCURL)
		if err != nil {
			return err
		}
		p.closers = append(p.closers, client.Close)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		st, err := evm.NewSettler(ctx, client, key)
		if err != nil {
			return err
		}
		for _, n := range p.networks {
			if n.ChainID.Cmp(st.ChainID()) != 0 {
				return fmt.Errorf("payments.networks: %s is not the chain at payments.chain.rpc_url (chain id %s)", n.CAIP2, st.ChainID())
			}
		}
		p.settler = st
		p.readiness = append(p.readiness, st.Ready)
		if p.verifier.Checker == nil {
			// EIP-1271 wallets always; the eth_call simulation unless turned off.
			p.verifier.Checker = newChecker(client, cc)
		}
		return nil
	case "":
		return fmt.Errorf("payments.settler is required for priced models: facilitator or chain")
	}
	return fmt.Errorf("payments.settler: want facilitator or chain, got %q", pc.Settler)
}

func dialChain(url string) (*ethclient.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := evm.Dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("payments.chain.rpc_url: %w", err)
	}
	return client, nil
}

// newChecker is the chain's check of payments under cc's simulate mode.
func newChecker(b evm.Backend, cc ChainConfig) *evm.Checker {
	c := evm.NewChecker(b, cc.simulate())
	c.PerPayer = cc.Simulate.perPayer
	return c
}
