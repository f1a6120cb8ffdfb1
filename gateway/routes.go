package gateway

import (
	"fmt"
	"math/big"
	"sync/atomic"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
)

// route is one public model: its upstream and its price.
type route struct {
	name        string
	model       responses.Model
	price       *big.Int // atomic USDC units; zero = free
	description string

	offer atomic.Pointer[offer] // the last computed offer, by resource URL

	charged atomic.Int64 // atomic units settled for this model's answers
}

// reseller is a model that buys its answers from a paid upstream
// (upstream/x402): what it paid is the other half of the margin.
type reseller interface {
	Spent() (signed, settled *big.Int)
	WalletLow() bool
}

func (rt *route) free() bool { return rt.price.Sign() == 0 }

func (rt *route) appendModel(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, rt.name)
	b = append(b, `,"object":"model","created":0,"owned_by":"farebox","price":{"amount":`...)
	b = appendString(b, x402.FormatUSDC(rt.price))
	b = append(b, `,"currency":"USDC","unit":"call","atomic":`...)
	b = appendString(b, rt.price.String())
	b = append(b, "}}"...)
	return b
}

func (s *Server) buildRoutes(opts Options) error {
	s.routes = make(map[string]*route, len(s.cfg.Models))
	for i, mc := range s.cfg.Models {
		if mc.Name == "" {
			return fmt.Errorf("models[%d]: name is required", i)
		}
		if _, dup := s.routes[mc.Name]; dup {
			return fmt.Errorf("models[%d]: model %q declared twice", i, mc.Name)
		}
		price := new(big.Int)
		if mc.Price != "" {
			p, err := x402.ParseUSDC(mc.Price)
			if err != nil {
				return fmt.Errorf("models[%d] (%s): price: %w", i, mc.Name, err)
			}
			price = p
		}
		if price.Sign() > 0 && !s.pay.enabled() {
			return fmt.Errorf("models[%d] (%s) has a price but payments are not configured (payments.pay_to and payments.networks)", i, mc.Name)
		}
		m, err := s.newUpstream(mc, opts)
		if err != nil {
			return fmt.Errorf("models[%d] (%s): %w", i, mc.Name, err)
		}
		desc := mc.Description
		if desc == "" {
			desc = "One call to " + mc.Name + " for " + x402.FormatUSDC(price) + " USDC"
		}
		s.routes[mc.Name] = &route{name: mc.Name, model: m, price: price, description: desc}
		s.order = append(s.order, mc.Name)
	}
	return nil
}
