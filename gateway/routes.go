package gateway

import (
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/farebox/farebox/charge"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/x402"
)

// route is one public model: its upstream and its price.
type route struct {
	name        string
	model       responses.Model
	price       *big.Int    // atomic USDC units; zero = free; per token: the ceiling per call
	perToken    *tokenPrice // nil: priced per call
	description string
	limits      *limits // what one call may ask of the upstream; nil: nothing bounded
	created     int64   // unix seconds, for GET /v1/models

	// product is the model as the paid call sells it (its offer, what
	// it charged).
	product *charge.Product

	costs map[string]*upCost // a call's upstream cost by supplier ("" for one upstream); nil: none known
}

// reseller is a model that buys its answers from a paid upstream
// (upstream/resell): what it paid is the other half of the margin.
type reseller interface {
	Spent() (signed, settled *big.Int)
	WalletLow() bool
}

func (rt *route) free() bool { return rt.price.Sign() == 0 }

// newProduct is rt as the paid call sells it.
func (rt *route) newProduct() *charge.Product {
	p := &charge.Product{Name: rt.name, Model: rt.model, Price: rt.price, Description: rt.description,
		Extensions: discoveryExtension(rt)}
	if rt.perToken != nil {
		p.PerToken = rt.perToken
	}
	_, p.Resold = rt.model.(reseller)
	if _, pooled := rt.model.(*pool.Pool); pooled {
		p.Served = pool.WithServed
	}
	return p
}

func (rt *route) appendModel(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, rt.name)
	b = append(b, `,"object":"model","created":`...)
	b = strconv.AppendInt(b, rt.created, 10)
	b = append(b, `,"owned_by":"farebox","price":{`...)
	if tp := rt.perToken; tp != nil {
		b = append(b, `"currency":"USDC","unit":"token","input_per_mtok":`...)
		b = appendString(b, x402.FormatUSDC(tp.input))
		b = append(b, `,"cache_read_per_mtok":`...)
		b = appendString(b, x402.FormatUSDC(tp.cacheRead))
		b = append(b, `,"cache_write_per_mtok":`...)
		b = appendString(b, x402.FormatUSDC(tp.cacheWrite))
		b = append(b, `,"output_per_mtok":`...)
		b = appendString(b, x402.FormatUSDC(tp.output))
		b = append(b, `,"max_per_call":`...)
		b = appendString(b, x402.FormatUSDC(tp.ceiling))
		b = append(b, `,"input_atomic_per_mtok":`...)
		b = appendString(b, tp.input.String())
		b = append(b, `,"output_atomic_per_mtok":`...)
		b = appendString(b, tp.output.String())
		b = append(b, `,"max_atomic_per_call":`...)
		b = appendString(b, tp.ceiling.String())
		return append(b, "}}"...)
	}
	b = append(b, `"amount":`...)
	b = appendString(b, x402.FormatUSDC(rt.price))
	b = append(b, `,"currency":"USDC","unit":"call","atomic":`...)
	b = appendString(b, rt.price.String())
	b = append(b, "}}"...)
	return b
}

func (s *Server) buildRoutes(opts Options) error {
	s.routes = make(map[string]*route, len(s.cfg.Models))
	loaded := time.Now().Unix()
	for i, mc := range s.cfg.Models {
		if mc.Name == "" {
			return fmt.Errorf("models[%d]: name is required", i)
		}
		if _, dup := s.routes[mc.Name]; dup {
			return fmt.Errorf("models[%d]: model %q declared twice", i, mc.Name)
		}
		price := new(big.Int)
		var perToken *tokenPrice
		if mc.PricePerMTok != nil {
			if mc.Price != "" {
				return fmt.Errorf("models[%d] (%s): price and price_per_mtok are exclusive: a model is priced per call or per token", i, mc.Name)
			}
			tp, err := parseTokenPrice(mc.PricePerMTok)
			if err != nil {
				return fmt.Errorf("models[%d] (%s): %w", i, mc.Name, err)
			}
			perToken, price = tp, tp.ceiling
		}
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
		created, err := modelCreated(mc.Created, loaded)
		if err != nil {
			return fmt.Errorf("models[%d] (%s): %w", i, mc.Name, err)
		}
		m, err := s.newModel(mc, opts)
		if err != nil {
			return fmt.Errorf("models[%d] (%s): %w", i, mc.Name, err)
		}
		desc := mc.Description
		if desc == "" {
			desc = "One call to " + mc.Name + " for " + x402.FormatUSDC(price) + " USDC"
			if perToken != nil {
				desc = "One call to " + mc.Name + ", charged per token, at most " + x402.FormatUSDC(price) + " USDC"
			}
		}
		lim, err := buildLimits(mc, s.cfg.EndUsers, opts.getenv())
		if err != nil {
			return fmt.Errorf("models[%d] (%s): %w", i, mc.Name, err)
		}
		costs, err := routeCosts(mc)
		if err != nil {
			return fmt.Errorf("models[%d] (%s): %w", i, mc.Name, err)
		}
		rt := &route{name: mc.Name, model: m, price: price, perToken: perToken, description: desc, limits: lim,
			created: created, costs: costs}
		rt.product = rt.newProduct()
		s.routes[mc.Name] = rt
		s.order = append(s.order, mc.Name)
	}
	return nil
}

// modelCreated is a model's "created" time: the configured date, else
// loaded (when the configuration was loaded).
func modelCreated(v string, loaded int64) (int64, error) {
	if v == "" {
		return loaded, nil
	}
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.Unix(), nil
		}
	}
	return 0, fmt.Errorf("created: %q is neither a date (2026-01-31) nor an RFC 3339 time", v)
}
