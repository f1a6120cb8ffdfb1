package service

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/channel"
)

// resolveWait bounds the wait for a claim a previous process journaled.
const resolveWait = 30 * time.Second

// claimerLock is the store lock only one replica's claimer holds at a time.
const claimerLock = "claimer"

// ClaimResult is what one claim round sent.
type ClaimResult struct {
	Reason string        // the policy's reason (channel.Claim*), or "now" for ClaimNow
	Txs    []common.Hash // one claim-and-settle transaction per receiver and token
	// Channels is how many channels were claimed; Claimed the sum of their increments.
	Channels int
	Claimed  *big.Int
}

// RunClaims claims on the policy until ctx ends: it looks at the channels
// every ClaimPoll (or when the policy names an earlier time), mirrors them
// from chain so a pending withdrawal is seen, and claims when the policy
// says so (interval, threshold, or a withdrawal whose delay is about to
// run out). With a shared store only the replica holding the claimer lock
// claims. Failures are logged and retried on the next round.
func (s *Service) RunClaims(ctx context.Context) {
	for {
		next := s.claimRound(ctx)
		wait := s.cfg.ClaimPoll
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(s.cfg.Now()), 10*time.Millisecond))
		}
		s.nextLook.Store(s.cfg.Now().Add(wait).UnixNano())
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// claimRound is one look of RunClaims; it returns when to look again (zero: ClaimPoll).
func (s *Service) claimRound(ctx context.Context) time.Time {
	unlock, err := s.cfg.Store.TryLock(ctx, claimerLock, s.cfg.LockTTL)
	if err != nil {
		return time.Time{} // another replica claims, or the store is down
	}
	defer unlock()
	s.sweepPending(ctx)
	if err := s.resolveClaims(ctx); err != nil {
		s.log.Warn("channel: resolving in-flight claims", "err", err)
		return time.Time{}
	}
	states, err := s.candidates(ctx, true)
	if err != nil {
		s.log.Warn("channel: reading channels to claim", "err", err)
		return time.Time{}
	}
	d := s.cfg.Policy.Decide(s.cfg.Now(), s.intervalFrom(), states)
	if d.Reason == channel.ClaimNone {
		return d.Next
	}
	if _, err := s.claim(ctx, d.Reason, d.Channels); err != nil {
		s.log.Warn("channel: claim failed", "reason", d.Reason, "err", err)
	}
	return time.Time{}
}

// LastClaim is when this process last sent a claim (zero: not yet).
func (s *Service) LastClaim() time.Time {
	if n := s.lastClaim.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// intervalFrom is when the claim interval started: the last claim, else
// the service's start (what a crashed process left unclaimed waits one
// interval; a withdrawal still claims it in time).
func (s *Service) intervalFrom() time.Time {
	if last := s.LastClaim(); !last.IsZero() {
		return last
	}
	return s.started
}

// ClaimNow claims every channel with unclaimed charges at once, whatever
// the policy, and sweeps them to the receiver: for shutdown and tests. It
// waits for the claimer lock while another round runs.
func (s *Service) ClaimNow(ctx context.Context) (*ClaimResult, error) {
	var unlock func()
	for {
		var err error
		if unlock, err = s.cfg.Store.TryLock(ctx, claimerLock, s.cfg.LockTTL); err == nil {
			break
		} else if !errors.Is(err, ErrLocked) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	defer unlock()
	if err := s.resolveClaims(ctx); err != nil {
		return nil, err
	}
	states, err := s.candidates(ctx, false)
	if err != nil {
		return nil, err
	}
	res, err := s.claim(ctx, "now", states)
	s.sweepPending(ctx)
	return res, err
}

// sweepPending retries the sweeps a Sweeper backend owes (logged on failure).
func (s *Service) sweepPending(ctx context.Context) {
	if sw, ok := s.cfg.Backend.(Sweeper); ok {
		if err := sw.SweepPending(ctx); err != nil {
			s.log.Warn("channel: sweeping claimed funds to the receiver", "err", err)
		}
	}
}

// candidates lists the channels with a voucher, their on-chain fields
// read again when stale (all of them when fresh is false), so rows are
// capped at current balances and withdrawals are seen.
func (s *Service) candidates(ctx context.Context, keepFresh bool) ([]*channel.State, error) {
	recs, err := s.cfg.Store.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []*channel.State
	for _, r := range recs {
		st := r.State
		if r.Quarantine != nil || len(st.Signature) == 0 || st.Charged.Cmp(st.TotalClaimed) <= 0 {
			continue
		}
		if !keepFresh || !st.Fresh(s.cfg.Now(), s.cfg.MaxStaleness) {
			m, err := s.mirror(ctx, st)
			if err != nil {
				return nil, err
			}
			s.storeMirror(ctx, m)
			st = m
		}
		out = append(out, st)
	}
	return out, nil
}

// storeMirror records fresh on-chain fields without the channel's lock
// (a request must not be refused busy for the claimer's sake): a request
// under way on the channel merges them at its commit (save).
func (s *Service) storeMirror(ctx context.Context, m *channel.State) {
	rec, err := s.cfg.Store.Get(ctx, m.ChannelID)
	if err != nil || rec == nil || rec.Deposit != nil || rec.State.OnchainSyncedAt.After(m.OnchainSyncedAt) {
		return
	}
	o := m.Onchain
	rec.State = rec.State.Mirror(o, m.OnchainSyncedAt)
	_ = s.cfg.Store.Put(ctx, rec, rec.Rev)
}

// claim sends one claim-and-settle transaction per (receiver, token) for
// the channels' rows, journaled before broadcast, awaits each and mirrors
// the claimed channels.
func (s *Service) claim(ctx context.Context, reason string, states []*channel.State) (*ClaimResult, error) {
	res := &ClaimResult{Reason: reason, Claimed: new(big.Int)}
	groups := map[string][]*channel.State{}
	for _, st := range states {
		if st.Config.Receiver != s.cfg.Receiver {
			continue // not ours to sweep (the requirement's payTo changed)
		}
		if st.Config.ReceiverAuthorizer != s.terms.ReceiverAuthorizer {
			// Opened under another authorizer (a facilitator switched): its
			// row would make the whole batch revert or be refused.
			s.log.Warn("channel: not claimable by this receiver authorizer; claim it with the old one",
				"channel", channelKey(st.ChannelID), "authorizer", st.Config.ReceiverAuthorizer.Hex(), "unclaimed", st.Unclaimed().String())
			continue
		}
		k := st.Config.Receiver.Hex() + "/" + st.Config.Token.Hex()
		groups[k] = append(groups[k], st)
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	for _, k := range keys {
		if err := s.claimGroup(ctx, k, groups[k], res); err != nil {
			s.stats.claimFailures.Add(1)
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 && len(res.Txs) > 0 {
		// Only a claim that went through restarts the interval: a failed
		// one (its facilitator down) is sent again at the next look.
		s.lastClaim.Store(s.cfg.Now().UnixNano())
	}
	return res, errors.Join(errs...)
}

// claimGroup claims one (receiver, token) group. Every channel is read
// again right before (a withdrawal finalized since the last read drops
// its row), the rows are simulated together and, when that fails, bisected
// so the failing rows stay out and the rest is claimed at once (a channel
// whose voucher the contract refuses is quarantined). The payer-authorizer
// rows go in one transaction; each contract-wallet row goes in its own,
// so a wallet that answers the contract differently when it is mined than
// when it was simulated sinks only its own claim.
func (s *Service) claimGroup(ctx context.Context, key string, states []*channel.State, res *ClaimResult) error {
	return s.claimFresh(ctx, key, states, res, false)
}

func (s *Service) claimFresh(ctx context.Context, key string, states []*channel.State, res *ClaimResult, again bool) error {
	good, err := s.preflight(ctx, s.refresh(ctx, states))
	if err != nil {
		return err
	}
	var batch, wallets []*channel.State
	for _, st := range good {
		if isWallet(st) {
			wallets = append(wallets, st)
		} else {
			batch = append(batch, st)
		}
	}
	var errs []error
	send := func(key string, states []*channel.State) {
		simulated, err := s.sendClaim(ctx, key, states, res)
		if err != nil && simulated && !again {
			// The chain moved between the simulation and the send (a
			// withdrawal finalized): read it again and claim what is left.
			err = s.claimFresh(ctx, key, states, res, true)
		} else if err != nil && len(states) == 1 {
			s.classify(ctx, states[0])
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(batch) > 0 {
		send(key, batch)
	}
	for _, st := range wallets {
		send(key+"/"+channelKey(st.ChannelID), []*channel.State{st})
	}
	return errors.Join(errs...)
}

// sendClaim sends the rows of states in one claim-and-settle transaction;
// simulated reports a failure in the send's own simulation (nothing sent).
func (s *Service) sendClaim(ctx context.Context, key string, states []*channel.State, res *ClaimResult) (simulated bool, _ error) {
	rows := channel.Claims(states)
	if len(rows) == 0 {
		return false, nil
	}
	rec := &ClaimRecord{Key: key, Total: "0"}
	total := new(big.Int)
	for _, st := range states {
		if st.Unclaimed().Sign() > 0 && len(st.Signature) > 0 {
			rec.Channels = append(rec.Channels, channelKey(st.ChannelID))
			total.Add(total, st.Unclaimed())
		}
	}
	rec.Total = total.String()
	first := states[0].Config
	journal := func(tx common.Hash) error {
		rec.Tx, rec.SignedAt = tx, s.cfg.Now().UnixMilli()
		return s.cfg.Store.PutClaim(ctx, rec)
	}
	tx, err := s.cfg.Backend.Claim(ctx, rows, first.Receiver, first.Token, journal)
	if tx == (common.Hash{}) {
		tx = rec.Tx
	}
	if err != nil {
		var ce *channel.Error
		if errors.As(err, &ce) {
			s.forgetClaim(ctx, rec)
			return false, err
		}
		switch st, _ := stage(err); st {
		case StageSimulate:
			s.forgetClaim(ctx, rec)
			return true, &channel.Error{Reason: channel.ReasonClaimSimulationFailed, Message: err.Error()}
		case StageSend:
			s.forgetClaim(ctx, rec)
			return false, &channel.Error{Reason: channel.ReasonClaimTransactionFailed, Message: err.Error()}
		case StageWait:
			// Journaled: resolveClaims finishes it on the next round (with
			// the hash a facilitator named only in its answer).
			if _, h := stage(err); h != (common.Hash{}) && rec.Tx == (common.Hash{}) {
				rec.Tx = h
				_ = s.cfg.Store.PutClaim(ctx, rec)
			}
			return false, &channel.Error{Reason: channel.ReasonWaitForReceiptFailed, Message: fmt.Sprintf("claim %s: %v", tx.Hex(), err)}
		}
	}
	res.Txs = append(res.Txs, tx)
	rec.Tx = tx
	if err := s.finishClaim(ctx, rec, err); err != nil {
		return false, err
	}
	s.stats.claimTxs.Add(1)
	s.stats.claimedChannels.Add(int64(len(rows)))
	res.Channels += len(rows)
	res.Claimed.Add(res.Claimed, total)
	s.log.Info("channel: claimed and swept", "tx", tx.Hex(), "channels", len(rows), "amount", total.String())
	return false, nil
}

// forgetClaim drops a journaled claim that was never broadcast.
func (s *Service) forgetClaim(ctx context.Context, rec *ClaimRecord) {
	if rec.Tx == (common.Hash{}) && rec.SignedAt == 0 {
		return // never journaled
	}
	_ = s.cfg.Store.DeleteClaim(ctx, rec.Key)
}

// finishClaim records a claim whose outcome is known (awaitErr: nil when
// it succeeded, a StageMined *TxError when it reverted): it mirrors its
// channels and forgets the journaled claim.
func (s *Service) finishClaim(ctx context.Context, rec *ClaimRecord, awaitErr error) error {
	for _, id := range rec.Channels {
		if r, gerr := s.cfg.Store.Get(ctx, common.HexToHash(id)); gerr == nil && r != nil {
			if m, merr := s.mirror(ctx, r.State); merr == nil {
				s.storeMirror(ctx, m)
			}
		}
	}
	if derr := s.cfg.Store.DeleteClaim(ctx, rec.Key); derr != nil {
		return derr
	}
	if awaitErr != nil {
		return &channel.Error{Reason: channel.ReasonClaimTransactionFailed, Message: fmt.Sprintf("claim %s reverted", rec.Tx.Hex())}
	}
	return nil
}

// resolveClaims finishes the claims a previous process (or round) journaled
// but did not see mined, before anything is claimed again.
func (s *Service) resolveClaims(ctx context.Context) error {
	recs, err := s.cfg.Store.Claims(ctx)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if rec.Tx == (common.Hash{}) {
			_ = s.cfg.Store.DeleteClaim(ctx, rec.Key)
			continue
		}
		s.log.Info("channel: resolving an in-flight claim", "tx", rec.Tx.Hex())
		rctx, cancel := context.WithTimeout(ctx, resolveWait)
		err := s.cfg.Backend.Await(rctx, rec.Tx)
		cancel()
		if st, _ := stage(err); err == nil || st == StageMined {
			err = s.finishClaim(ctx, rec, err)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// Reverted, or never broadcast (the process died between the
			// journal and the send): forget it, the rows are claimed again.
			s.log.Warn("channel: forgetting an in-flight claim", "tx", rec.Tx.Hex(), "err", err)
			if err := s.cfg.Store.DeleteClaim(ctx, rec.Key); err != nil {
				return err
			}
		}
	}
	return nil
}
