package payer

import (
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// usdcDecimals are the decimals every limit is given in.
const usdcDecimals = 6

// DefaultMaxWithdrawDelay is the longest batch-settlement withdraw delay
// the transport accepts unless WithMaxWithdrawDelay says otherwise: the
// time a deposit can stay locked if the seller stops answering (the
// reseller's max_upstream_withdraw_delay default).
const DefaultMaxWithdrawDelay = 24 * time.Hour

// WithMaxWithdrawDelay bounds the withdraw delay of the channels the
// transport deposits into; a seller asking for more is refused before
// anything is signed.
func WithMaxWithdrawDelay(d time.Duration) Option { return func(t *Transport) { t.maxDelay = d } }

// WithTokenDecimals says how many decimals the token asset on the network
// caip2 has (read from the chain, say): every limit (spend cap, deposit
// cap, budget) is in USDC units, and amounts of this token are converted
// before they are compared. A token of WithNetworks not named here is
// taken to have USDC's 6 decimals, so only networks whose token is known
// belong in WithNetworks.
func WithTokenDecimals(caip2 string, asset common.Address, decimals uint8) Option {
	return func(t *Transport) {
		if t.decimals == nil {
			t.decimals = map[string]uint8{}
		}
		t.decimals[tokenKey(caip2, asset)] = decimals
	}
}

func tokenKey(caip2 string, asset common.Address) string {
	return caip2 + "/" + strings.ToLower(asset.Hex())
}

// decimalsOf is the decimals of net's token (6 unless told otherwise).
func (t *Transport) decimalsOf(net *x402.Network) int {
	if net == nil || t.decimals == nil {
		return usdcDecimals
	}
	if d, ok := t.decimals[tokenKey(net.CAIP2, net.Asset)]; ok {
		return int(d)
	}
	return usdcDecimals
}

// inUSDC converts amount of net's token into USDC atomic units, rounding
// up: a limit is never passed by rounding.
func (t *Transport) inUSDC(net *x402.Network, amount *big.Int) *big.Int {
	d := t.decimalsOf(net)
	switch {
	case d == usdcDecimals:
		return new(big.Int).Set(amount)
	case d > usdcDecimals:
		scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d-usdcDecimals)), nil)
		q, r := new(big.Int).QuoRem(amount, scale, new(big.Int))
		if r.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		return q
	default:
		scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(usdcDecimals-d)), nil)
		return new(big.Int).Mul(amount, scale)
	}
}

// fromUSDC converts a limit in USDC atomic units into net's token units,
// rounding down.
func (t *Transport) fromUSDC(net *x402.Network, limit *big.Int) *big.Int {
	d := t.decimalsOf(net)
	switch {
	case d == usdcDecimals:
		return new(big.Int).Set(limit)
	case d > usdcDecimals:
		scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d-usdcDecimals)), nil)
		return new(big.Int).Mul(limit, scale)
	default:
		scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(usdcDecimals-d)), nil)
		return new(big.Int).Quo(limit, scale)
	}
}
