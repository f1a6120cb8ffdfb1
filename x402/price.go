package x402

import (
	"errors"
	"math/big"
	"strings"
)

// USDCDecimals is the number of decimals of USDC: 1 USDC = 1_000_000 atomic units.
const USDCDecimals = 6

// maxPriceDigits bounds the integer part of a price so a config typo cannot
// produce an amount no token could ever hold (uint256 has 78 digits).
const maxPriceDigits = 60

// ParseUSDC converts a decimal USDC amount such as "0.001" or "12" into atomic
// units exactly, without floating point. It refuses signs, exponents, more
// than six decimals and anything that is not plain digits with one optional dot.
func ParseUSDC(s string) (*big.Int, error) {
	if s == "" {
		return nil, errors.New("x402: empty USDC amount")
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if hasDot && frac == "" {
		return nil, errors.New("x402: USDC amount " + quote(s) + " ends with a dot")
	}
	if whole == "" && !hasDot {
		return nil, errors.New("x402: empty USDC amount")
	}
	if whole == "" {
		whole = "0"
	}
	if !allDigits(whole) || !allDigits(frac) {
		return nil, errors.New("x402: USDC amount " + quote(s) + " is not a non-negative decimal number")
	}
	if len(frac) > USDCDecimals {
		return nil, errors.New("x402: USDC amount " + quote(s) + " has more than 6 decimals")
	}
	if len(whole) > maxPriceDigits {
		return nil, errors.New("x402: USDC amount " + quote(s) + " is too large")
	}
	digits := whole + frac + strings.Repeat("0", USDCDecimals-len(frac))
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, errors.New("x402: USDC amount " + quote(s) + " is not a number")
	}
	return n, nil
}

// FormatUSDC prints atomic units as a decimal USDC amount with the trailing
// zeros of the fraction removed ("1000" -> "0.001", "2000000" -> "2").
func FormatUSDC(n *big.Int) string {
	if n == nil {
		return "0"
	}
	neg := n.Sign() < 0
	digits := new(big.Int).Abs(n).String()
	if len(digits) <= USDCDecimals {
		digits = strings.Repeat("0", USDCDecimals-len(digits)+1) + digits
	}
	whole := digits[:len(digits)-USDCDecimals]
	frac := strings.TrimRight(digits[len(digits)-USDCDecimals:], "0")
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return "\"" + s + "\""
}
