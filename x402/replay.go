package x402

import "time"

// Key identifies this payment's authorization for replay protection on n:
// (chainId, asset, from, nonce), never the malleable signature.
func (p *Payment) Key(n *Network) Key {
	return Key{ChainID: n.ChainID.String(), Asset: n.Asset, From: p.Authorization.From, Nonce: p.Authorization.Nonce}
}

// Expires is when the authorization stops being valid on chain: the moment
// its journal entry may be forgotten.
func (a *Authorization) Expires() time.Time {
	if a.ValidBefore == nil || !a.ValidBefore.IsInt64() {
		return time.Unix(1<<62, 0)
	}
	return time.Unix(a.ValidBefore.Int64(), 0)
}
