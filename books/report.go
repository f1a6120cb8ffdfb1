package books

import (
	"context"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// USDC formats atomic units as a decimal USDC string ("0.003").
func USDC(n int64) string { return x402.FormatUSDC(big.NewInt(n)) }

// Figures are the books' numbers for one model (or all of them).
type Figures struct {
	Calls        int64  `json:"calls"`
	PaidCalls    int64  `json:"paid_calls"`
	FreeCalls    int64  `json:"free_calls"`
	Charged      string `json:"charged"`
	Settled      string `json:"settled"`
	SettledCalls int64  `json:"settled_calls"`
	Pending      string `json:"pending"`
	PendingCalls int64  `json:"pending_calls"`
	Failed       string `json:"failed"`
	FailedCalls  int64  `json:"failed_calls"`
	Refunded     string `json:"refunded"`
	Forgiven     string `json:"forgiven"` // failed revenue an operator wrote off (part of Failed)
	Cost         string `json:"cost"`
	// Gas is the relayer's gas in USDC at the configured ETH price ("0"
	// when GasPriced is false); GasWei and GasETH are the same gas as spent.
	Gas       string `json:"gas"`
	GasWei    string `json:"gas_wei"`
	GasETH    string `json:"gas_eth"`
	GasPriced bool   `json:"gas_priced"`
	// Margin is Settled less Cost and Gas.
	Margin    string           `json:"margin"`
	TTFTP50ms *int64           `json:"ttft_p50_ms"`
	TTFTP95ms *int64           `json:"ttft_p95_ms"`
	Refusals  map[string]int64 `json:"refusals"`
	// Wires splits Calls by the client wire they came on (responses, chat,
	// messages).
	Wires map[string]int64 `json:"wires"`
	// Suppliers breaks a pooled model's figures down by the supplier that
	// served its calls.
	Suppliers map[string]*SupplierFigures `json:"suppliers,omitempty"`
	sums      map[string]int64
	pending   int64
}

// SupplierFigures are one supplier's share of a pooled model: the calls
// it served, what they charged, what of it was mined (the transfers whose
// journal entry names the supplier), what the supplier cost, and the
// margin. The model's settled amount is its suppliers' plus what names no
// supplier (a transfer whose call no supplier answered, a batch-settlement
// claim).
type SupplierFigures struct {
	Calls        int64  `json:"calls"`
	PaidCalls    int64  `json:"paid_calls"`
	Charged      string `json:"charged"`
	Settled      string `json:"settled"`
	SettledCalls int64  `json:"settled_calls"`
	Cost         string `json:"cost"`
	Margin       string `json:"margin"`
	sums         map[string]int64
}

func (sf *SupplierFigures) finish(b *Books) {
	s := sf.sums
	sf.Calls, sf.PaidCalls, sf.SettledCalls = s[FCalls], s[FPaid], s[FSettledN]
	sf.Charged, sf.Settled, sf.Cost = USDC(s[FCharged]), USDC(s[FSettled]), USDC(s[FCost])
	sf.Margin = USDC(b.margin(s))
}

// NoFigures are the figures of a model nothing was booked for.
func (b *Books) NoFigures() *Figures { return b.finish(newFigures()) }

func newFigures() *Figures {
	return &Figures{sums: map[string]int64{}, Refusals: map[string]int64{}, Wires: map[string]int64{}}
}

func (f *Figures) add(fields map[string]int64) {
	for k, v := range fields {
		f.sums[k] += v
		if code, ok := strings.CutPrefix(k, prefRefuse); ok {
			f.Refusals[code] += v
		}
		if w, ok := strings.CutPrefix(k, prefWire); ok {
			f.Wires[w] += v
		}
	}
}

// finish turns f's sums into the figures, the gas priced at the books'
// ETH price.
func (b *Books) finish(f *Figures) *Figures {
	s := f.sums
	f.Calls, f.PaidCalls, f.FreeCalls = s[FCalls], s[FPaid], s[FFree]
	f.SettledCalls, f.FailedCalls = s[FSettledN], s[FFailedN]
	f.Charged, f.Settled, f.Failed = USDC(s[FCharged]), USDC(s[FSettled]), USDC(s[FFailed])
	f.Refunded, f.Cost = USDC(s[FRefunded]), USDC(s[FCost])
	wei := GasWei(s)
	f.Gas, f.GasWei, f.GasETH, f.GasPriced = USDC(b.gasOf(s)), wei.String(), ETH(wei), b.cfg.EthPrice != nil
	f.Pending = USDC(f.pending)
	f.Forgiven = USDC(s[FForgiven])
	f.Margin = USDC(b.margin(s))
	f.TTFTP50ms, f.TTFTP95ms = quantile(s, 0.5), quantile(s, 0.95)
	return f
}

// quantile reads the q-quantile of the time to first token from its
// buckets, in milliseconds (the bucket's upper bound); nil when no call
// was timed.
func quantile(s map[string]int64, q float64) *int64 {
	counts := make([]int64, len(TTFTBuckets)+1)
	var n int64
	for i := range counts {
		counts[i] = s[prefTTFT+strconv.Itoa(i)]
		n += counts[i]
	}
	if n == 0 {
		return nil
	}
	rank := int64(q*float64(n) + 0.999999)
	var cum int64
	for i, c := range counts {
		cum += c
		if cum >= rank {
			b := TTFTBuckets[min(i, len(TTFTBuckets)-1)]
			if i == len(TTFTBuckets) {
				b *= 2 // beyond the last bound: report it as "more than"
			}
			ms := b.Milliseconds()
			return &ms
		}
	}
	return nil
}

// Point is one period of the revenue series of one model.
type Point struct {
	Start   time.Time `json:"start"`
	Model   string    `json:"model"`
	Calls   int64     `json:"calls"`
	Charged string    `json:"charged"`
	Settled string    `json:"settled"`
	Cost    string    `json:"cost"`
	Gas     string    `json:"gas"` // USDC, when priced
	GasWei  string    `json:"gas_wei"`
	Margin  string    `json:"margin"`
}

// Summary is GET /admin/api/summary.
type Summary struct {
	From     time.Time           `json:"from"`
	To       time.Time           `json:"to"`
	Currency string              `json:"currency"`
	Models   map[string]*Figures `json:"models"`
	Totals   *Figures            `json:"totals"`
	Series   []Point             `json:"series"`
	By       string              `json:"by"` // the series' period: hour or day
	// GasPriced tells whether gas is priced in USDC (books.eth_price_usdc
	// is set); EthPriceUSDC is that price.
	GasPriced    bool   `json:"gas_priced"`
	EthPriceUSDC string `json:"eth_price_usdc,omitempty"`
}

// Rows returns the stored rows overlapping [from, to), after writing what
// this process recorded.
func (b *Books) Rows(ctx context.Context, from, to time.Time) ([]Row, error) {
	b.Flush()
	return b.cfg.Store.Rows(ctx, from, to)
}

// Summary reports [from, to) per model (all models when model is ""),
// with a series by hour, or by day for ranges over two days.
func (b *Books) Summary(ctx context.Context, from, to time.Time, model string) (*Summary, error) {
	rows, err := b.Rows(ctx, from, to)
	if err != nil {
		return nil, err
	}
	sum := &Summary{From: from, To: to, Currency: "USDC", Models: map[string]*Figures{}, Totals: newFigures(), By: "hour",
		GasPriced: b.cfg.EthPrice != nil}
	if b.cfg.EthPrice != nil {
		sum.EthPriceUSDC = x402.FormatUSDC(b.cfg.EthPrice)
	}
	if to.Sub(from) > 48*time.Hour {
		sum.By = "day"
	}
	type pk struct {
		start time.Time
		model string
	}
	series := map[pk]map[string]int64{}
	for _, r := range rows {
		if model != "" && r.Model != model {
			continue
		}
		if r.Model == "" { // a payer's refund, gas of no model's
			sum.Totals.add(r.Fields)
			continue
		}
		f := sum.Models[r.Model]
		if f == nil {
			f = newFigures()
			sum.Models[r.Model] = f
		}
		f.add(r.Fields)
		if r.Supplier != "" {
			if f.Suppliers == nil {
				f.Suppliers = map[string]*SupplierFigures{}
			}
			sf := f.Suppliers[r.Supplier]
			if sf == nil {
				sf = &SupplierFigures{sums: map[string]int64{}}
				f.Suppliers[r.Supplier] = sf
			}
			for k, v := range r.Fields {
				sf.sums[k] += v
			}
		}
		sum.Totals.add(r.Fields)
		start := r.Start
		if sum.By == "day" {
			start = DayOf(r.Key).Start
		}
		k := pk{start, r.Model}
		if series[k] == nil {
			series[k] = map[string]int64{}
		}
		for n, v := range r.Fields {
			series[k][n] += v
		}
	}
	if err := b.addPending(ctx, sum, model); err != nil {
		return nil, err
	}
	for _, f := range sum.Models {
		for _, sf := range f.Suppliers {
			sf.finish(b)
		}
		b.finish(f)
	}
	b.finish(sum.Totals)
	for k, s := range series {
		sum.Series = append(sum.Series, Point{Start: k.start, Model: k.model, Calls: s[FCalls], Charged: USDC(s[FCharged]),
			Settled: USDC(s[FSettled]), Cost: USDC(s[FCost]), Gas: USDC(b.gasOf(s)), GasWei: GasWei(s).String(),
			Margin: USDC(b.margin(s))})
	}
	sort.Slice(sum.Series, func(i, j int) bool {
		a, c := sum.Series[i], sum.Series[j]
		if !a.Start.Equal(c.Start) {
			return a.Start.Before(c.Start)
		}
		return a.Model < c.Model
	})
	return sum, nil
}

// addPending counts what is in flight now (signed or broadcast, not yet
// mined) from the journal.
func (b *Books) addPending(ctx context.Context, sum *Summary, model string) error {
	entries, err := b.Pending(ctx)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if model != "" && e.Model != model {
			continue
		}
		f := sum.Models[e.Model]
		if f == nil {
			f = newFigures()
			sum.Models[e.Model] = f
		}
		amt := charge(e)
		f.pending += amt
		f.PendingCalls++
		sum.Totals.pending += amt
		sum.Totals.PendingCalls++
	}
	return nil
}

func charge(e *settle.Entry) int64 {
	a := e.Amount
	if e.Charge != nil {
		a = e.Charge
	}
	if a == nil || !a.IsInt64() {
		return 0
	}
	return a.Int64()
}

// Pending lists the journal's purchases whose transfer was signed and not
// yet mined, oldest first.
func (b *Books) Pending(ctx context.Context) ([]*settle.Entry, error) {
	if b.cfg.Journal == nil {
		return nil, nil
	}
	all, err := b.cfg.Journal.Unfinished(ctx)
	if err != nil {
		return nil, err
	}
	var out []*settle.Entry
	for _, e := range all {
		if e.State == settle.Settling || e.State == settle.Broadcast {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// Payer is one payer's line in GET /admin/api/payers.
type Payer struct {
	Payer     string `json:"payer"`
	Calls     int64  `json:"calls"`
	PaidCalls int64  `json:"paid_calls"`
	Charged   string `json:"charged"`
	Settled   string `json:"settled"`
	Failed    string `json:"failed"`
	Owed      string `json:"owed"`
	Forgiven  string `json:"forgiven"`
	// Gas is the relayer's gas for this payer's transfers (and refunds):
	// in USDC when priced, and in wei and ETH.
	Gas     string            `json:"gas"`
	GasWei  string            `json:"gas_wei"`
	GasETH  string            `json:"gas_eth"`
	Debts   []settle.DebtItem `json:"debts,omitempty"`
	charged int64
}

// Payers reports the payers of [from, to), the biggest spenders first,
// with what each owes now (live debts in the journal).
func (b *Books) Payers(ctx context.Context, from, to time.Time, limit int) ([]*Payer, error) {
	rows, err := b.Rows(ctx, from, to)
	if err != nil {
		return nil, err
	}
	sums := map[string]map[string]int64{}
	for _, r := range rows {
		if r.Payer == "" {
			continue
		}
		if sums[r.Payer] == nil {
			sums[r.Payer] = map[string]int64{}
		}
		for k, v := range r.Fields {
			sums[r.Payer][k] += v
		}
	}
	out := make([]*Payer, 0, len(sums))
	for addr, s := range sums {
		wei := GasWei(s)
		p := &Payer{Payer: addr, Calls: s[FCalls], PaidCalls: s[FPaid], Charged: USDC(s[FCharged]),
			Settled: USDC(s[FSettled]), Failed: USDC(s[FFailed]), Owed: "0", Forgiven: USDC(s[FForgiven]), charged: s[FCharged],
			Gas: USDC(b.gasOf(s)), GasWei: wei.String(), GasETH: ETH(wei)}
		if b.cfg.Journal != nil && common.IsHexAddress(addr) {
			items, err := b.cfg.Journal.Debts(ctx, common.HexToAddress(addr))
			if err != nil {
				return nil, err
			}
			owed := new(big.Int)
			now := b.cfg.Now()
			for _, d := range items {
				if d.Live(now) && d.Amount != nil {
					owed.Add(owed, d.Amount)
					p.Debts = append(p.Debts, d)
				}
			}
			p.Owed = x402.FormatUSDC(owed)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].charged != out[j].charged {
			return out[i].charged > out[j].charged
		}
		return out[i].Payer < out[j].Payer
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
