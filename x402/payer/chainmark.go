package payer

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/farebox/farebox/x402/channel"
	"github.com/tidwall/gjson"
)

// ChainMark names the chain a channel record lives on, as far as the
// client can tell: the deployment from the offer (chain id, settlement
// contract, token) always, and the genesis block's hash when it has a
// chain to ask. A dev chain is new on every start at the same addresses,
// which only its genesis (or the server's view of the channel) tells apart.
type ChainMark struct {
	Deployment string `json:"deployment"`
	Genesis    string `json:"genesis,omitempty"`
}

// differs reports whether m and o are provably other chains: their
// deployments differ, or both know a genesis and those differ.
func (m *ChainMark) differs(o *ChainMark) bool {
	if m == nil || o == nil {
		return false
	}
	return m.Deployment != o.Deployment || (m.Genesis != "" && o.Genesis != "" && m.Genesis != o.Genesis)
}

// chainMark is the mark of the chain b's channel lives on; the genesis is
// read once per transport (one RPC request) and only with WithChain.
func (t *Transport) chainMark(ctx context.Context, b *batchBuy) *ChainMark {
	m := &ChainMark{Deployment: strings.ToLower(fmt.Sprintf("%s/%s/%s", b.contracts.ChainID, b.contracts.Settlement.Hex(), b.cfg.Token.Hex()))}
	if t.chain == nil {
		return m
	}
	t.mu.Lock()
	g := t.genesis
	t.mu.Unlock()
	if g == "" {
		h, err := t.chain.HeaderByNumber(ctx, big.NewInt(0))
		if err != nil {
			return m // unknown: judged by the deployment alone
		}
		g = h.Hash().Hex()
		t.mu.Lock()
		t.genesis = g
		t.mu.Unlock()
	}
	m.Genesis = g
	return m
}

// setAside moves rec out of b's live records, kept in the store (a
// channel on a chain that is gone, or that the server does not know).
func (t *Transport) setAside(b *batchBuy, rec *ChannelRecord, why string) error {
	if err := t.store.SetAside(b.key, rec); err != nil {
		return err
	}
	if t.onRefusal != nil {
		t.onRefusal(fmt.Errorf("payer: channel %s set aside (%s); the next payment deposits again", rec.ChannelID.Hex(), why))
	}
	return nil
}

// channelGone reports whether a corrective 402 shows b's channel empty and
// never claimed on the server's chain while rec holds a deposit: without a
// chain to ask, that is how a restarted dev chain (or any other chain at
// the same addresses) shows. Starting over costs the payer a deposit at
// most (still its money, in escrow), never a charge it did not sign.
func channelGone(b *batchBuy, rec *ChannelRecord, pr *paymentRequired) bool {
	if rec.Balance.Sign() <= 0 || pr == nil {
		return false
	}
	for i := range pr.offers {
		o := &pr.offers[i]
		if o.Scheme != channel.Scheme {
			continue
		}
		cs := o.extra.Get("channelState")
		if !cs.Exists() || !strings.EqualFold(cs.Get("channelId").String(), b.id.Hex()) || o.extra.Get("voucherState").Exists() {
			continue
		}
		if zero(cs.Get("balance")) && zero(cs.Get("totalClaimed")) {
			return true
		}
	}
	return false
}

// zero reports whether an amount field is present and zero.
func zero(r gjson.Result) bool {
	a := atomic(r.String())
	return r.Exists() && a != nil && a.Sign() == 0
}
