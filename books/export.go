package books

import (
	"context"
	"encoding/csv"
	"io"
	"strconv"
	"time"
)

// csvHeader is the export's header: one line per row of the books.
var csvHeader = []string{"period", "start", "model", "supplier", "payer", "calls", "paid_calls", "free_calls",
	"charged_usdc", "settled_usdc", "settled_calls", "failed_usdc", "failed_calls", "refunded_usdc", "cost_usdc",
	"gas_wei", "gas_eth", "gas_usdc", "margin_usdc", "forgiven_usdc"}

// ExportCSV writes the rows of [from, to) as CSV, for accounting: amounts
// in decimal USDC, the relayer's gas in wei and ETH (and in USDC at the
// configured ETH price, else 0), one line per period, model, supplier and
// payer.
func (b *Books) ExportCSV(ctx context.Context, w io.Writer, from, to time.Time) error {
	rows, err := b.Rows(ctx, from, to)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range rows {
		f := r.Fields
		period := "hour"
		if r.Day {
			period = "day"
		}
		rec := []string{period, r.Start.Format(time.RFC3339), cell(r.Model), cell(r.Supplier), cell(r.Payer), n(f[FCalls]), n(f[FPaid]),
			n(f[FFree]), USDC(f[FCharged]), USDC(f[FSettled]), n(f[FSettledN]), USDC(f[FFailed]), n(f[FFailedN]),
			USDC(f[FRefunded]), USDC(f[FCost]), GasWei(f).String(), ETH(GasWei(f)), USDC(b.gasOf(f)), USDC(b.margin(f)),
			USDC(f[FForgiven])}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// cell neutralises a string column a spreadsheet would run as a formula:
// the model, supplier and payer come from configs and from strangers (a
// facilitator's payer, a client's model name), and a cell starting with
// = + - @, a tab or a CR is a formula to Excel, LibreOffice and Sheets
// (OWASP's CSV injection advice: prefix a single quote). Amounts are
// written by this package and never start so, except a negative number,
// which stays a number.
func cell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}
