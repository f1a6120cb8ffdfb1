package gateway

import "github.com/farebox/farebox/x402/settle"

// channelParts is what the payments keep of the channel scheme's wiring:
// its store, opened beside the settlement journal, and its operator side.
type channelParts struct {
	// chanStore is the channel store the storage opened, handed to the
	// scheme that keeps channels (which knows its type).
	chanStore any
	channels  settle.Channels // nil when no channels are served
}
