package gateway

import (
	"fmt"
	"math/big"

	"github.com/farebox/farebox/x402"
)

// BooksConfig is what the books need beyond the journal (books:).
type BooksConfig struct {
	// EthPriceUSDC is what one ETH (the chain's native coin, which pays
	// the relayer's gas) is worth in USDC, e.g. "3000": gas, always booked
	// in wei, is then also priced in USDC, at this price whenever the
	// books are read, and enters the margin. Unset: gas shows in wei and
	// ETH only and the summary says it is unpriced.
	EthPriceUSDC string `yaml:"eth_price_usdc"`
}

// ethPrice is EthPriceUSDC in atomic USDC units per ETH (nil when unset),
// or an error naming the key.
func (bc BooksConfig) ethPrice() (*big.Int, error) {
	if bc.EthPriceUSDC == "" {
		return nil, nil
	}
	p, err := x402.ParseUSDC(bc.EthPriceUSDC)
	if err != nil {
		return nil, fmt.Errorf("books.eth_price_usdc: %w", err)
	}
	if p.Sign() <= 0 {
		return nil, fmt.Errorf("books.eth_price_usdc: must be more than 0 (leave it unset when the price is unknown)")
	}
	return p, nil
}

// books checks the books' config.
func (v *validation) books(bc BooksConfig) {
	if _, err := bc.ethPrice(); err != nil {
		v.errs = append(v.errs, err)
	}
}
