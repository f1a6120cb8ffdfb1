package books

import (
	"bytes"
	"context"
	"encoding/csv"
	"testing"
	"time"
)

// TestExportNeutralisesFormulas: the export's string cells come from
// configs and strangers (a client's model name, a facilitator's payer);
// none may start with what a spreadsheet runs as a formula (= + - @, tab,
// CR), while a negative amount stays a number.
func TestExportNeutralisesFormulas(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	b := New(Config{Store: NewMemoryStore(), Now: func() time.Time { return now }})
	defer b.Close()
	hostile := []string{`=HYPERLINK("http://attacker.example","x")`, "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx"}
	for _, h := range hostile {
		b.RecordCall(Call{Model: h, Payer: h, Reached: true, Paid: true, Charged: 1000, Status: 200})
	}
	b.RecordCall(Call{Model: "plain", Payer: "0xAbC0000000000000000000000000000000000001", Reached: true, Status: 200})
	var out bytes.Buffer
	if err := b.ExportCSV(context.Background(), &out, now.Add(-time.Hour), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < len(hostile)+2 {
		t.Fatalf("%d rows, want at least %d: %q", len(recs), len(hostile)+2, recs)
	}
	seen := 0
	for _, rec := range recs[1:] {
		for i, c := range rec {
			if c == "" {
				continue
			}
			switch c[0] {
			case '=', '+', '@', '\t', '\r':
				t.Errorf("column %s starts a formula: %q", csvHeader[i], c)
			case '-':
				if _, ok := negativeNumber(c); !ok {
					t.Errorf("column %s starts a formula: %q", csvHeader[i], c)
				}
			}
			if c == `'=HYPERLINK("http://attacker.example","x")` {
				seen++
			}
		}
	}
	if seen == 0 {
		t.Errorf("the hostile model name is not kept (quoted) in the export: %q", recs)
	}
}

func negativeNumber(s string) (string, bool) {
	if len(s) < 2 || s[0] != '-' {
		return "", false
	}
	for _, r := range s[1:] {
		if (r < '0' || r > '9') && r != '.' {
			return "", false
		}
	}
	return s, true
}
