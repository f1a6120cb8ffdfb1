package payertest

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
)

// Ledger collects what a transport reports of its paid answers: give a
// transport Ledger.Option() and compare its totals with the chain.
type Ledger struct {
	mu  sync.Mutex
	all []*payer.Settlement
}

// Option is the transport option that feeds the ledger.
func (l *Ledger) Option() payer.Option {
	return payer.OnSettlement(func(s *payer.Settlement) { l.mu.Lock(); l.all = append(l.all, s); l.mu.Unlock() })
}

// Settlements returns every settlement so far.
func (l *Ledger) Settlements() []*payer.Settlement {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*payer.Settlement(nil), l.all...)
}

// Charged lists each answer's charge, -1 where the receipt said none.
func (l *Ledger) Charged() []int64 {
	var out []int64
	for _, s := range l.Settlements() {
		if s.Charged == nil {
			out = append(out, -1)
		} else {
			out = append(out, s.Charged.Int64())
		}
	}
	return out
}

// Totals sums the charges and the deposits.
func (l *Ledger) Totals() (charged, deposited *big.Int) {
	charged, deposited = new(big.Int), new(big.Int)
	for _, s := range l.Settlements() {
		if s.Charged != nil {
			charged.Add(charged, s.Charged)
		}
		if s.Deposited != nil {
			deposited.Add(deposited, s.Deposited)
		}
	}
	return charged, deposited
}

// CheckChannel compares the payer's record of channel id (in store under
// k) with the chain: the channel's on-chain balance must be the recorded
// balance. It returns the record.
func CheckChannel(ctx context.Context, caller ethereum.ContractCaller, c *channel.Contracts, store payer.ChannelStore,
	k payer.ChannelKey, id common.Hash) (*payer.ChannelRecord, error) {
	rec, err := store.Get(k, id)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, fmt.Errorf("payertest: no record of channel %s", id.Hex())
	}
	o, err := c.ReadOnchain(ctx, caller, id)
	if err != nil {
		return nil, err
	}
	if o.Balance.Cmp(rec.Balance) != 0 {
		return rec, fmt.Errorf("payertest: channel %s holds %s on chain, the payer's record %s", id.Hex(), o.Balance, rec.Balance)
	}
	if o.TotalClaimed.Cmp(rec.Charged) > 0 {
		return rec, fmt.Errorf("payertest: channel %s claimed %s on chain, more than the %s the payer was charged", id.Hex(), o.TotalClaimed, rec.Charged)
	}
	return rec, nil
}
