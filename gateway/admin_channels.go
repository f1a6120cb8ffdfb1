package gateway

import (
	"net/http"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
	"github.com/labstack/echo/v4"
)

// adminChannel is one batch-settlement channel in GET /admin/api/channels.
type adminChannel = settle.ChannelView

// handleAdminChannels serves GET /admin/api/channels: every channel with
// its balance, what was charged and what is still unclaimed, and when the
// claimer will claim next and why.
func (s *Server) handleAdminChannels(c echo.Context) error {
	res := map[string]any{"served": s.pay.channels != nil, "channels": []adminChannel{}, "unclaimed": "0"}
	if s.pay.channels == nil {
		return c.JSON(http.StatusOK, res)
	}
	o, err := s.pay.channels.ChannelsOverview(c.Request().Context())
	if err != nil {
		return err
	}
	res["channels"], res["unclaimed"] = o.Channels, x402.FormatUSDC(o.Unclaimed)
	res["claim_interval_seconds"] = int64(o.ClaimInterval.Seconds())
	res["claim_withdraw_lead_seconds"] = int64(o.ClaimWithdrawLead.Seconds())
	if o.ThresholdLeft != nil {
		res["claim_threshold"] = s.cfg.Payments.BatchSettlement.ClaimThreshold
		res["claim_threshold_left"] = x402.FormatUSDC(o.ThresholdLeft)
	}
	if !o.LastClaim.IsZero() {
		res["last_claim"] = o.LastClaim.UTC()
	}
	if !o.NextClaimAt.IsZero() {
		res["next_claim_at"], res["next_claim_reason"] = o.NextClaimAt.UTC(), o.NextClaimReason
		res["next_claim_amount"], res["next_claim_channels"] = x402.FormatUSDC(o.NextClaimAmount), o.NextClaimChannels
	}
	return c.JSON(http.StatusOK, res)
}

// handleAdminClaim serves POST /admin/api/channels/claim: every channel's
// unclaimed vouchers are claimed now.
func (s *Server) handleAdminClaim(c echo.Context) error {
	if s.pay.channels == nil {
		return &responses.Error{Status: http.StatusConflict, Type: typeInvalidRequest, Code: "channels_not_served",
			Message: "batch-settlement channels are not served here: there is nothing to claim."}
	}
	res, err := s.pay.channels.ClaimChannels(c.Request().Context())
	if err != nil {
		// A claim that did not go through (its facilitator down) moved
		// nothing it could not send again: the operator is told why.
		return &responses.Error{Status: http.StatusServiceUnavailable, Type: typeServerError, Code: "claim_failed", RetryAfter: time.Second,
			Message: "The claim did not go through (" + err.Error() + "); what is unclaimed stays recorded and the claimer sends it again at its next look.", Cause: err}
	}
	txs := make([]string, len(res.Txs))
	for i, t := range res.Txs {
		txs[i] = t.Hex()
	}
	return c.JSON(http.StatusOK, map[string]any{"channels": res.Channels, "claimed": x402.FormatUSDC(res.Claimed), "transactions": txs})
}
