package x402

import (
	"math/big"
	"testing"
)

func TestParseUSDCConvertsExactly(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0", "0"}, {"1", "1000000"}, {"0.001", "1000"}, {"0.000001", "1"}, {".5", "500000"},
		{"12.345678", "12345678"}, {"100000000000", "100000000000000000"}, {"007", "7000000"},
	} {
		got, err := ParseUSDC(tc.in)
		if err != nil {
			t.Fatalf("ParseUSDC(%q): %v", tc.in, err)
		}
		if got.String() != tc.want {
			t.Errorf("ParseUSDC(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestParseUSDCRefusesJunk(t *testing.T) {
	for _, in := range []string{"", "-1", "+1", "1.", ".", "0.0000001", "1e3", "1,5", " 1", "1 ", "0x10", "1.2.3", "NaN", "١"} {
		if got, err := ParseUSDC(in); err == nil {
			t.Errorf("ParseUSDC(%q) = %s, want an error", in, got)
		}
	}
}

func TestFormatUSDCRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		atomic int64
		want   string
	}{
		{0, "0"}, {1, "0.000001"}, {1000, "0.001"}, {1000000, "1"}, {12345678, "12.345678"}, {2500000, "2.5"}, {-1500000, "-1.5"},
	} {
		got := FormatUSDC(big.NewInt(tc.atomic))
		if got != tc.want {
			t.Errorf("FormatUSDC(%d) = %q, want %q", tc.atomic, got, tc.want)
		}
		if tc.atomic >= 0 {
			back, err := ParseUSDC(got)
			if err != nil || back.Int64() != tc.atomic {
				t.Errorf("ParseUSDC(FormatUSDC(%d)) = %v, %v", tc.atomic, back, err)
			}
		}
	}
}
