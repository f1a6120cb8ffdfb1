package service

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"strings"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/farebox/farebox/x402/channel"
)

// invalidSignature is the selector of the settlement contract's
// InvalidSignature() error: a claim row whose voucher it refuses.
var invalidSignature = crypto.Keccak256([]byte("InvalidSignature()"))[:4]

// refresh reads every channel's on-chain fields again right before a
// claim, so a row is capped at the balance a withdrawal left; a channel
// that cannot be read now waits for the next round.
func (s *Service) refresh(ctx context.Context, states []*channel.State) []*channel.State {
	out := make([]*channel.State, 0, len(states))
	for _, st := range states {
		m, err := s.mirror(ctx, st)
		if err != nil {
			s.log.Warn("channel: reading a channel before its claim", "channel", channelKey(st.ChannelID), "err", err)
			continue
		}
		s.storeMirror(ctx, m)
		out = append(out, m)
	}
	return out
}

// preflight simulates the claim of every row at once and, when that
// reverts, bisects (a simulation per half) to keep the rows that go
// through together: a failing row costs the others a few eth_calls, never
// a round. Each failing row is classified (classify). An error means the
// chain could not be asked at all.
func (s *Service) preflight(ctx context.Context, states []*channel.State) ([]*channel.State, error) {
	var good []*channel.State
	var find func([]*channel.State) error
	find = func(part []*channel.State) error {
		rows := channel.Claims(part)
		if len(rows) == 0 {
			return nil
		}
		reverted, _, err := s.simulateClaim(ctx, rows)
		switch {
		case err != nil:
			return err
		case !reverted:
			good = append(good, part...)
			return nil
		case len(part) == 1:
			if s.classify(ctx, part[0]) {
				good = append(good, part...)
			}
			return nil
		}
		mid := len(part) / 2
		if err := find(part[:mid]); err != nil {
			return err
		}
		return find(part[mid:])
	}
	return good, find(states)
}

// classify decides about one channel whose claim row reverted: a voucher
// the contract refuses quarantines the channel; any other revert (its
// balance moved: a withdrawal finalized) reads it again, and it is kept
// (true) when its row, rebuilt from the new balance, now goes through.
func (s *Service) classify(ctx context.Context, st *channel.State) bool {
	m, err := s.mirror(ctx, st)
	if err != nil {
		return false
	}
	s.storeMirror(ctx, m)
	rows := channel.Claims([]*channel.State{m})
	if len(rows) == 0 {
		s.log.Info("channel: nothing left to claim after a withdrawal", "channel", channelKey(st.ChannelID),
			"payer", st.Config.Payer.Hex(), "lost", new(big.Int).Sub(st.Charged, m.TotalClaimed).String())
		return false
	}
	reverted, data, err := s.simulateClaim(ctx, rows)
	if err != nil || !reverted {
		*st = *m
		return err == nil
	}
	// The contract's own error when the node returns it; else ask the
	// voucher's signer as the contract would.
	refused := bytes.HasPrefix(data, invalidSignature)
	if len(data) < 4 {
		refused = !s.cfg.Contracts.VoucherAccepted(ctx, s.cfg.Chain, rows[0])
	}
	if refused {
		s.quarantine(ctx, m, "the settlement contract refuses its voucher signature")
		return false
	}
	s.log.Warn("channel: its claim row reverts; left for the next round", "channel", channelKey(st.ChannelID),
		"payer", st.Config.Payer.Hex(), "revert", hexutil.Encode(data))
	return false
}

// simulateClaim runs claim(rows) as an eth_call from the receiver
// authorizer (who may claim every row): reverted and the revert data when
// the contract refuses, err when the node could not be asked.
func (s *Service) simulateClaim(ctx context.Context, rows []channel.Claim) (reverted bool, data []byte, err error) {
	to := s.cfg.Contracts.Settlement
	_, err = s.cfg.Chain.CallContract(ctx, ethereum.CallMsg{From: s.terms.ReceiverAuthorizer, To: &to,
		Data: channel.ClaimCalldata(rows)}, nil)
	if err == nil {
		return false, nil, nil
	}
	var de rpc.DataError
	if errors.As(err, &de) && de.ErrorData() != nil {
		if hex, ok := de.ErrorData().(string); ok {
			data, _ = hexutil.Decode(hex)
		}
		return true, data, nil
	}
	if strings.Contains(strings.ToLower(err.Error()), "revert") {
		return true, nil, nil
	}
	return false, nil, err
}

// quarantine stops serving a channel whose voucher the contract refuses
// and leaves it out of every later claim; its unclaimed charges are lost
// (the payer's wallet will not honour them), no one else's are delayed.
func (s *Service) quarantine(ctx context.Context, st *channel.State, why string) {
	q := &Quarantine{Reason: why, At: s.cfg.Now().UnixMilli()}
	for range 4 {
		rec, err := s.cfg.Store.Get(ctx, st.ChannelID)
		if err != nil || rec == nil {
			break
		}
		rec.Quarantine = q
		if err = s.cfg.Store.Put(ctx, rec, rec.Rev); !errors.Is(err, ErrConflict) {
			break
		}
	}
	s.stats.quarantined.Add(1)
	s.log.Warn("channel: quarantined: no longer served nor claimed", "channel", channelKey(st.ChannelID),
		"payer", st.Config.Payer.Hex(), "reason", why, "unclaimed", st.Unclaimed().String())
}

// isWallet reports whether the channel's vouchers are a contract wallet's
// (EIP-1271: payerAuthorizer zero).
func isWallet(st *channel.State) bool { return st.Config.PayerAuthorizer == (common.Address{}) }
