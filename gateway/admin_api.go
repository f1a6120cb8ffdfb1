package gateway

import (
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/labstack/echo/v4"
)

// adminRange reads from and to (RFC 3339, a date, or unix seconds;
// default: the last 24 hours).
func adminRange(c echo.Context) (from, to time.Time, err error) {
	to = time.Now().UTC()
	if v := c.QueryParam("to"); v != "" {
		if to, err = parseAdminTime(v); err != nil {
			return from, to, errAdminParam("to", "to: "+err.Error())
		}
	}
	from = to.Add(-24 * time.Hour)
	if v := c.QueryParam("from"); v != "" {
		if from, err = parseAdminTime(v); err != nil {
			return from, to, errAdminParam("from", "from: "+err.Error())
		}
	}
	if !from.Before(to) {
		return from, to, errAdminParam("from", "from must be before to.")
	}
	return from, to, nil
}

func parseAdminTime(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		return time.Unix(n, 0).UTC(), nil
	}
	return time.Time{}, errInvalidTime
}

var errInvalidTime = &timeError{}

type timeError struct{}

func (*timeError) Error() string {
	return "want an RFC 3339 time (2026-01-02T15:04:05Z), a date (2026-01-02) or unix seconds"
}

// handleAdminSummary serves GET /admin/api/summary: per model, the calls,
// charges, settled (mined), pending, failed, cost and margin of the range.
func (s *Server) handleAdminSummary(c echo.Context) error {
	from, to, err := adminRange(c)
	if err != nil {
		return err
	}
	model := c.QueryParam("model")
	if _, ok := s.routes[model]; model != "" && !ok {
		return errAdminParam("model", "model: no model "+strconv.Quote(model)+" is served.")
	}
	sum, err := s.pay.books.Summary(c.Request().Context(), from, to, model)
	if err != nil {
		return err
	}
	// Every served model has its entry, even before its first call.
	for _, name := range s.order {
		if _, ok := sum.Models[name]; !ok && (model == "" || model == name) {
			sum.Models[name] = s.pay.books.NoFigures()
		}
	}
	return c.JSON(http.StatusOK, sum)
}

// handleAdminPayers serves GET /admin/api/payers: the top payers of the
// range and what each owes.
func (s *Server) handleAdminPayers(c echo.Context) error {
	from, to, err := adminRange(c)
	if err != nil {
		return err
	}
	limit := 50
	if v := c.QueryParam("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > 10000 {
			return errAdminParam("limit", "limit: want a number from 1 to 10000.")
		}
	}
	payers, err := s.pay.books.Payers(c.Request().Context(), from, to, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"from": from, "to": to, "payers": payers})
}

// adminSettlement is one settlement in GET /admin/api/settlements.
type adminSettlement struct {
	Entry       string    `json:"entry"`
	Model       string    `json:"model"`
	Payer       string    `json:"payer"`
	Amount      string    `json:"amount"`
	State       string    `json:"state"`
	Transaction string    `json:"transaction,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Since       time.Time `json:"since"`
	AgeSeconds  int64     `json:"age_seconds"`
}

// handleAdminSettlements serves GET /admin/api/settlements?state=pending
// (signed or broadcast, not yet mined, oldest first) or state=failed
// (failed after the payer was served: the debts of the range's payers).
func (s *Server) handleAdminSettlements(c echo.Context) error {
	ctx := c.Request().Context()
	now := time.Now()
	out := []adminSettlement{}
	switch state := c.QueryParam("state"); state {
	case "", "pending":
		entries, err := s.pay.books.Pending(ctx)
		if err != nil {
			return err
		}
		for _, e := range entries {
			amt := e.Amount
			if e.Charge != nil {
				amt = e.Charge
			}
			st := adminSettlement{Entry: e.Name(), Model: e.Model, Payer: strings.ToLower(e.Payer.Hex()),
				Amount: x402.FormatUSDC(amt), State: string(e.State), Since: e.Created,
				AgeSeconds: int64(now.Sub(e.Created).Seconds())}
			if e.Tx != (common.Hash{}) {
				st.Transaction = e.Tx.Hex()
			}
			out = append(out, st)
		}
		return c.JSON(http.StatusOK, map[string]any{"state": "pending", "settlements": out})
	case "failed":
		from, to, err := adminRange(c)
		if err != nil {
			return err
		}
		payers, err := s.pay.books.Payers(ctx, from, to, 0)
		if err != nil {
			return err
		}
		for _, p := range payers {
			for _, d := range p.Debts {
				out = append(out, adminSettlement{Entry: d.Entry, Payer: p.Payer, Amount: x402.FormatUSDC(d.Amount),
					State: "failed", Reason: d.Reason, Since: d.At, AgeSeconds: int64(now.Sub(d.At).Seconds())})
			}
		}
		return c.JSON(http.StatusOK, map[string]any{"state": "failed", "settlements": out})
	default:
		return errAdminParam("state", "state: want pending or failed.")
	}
}

// handleAdminForgive serves POST /admin/api/debts/{payer}/forgive: the
// payer's debts are cleared, it may pay again, and the books write the
// forgiven amount off. Forgiving a payer who owes nothing is a 200 with
// 0 forgiven, so a second click (or replica) changes nothing.
func (s *Server) handleAdminForgive(c echo.Context) error {
	payer := c.Param("payer")
	if !common.IsHexAddress(payer) {
		return errAdminParam("payer", "payer: "+strconv.Quote(payer)+" is not an address.")
	}
	if s.pay.engine == nil {
		return errAdminParam("payer", "payments are not configured: nobody owes anything.")
	}
	addr := common.HexToAddress(payer)
	items, err := s.pay.engine.Forgive(c.Request().Context(), addr)
	if err != nil {
		return err
	}
	who := strings.ToLower(addr.Hex())
	sum := new(big.Int)
	for _, d := range items {
		sum.Add(sum, d.Amount)
	}
	if s.pay.books != nil {
		s.pay.books.Forgive(who, items)
	}
	return c.JSON(http.StatusOK, map[string]any{"payer": who, "forgiven": x402.FormatUSDC(sum), "debts": len(items)})
}

// handleAdminExport serves GET /admin/api/export.csv: the books' rows of
// the range, for accounting.
func (s *Server) handleAdminExport(c echo.Context) error {
	from, to, err := adminRange(c)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="farebox-books.csv"`)
	c.Response().WriteHeader(http.StatusOK)
	return s.pay.books.ExportCSV(c.Request().Context(), c.Response(), from, to)
}
