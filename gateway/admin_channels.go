package gateway

import (
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/labstack/echo/v4"
)

// adminChannel is one batch-settlement channel in GET /admin/api/channels.
type adminChannel struct {
	ID              string     `json:"id"`
	Payer           string     `json:"payer"`
	Balance         string     `json:"balance"`
	Charged         string     `json:"charged"`
	Claimed         string     `json:"claimed"`
	Unclaimed       string     `json:"unclaimed"`
	WithdrawStarted *time.Time `json:"withdraw_started,omitempty"`
	Quarantined     string     `json:"quarantined,omitempty"`
	LastRequest     *time.Time `json:"last_request,omitempty"`
	PendingDeposit  string     `json:"pending_deposit,omitempty"`
	// NextClaimAt and NextClaimReason name the claim that will collect this
	// channel's unclaimed charges; NotClaimed says why none will.
	NextClaimAt     *time.Time `json:"next_claim_at,omitempty"`
	NextClaimReason string     `json:"next_claim_reason,omitempty"`
	NotClaimed      string     `json:"not_claimed,omitempty"`
	// ClaimDue and WithdrawFinalizable: a payer's withdrawal is under way;
	// the claim is due at the first, what is unclaimed at the second is lost.
	ClaimDue            *time.Time `json:"claim_due,omitempty"`
	WithdrawFinalizable *time.Time `json:"withdraw_finalizable,omitempty"`
}

// handleAdminChannels serves GET /admin/api/channels: every channel with
// its balance, what was charged and what is still unclaimed, and when the
// claimer will claim next and why.
func (s *Server) handleAdminChannels(c echo.Context) error {
	out := []adminChannel{}
	res := map[string]any{"served": s.pay.chanSvc != nil, "channels": out, "unclaimed": "0"}
	svc := s.pay.chanSvc
	if svc == nil {
		return c.JSON(http.StatusOK, res)
	}
	recs, err := s.pay.chanStore.List(c.Request().Context())
	if err != nil {
		return err
	}
	next := svc.NextClaimOf(recs)
	total := new(big.Int)
	for _, r := range recs {
		if r.State == nil {
			continue
		}
		ch := adminChannelOf(r, next)
		total.Add(total, r.State.Unclaimed())
		out = append(out, ch)
	}
	res["channels"], res["unclaimed"] = out, x402.FormatUSDC(total)
	bc := s.cfg.Payments.BatchSettlement
	res["claim_interval_seconds"] = int64(s.claimInterval().Seconds())
	res["claim_withdraw_lead_seconds"] = int64(bc.ClaimWithdrawLead.D(defaultClaimWithdrawLead).Seconds())
	if next.ThresholdLeft != nil {
		res["claim_threshold"] = bc.ClaimThreshold
		res["claim_threshold_left"] = x402.FormatUSDC(next.ThresholdLeft)
	}
	if last := svc.LastClaim(); !last.IsZero() {
		res["last_claim"] = last.UTC()
	}
	if !next.At.IsZero() {
		res["next_claim_at"], res["next_claim_reason"] = next.At.UTC(), next.Reason
		res["next_claim_amount"], res["next_claim_channels"] = x402.FormatUSDC(next.Unclaimed), next.Channels
	}
	return c.JSON(http.StatusOK, res)
}

// adminChannelOf is one stored channel as the admin API shows it, with
// the claim that will collect it.
func adminChannelOf(r *service.Record, next *service.NextClaim) adminChannel {
	st := r.State
	id := common.Hash(st.ChannelID)
	ch := adminChannel{ID: id.Hex(), Payer: strings.ToLower(st.Config.Payer.Hex()), Balance: x402.FormatUSDC(st.Balance),
		Charged: x402.FormatUSDC(st.Charged), Claimed: x402.FormatUSDC(st.TotalClaimed), Unclaimed: x402.FormatUSDC(st.Unclaimed())}
	if st.WithdrawRequestedAt != 0 {
		t := time.Unix(int64(st.WithdrawRequestedAt), 0).UTC()
		ch.WithdrawStarted = &t
	}
	if q := r.Quarantine; q != nil {
		ch.Quarantined = q.Reason
	}
	if !st.LastRequestAt.IsZero() {
		t := st.LastRequestAt
		ch.LastRequest = &t
	}
	if r.Deposit != nil {
		ch.PendingDeposit = r.Deposit.Tx.Hex()
	}
	if why, left := next.Left[st.ChannelID]; left {
		ch.NotClaimed = why
	} else if st.Unclaimed().Sign() > 0 && !next.At.IsZero() {
		at := next.At.UTC()
		ch.NextClaimAt, ch.NextClaimReason = &at, next.Reason
	}
	if w, ok := next.Withdrawals[st.ChannelID]; ok {
		due, fin := w.ClaimDue.UTC(), w.Finalizable.UTC()
		ch.ClaimDue, ch.WithdrawFinalizable = &due, &fin
	}
	return ch
}

func (s *Server) claimInterval() time.Duration {
	return s.cfg.Payments.BatchSettlement.ClaimInterval.D(defaultClaimInterval)
}

// handleAdminClaim serves POST /admin/api/channels/claim: every channel's
// unclaimed vouchers are claimed now.
func (s *Server) handleAdminClaim(c echo.Context) error {
	if s.pay.chanSvc == nil {
		return &responses.Error{Status: http.StatusConflict, Type: typeInvalidRequest, Code: "channels_not_served",
			Message: "batch-settlement channels are not served here: there is nothing to claim."}
	}
	res, err := s.pay.chanSvc.ClaimNow(c.Request().Context())
	if err != nil {
		return err
	}
	txs := make([]string, len(res.Txs))
	for i, t := range res.Txs {
		txs[i] = t.Hex()
	}
	return c.JSON(http.StatusOK, map[string]any{"channels": res.Channels, "claimed": x402.FormatUSDC(res.Claimed), "transactions": txs})
}
