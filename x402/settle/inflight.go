package settle

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/tidwall/gjson"

	"github.com/farebox/farebox/x402"
)

// ShownBalances is Balances that also tells which of a payer's
// authorizations the balance it reads already shows (*evm.Settler), so a
// transfer mined before the follower released its hold counts once, in the
// balance, not also as money in flight.
type ShownBalances interface {
	// BalanceShowing reads who's balance of req's asset at the latest block
	// and, in the same chain state, whether each of nonces (EIP-3009
	// authorizations of who's on that token) is used: it moved what it
	// moves before that balance, or never will.
	BalanceShowing(ctx context.Context, req *x402.Requirement, who common.Address, nonces [][32]byte) (*big.Int, []bool, error)
}

// maxShown bounds how many of a payer's holds one recount looks up: a
// payer with more in flight has the rest counted as held.
const maxShown = 256

// hold counts the purchase against the payer's balance at the latest block.
// A refusal on a fresh read is counted again (recount) without the holds
// whose transfers that balance already shows.
func (e *Engine) hold(ctx context.Context, p *Purchase) error {
	if e.cfg.Balances == nil {
		return nil
	}
	acct := accountOf(p.entry)
	expires := e.cfg.Now().Add(e.cfg.HoldTTL)
	if p.entry.Expires.Before(expires) {
		expires = p.entry.Expires
	}
	if e.bals == nil {
		bal, err := e.cfg.Balances.BalanceOf(ctx, p.Requirement, p.entry.Payer)
		if err != nil {
			return fmt.Errorf("settle: reading the payer's balance: %w", err)
		}
		err = e.cfg.Holds.Hold(ctx, acct, p.name, p.entry.Amount, bal, expires)
		if errors.Is(err, ErrInsufficientFunds) {
			_, err = e.recount(ctx, p, acct, expires)
		}
		return err
	}
	for attempt := 0; ; attempt++ {
		bal, read, fresh, err := e.bals.get(ctx, e.cfg.Balances, p.Requirement, acct)
		if err == nil && !fresh && attempt > 0 {
			bal, read, err = e.bals.read(ctx, e.cfg.Balances, p.Requirement, acct)
			fresh = true
		}
		if err != nil {
			return fmt.Errorf("settle: reading the payer's balance: %w", err)
		}
		err = e.cfg.Holds.Hold(ctx, acct, p.name, p.entry.Amount, bal, expires)
		if errors.Is(err, ErrInsufficientFunds) && fresh {
			read, err = e.recount(ctx, p, acct, expires)
		}
		switch {
		case errors.Is(err, ErrInsufficientFunds) && !fresh:
			continue // refuse only on a fresh read: the payer may have been funded since
		case err != nil:
			return err
		case e.bals.releasedSince(acct, read) && attempt < 3:
			// A transfer of the payer's was mined and its hold released
			// after this balance was read: count again on a newer read.
			if rerr := e.cfg.Holds.Release(ctx, acct, p.name); rerr != nil {
				return rerr
			}
			continue
		}
		return nil
	}
}

// recount holds p against a balance read with the payer's exact holds
// (EIP-3009 authorizations, up to maxShown), leaving out those whose
// authorization is used in the state the balance was read from: their
// transfer is in the balance, and the follower has not released them yet
// (it learns of a block late). A used authorization that moved nothing
// (canceled, or used for another transfer) never will, so leaving it out
// is exact too. It returns when the balance was read; ErrInsufficientFunds
// when the settler cannot tell which authorizations a balance shows.
func (e *Engine) recount(ctx context.Context, p *Purchase, acct Account, expires time.Time) (time.Time, error) {
	start := time.Now()
	sb, ok := e.cfg.Balances.(ShownBalances)
	if !ok {
		return start, ErrInsufficientFunds
	}
	ids, err := e.cfg.Holds.IDs(ctx, acct)
	if err != nil {
		return start, fmt.Errorf("settle: listing the payer's holds: %w", err)
	}
	var held []string
	var nonces [][32]byte
	for _, id := range ids {
		if len(held) == maxShown {
			break
		}
		if id == p.name {
			continue
		}
		if nonce, ok := e.exactHold(ctx, acct, id); ok {
			held, nonces = append(held, id), append(nonces, nonce)
		}
	}
	// With no hold left to look up the recount still reads the balance
	// again: the follower may have released, after the refused hold, the
	// holds of transfers that balance already showed.
	start = time.Now()
	bal, used, err := sb.BalanceShowing(ctx, p.Requirement, acct.Payer, nonces)
	if err != nil {
		return start, fmt.Errorf("settle: reading the payer's balance: %w", err)
	}
	var shown []string
	for i, u := range used {
		if u {
			shown = append(shown, held[i])
		}
	}
	return start, e.cfg.Holds.Hold(ctx, acct, p.name, p.entry.Amount, bal, expires, shown...)
}

// exactHold is the nonce of the hold id of acct when it holds an exact
// payment (an EIP-3009 authorization on the token, whose used state the
// token keeps), per the journal. Another scheme's nonce (upto's Permit2
// nonce) says nothing on the token: a payer could mark it used there and
// still pay through Permit2.
func (e *Engine) exactHold(ctx context.Context, acct Account, id string) ([32]byte, bool) {
	i := strings.LastIndex(id, ":0x")
	if i < 0 {
		return [32]byte{}, false
	}
	nonce, err := hex.DecodeString(id[i+3:])
	if err != nil || len(nonce) != 32 {
		return [32]byte{}, false
	}
	en, err := e.cfg.Journal.Get(ctx, x402.Key{ChainID: acct.ChainID, Asset: acct.Asset, From: acct.Payer, Nonce: [32]byte(nonce)})
	if err != nil || en.Name() != id {
		return [32]byte{}, false
	}
	path := "accepted.scheme"
	if en.Version == 1 {
		path = "scheme"
	}
	return en.Nonce, gjson.GetBytes(en.Payment, path).String() == x402.SchemeExact
}
