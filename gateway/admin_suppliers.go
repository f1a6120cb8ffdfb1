package gateway

import (
	"net/http"
	"sort"
	"time"

	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/labstack/echo/v4"
)

// adminPool is one pooled model in GET /admin/api/suppliers.
type adminPool struct {
	Model           string           `json:"model"`
	Strategy        string           `json:"strategy"`
	Failures        int              `json:"circuit_failures"`
	CooldownSeconds int64            `json:"circuit_cooldown_seconds"`
	Available       int              `json:"available"` // suppliers whose circuit is closed
	Suppliers       []adminSupplier  `json:"suppliers"`
	Outcomes        map[string]int64 `json:"outcomes"` // the suppliers' attempts by outcome, summed
}

// adminSupplier is one supplier's health.
type adminSupplier struct {
	Name            string           `json:"name"`
	Weight          float64          `json:"weight,omitempty"`
	Circuit         string           `json:"circuit"` // "closed" or "open"
	Attempts        map[string]int64 `json:"attempts"`
	OK              int64            `json:"ok"`
	Failed          int64            `json:"failed"` // attempts that failed by the supplier's doing
	LastOK          *time.Time       `json:"last_ok"`
	LastFailure     *time.Time       `json:"last_failure"`
	LastFailureKind string           `json:"last_failure_kind,omitempty"`
	LastError       string           `json:"last_error,omitempty"`
	TTFTms          *int64           `json:"ttft_ms"` // moving average of its time to first token
}

// handleAdminSuppliers serves GET /admin/api/suppliers: for each pooled
// model, each supplier's circuit (shared by replicas when circuits live in
// Redis) and what this process saw of it since it started: attempts by
// outcome, the last success and failure (with its words), its time to
// first token. The books have each supplier's money; this is its health.
func (s *Server) handleAdminSuppliers(c echo.Context) error {
	out := []adminPool{}
	for _, name := range s.order {
		p, ok := s.routes[name].model.(*pool.Pool)
		if !ok {
			continue
		}
		failures, cooldown := p.Circuit()
		ap := adminPool{Model: name, Strategy: s.strategyOf(name), Failures: failures,
			CooldownSeconds: int64(cooldown / time.Second), Suppliers: []adminSupplier{}, Outcomes: map[string]int64{}}
		for _, h := range p.Health(c.Request().Context()) {
			as := adminSupplier{Name: h.Supplier, Weight: h.Weight, Circuit: "closed", Attempts: map[string]int64{},
				LastFailureKind: string(h.LastFailureKind), LastError: upstreamhttp.Truncate(h.LastError, 300)}
			if h.Open {
				as.Circuit = "open"
			} else {
				ap.Available++
			}
			for k, v := range h.Attempts {
				as.Attempts[string(k)] = v
				ap.Outcomes[string(k)] += v
				switch {
				case k == pool.KindOK:
					as.OK += v
				case k.SuppliersFault():
					as.Failed += v
				}
			}
			as.LastOK, as.LastFailure = timeOrNil(h.LastOK), timeOrNil(h.LastFailure)
			if h.TTFT > 0 {
				ms := max(h.TTFT.Milliseconds(), 1)
				as.TTFTms = &ms
			}
			ap.Suppliers = append(ap.Suppliers, as)
		}
		out = append(out, ap)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return c.JSON(http.StatusOK, map[string]any{"pools": out})
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// strategyOf is the routing strategy a pooled model was configured with.
func (s *Server) strategyOf(model string) string {
	for _, mc := range s.cfg.Models {
		if mc.Name == model {
			if mc.Routing.Strategy == "" {
				return "ordered"
			}
			return mc.Routing.Strategy
		}
	}
	return ""
}
