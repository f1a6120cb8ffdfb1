package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"
)

// chartColors are the arms' line colours, in arm order.
var chartColors = []string{"#444444", "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e"}

// writeLatencySVG draws, by hand, the latency distribution of every arm
// (non-streaming, concurrency 1) as cumulative curves on one chart: x is
// latency in microseconds (clipped at the slowest arm's p99.5), y the share
// of calls at most that slow. title and note go above and below.
func writeLatencySVG(w io.Writer, results []*LatencyResult, title, note string) error {
	const (
		width, height        = 760, 420
		left, right, top, bt = 70, 190, 40, 70
	)
	pw, ph := float64(width-left-right), float64(height-top-bt)
	var xmax time.Duration
	for _, r := range results {
		s := sortedCopy(r.all)
		xmax = max(xmax, quantile(s, .995))
	}
	if xmax <= 0 {
		xmax = time.Millisecond
	}
	xmaxUs := niceCeil(micros(xmax))
	x := func(us float64) float64 { return float64(left) + math.Min(us/xmaxUs, 1)*pw }
	y := func(q float64) float64 { return float64(top) + (1-q)*ph }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	// Grid and axes.
	for i := 0; i <= 5; i++ {
		us := xmaxUs * float64(i) / 5
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e0e0e0"/>`+"\n", x(us), top, x(us), height-bt)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x(us), height-bt+16, fmtUs(us))
	}
	for _, q := range []float64{0, .25, .5, .75, .9, .99, 1} {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e0e0e0"/>`+"\n", left, y(q), width-right, y(q))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">p%g</text>`+"\n", left-6, y(q)+4, q*100)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">latency per call (client side, loopback)</text>`+"\n", float64(left)+pw/2, height-bt+36)
	// One cumulative curve per arm.
	for i, r := range results {
		s := sortedCopy(r.all)
		if len(s) == 0 {
			continue
		}
		col := chartColors[i%len(chartColors)]
		var pts strings.Builder
		step := max(1, len(s)/400)
		for k := 0; k < len(s); k += step {
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(micros(s[k])), y(float64(k+1)/float64(len(s))))
		}
		fmt.Fprintf(&pts, "%.1f,%.1f", x(micros(s[len(s)-1])), y(1))
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", col, pts.String())
		ly := top + 10 + i*34
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>`+"\n", width-right+12, ly, width-right+32, ly, col)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", width-right+38, ly+4, html.EscapeString(r.Arm))
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#666">p50 %s  p99 %s</text>`+"\n", width-right+38, ly+18,
			fmtUs(micros(quantile(s, .5))), fmtUs(micros(quantile(s, .99))))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#666" font-size="11">%s</text>`+"\n", left, height-12, html.EscapeString(note))
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// fmtUs prints microseconds as "850 µs" or "1.2 ms".
func fmtUs(us float64) string {
	if us >= 1000 {
		return fmt.Sprintf("%.3g ms", us/1000)
	}
	return fmt.Sprintf("%.0f µs", us)
}
