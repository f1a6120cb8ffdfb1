package gateway

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/scripted"
	"github.com/farebox/farebox/x402"
)

// registry is the built-in networks, the configured custom ones and those
// supplied in process.
func registry(pc PaymentsConfig, extra []*x402.Network) (*x402.Registry, error) {
	reg := x402.DefaultRegistry()
	for i, nc := range pc.CustomNetworks {
		if !common.IsHexAddress(nc.Asset) {
			return nil, fmt.Errorf("payments.custom_networks[%d].asset: %q is not an address", i, nc.Asset)
		}
		caip2 := nc.CAIP2
		if caip2 == "" {
			caip2 = fmt.Sprintf("eip155:%d", nc.ChainID)
		}
		n := x402.NewNetwork(caip2, nc.V1Name, big.NewInt(nc.ChainID), common.HexToAddress(nc.Asset), nc.Name, nc.Version)
		if err := reg.Add(n); err != nil {
			return nil, fmt.Errorf("payments.custom_networks[%d]: %w", i, err)
		}
	}
	for _, n := range extra {
		if err := reg.Add(n); err != nil {
			return nil, err
		}
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

// newReplayStore is Redis when configured (replicas share it), else memory.
func newReplayStore(pc PaymentsConfig) (x402.ReplayStore, error) {
	if pc.RedisURL != "" {
		return nil, fmt.Errorf("payments.redis_url: not wired yet")
	}
	return x402.NewMemoryStore(1 << 20), nil
}

// buildSettler makes the configured settler.
func (p *payments) buildSettler(pc PaymentsConfig) error {
	return fmt.Errorf("payments.settler: %q is not wired yet", pc.Settler)
}

// newUpstream makes the model behind one public name.
func newUpstream(mc ModelConfig, opts Options) (responses.Model, error) {
	switch mc.Upstream {
	case "scripted":
		return scripted.New(scripted.Options{Pace: mc.Pace.D(0)}), nil
	case "inprocess":
		if m, ok := opts.Models[mc.Name]; ok {
			return m, nil
		}
		return nil, fmt.Errorf("upstream inprocess: no in-process model named %q", mc.Name)
	case "":
		return nil, fmt.Errorf("upstream is required (scripted, openai or chat)")
	}
	return nil, fmt.Errorf("unknown upstream %q (want scripted, openai or chat)", mc.Upstream)
}
