package books

// This file prices the relayer's gas: kept in wei, shown in ETH, and in
// USDC when the operator states what an ETH is worth.

import (
	"math/big"
	"strings"
)

// ETH formats wei as a decimal ETH string ("0.000043"), trailing zeros
// trimmed.
func ETH(wei *big.Int) string {
	const decimals = 18
	if wei == nil || wei.Sign() == 0 {
		return "0"
	}
	digits := new(big.Int).Abs(wei).String()
	if len(digits) <= decimals {
		digits = strings.Repeat("0", decimals-len(digits)+1) + digits
	}
	out := digits[:len(digits)-decimals]
	if frac := strings.TrimRight(digits[len(digits)-decimals:], "0"); frac != "" {
		out += "." + frac
	}
	if wei.Sign() < 0 {
		out = "-" + out
	}
	return out
}

var weiPerETH = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

// GasUSDC is what wei of gas is worth in atomic USDC units at price
// (atomic USDC per ETH), rounded to the nearest unit; 0 when price is nil.
func GasUSDC(wei, price *big.Int) int64 {
	if price == nil || wei == nil || wei.Sign() <= 0 {
		return 0
	}
	v := new(big.Int).Mul(wei, price)
	v.Add(v, new(big.Int).Rsh(weiPerETH, 1))
	v.Quo(v, weiPerETH)
	if !v.IsInt64() {
		return 0
	}
	return v.Int64()
}

// gasOf is what the gas of fields is worth in atomic USDC at the books'
// price (0 when unpriced).
func (b *Books) gasOf(fields map[string]int64) int64 {
	return GasUSDC(GasWei(fields), b.cfg.EthPrice)
}

// margin is what the operator keeps: settled revenue less the upstream's
// cost and the gas, when priced (a refund returns a deposit the payer had
// not spent: it is no revenue given back).
func (b *Books) margin(s map[string]int64) int64 { return s[FSettled] - s[FCost] - b.gasOf(s) }
