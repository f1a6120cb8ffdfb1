package gateway

import (
	"time"

	"github.com/farebox/farebox/x402/settle"
)

// channelParts is what the payments keep of the channel scheme's wiring:
// its store, opened beside the settlement journal, and its operator side.
type channelParts struct {
	// chanStore is the channel store the storage opened, handed to the
	// scheme that keeps channels (which knows its type).
	chanStore any
	channels  settle.Channels // nil when no channels are served
}

// The channels' defaults the configuration shows (withDefaults): the
// scheme falls back to the same when a key is zero.
const (
	// defaultWithdrawDelay is batch-settlement's shortest withdrawDelay, in seconds.
	defaultWithdrawDelay = 900
	// defaultClaimInterval: each claim costs the operator one transaction's gas.
	defaultClaimInterval = time.Hour
	// defaultClaimWithdrawLead leaves a claim time to be mined (and
	// retried) before a withdrawal can be finalized.
	defaultClaimWithdrawLead = 5 * time.Minute
)
