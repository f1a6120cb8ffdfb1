package resell

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// How long a seller's price is trusted, and how long a seller that could
// not be asked is left alone before it is asked again.
const (
	offerTTL       = 5 * time.Minute
	offerRetry     = 10 * time.Second
	offerTimeout   = 5 * time.Second
	offerBodyLimit = 64 << 10
)

// offerCache is the seller's last known price per call.
type offerCache struct {
	price *big.Int
	err   error
	at    time.Time
}

// Offer is what one call costs at this seller now, in atomic USDC: the
// amount of the last 402 it answered (every purchase refreshes it, a
// purchase refused for its price included), else read from the 402 of an
// unpaid request. A pool ranks sellers by it under strategy cheapest.
func (m *Model) Offer(ctx context.Context) (*big.Int, error) {
	now := m.cfg.Now()
	m.mu.Lock()
	c := m.offer
	m.mu.Unlock()
	if c.price != nil && now.Sub(c.at) < offerTTL {
		return c.price, nil
	}
	if c.err != nil && now.Sub(c.at) < offerRetry {
		return nil, c.err
	}
	price, err := m.askPrice(ctx)
	m.mu.Lock()
	m.offer = offerCache{price: price, err: err, at: now}
	m.mu.Unlock()
	return price, err
}

// sawPrice records the price of a 402 the wallet is asked to pay.
func (m *Model) sawPrice(amount *big.Int) {
	m.mu.Lock()
	m.offer = offerCache{price: new(big.Int).Set(amount), at: m.cfg.Now()}
	m.mu.Unlock()
}

// askPrice sends the seller an unpaid request and reads the cheapest offer
// of its 402 on a network the wallet pays on.
func (m *Model) askPrice(ctx context.Context) (*big.Int, error) {
	ctx, cancel := context.WithTimeout(ctx, offerTimeout)
	defer cancel()
	// The probe is sent as a purchase is (its headers, a request of the
	// same shape): a seller that told it apart could quote low to it and
	// high to the calls it is then chosen for.
	body, _ := json.Marshal(map[string]any{"model": m.cfg.Model, "stream": true, "store": false,
		"input": []any{map[string]any{"type": "message", "role": "user",
			"content": []any{map[string]any{"type": "input_text", "text": "Hello! What can you do?"}}}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(m.cfg.BaseURL, "/")+"/responses", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("User-Agent", "farebox")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("asking the seller's price: %w", err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, offerBodyLimit))
	if res.StatusCode != http.StatusPaymentRequired {
		return nil, fmt.Errorf("asking the seller's price: answered %d, not 402", res.StatusCode)
	}
	offers, err := x402.DecodePaymentRequired(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil {
		if offers, err = x402.DecodeV1Offers(raw); err != nil {
			return nil, err
		}
	}
	var best *big.Int
	for _, o := range offers {
		if !m.pays(o) {
			continue
		}
		a, ok := new(big.Int).SetString(o.Amount, 10)
		if ok && a.Sign() > 0 && (best == nil || a.Cmp(best) < 0) {
			best = a
		}
	}
	if best == nil {
		return nil, errors.New("the seller's 402 has no offer on a network and token this wallet pays with")
	}
	return best, nil
}

// pays reports an offer the wallet would pay: on one of its networks and
// in that network's token (an offer of the same amount in another token
// is no price of a USDC call).
func (m *Model) pays(o x402.Offer) bool {
	if m.cfg.Networks == nil {
		return true
	}
	n := m.cfg.Networks.Lookup(o.Version, o.Network)
	return n != nil && common.IsHexAddress(o.Asset) && common.HexToAddress(o.Asset) == n.Asset
}
