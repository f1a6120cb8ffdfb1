package chat

import (
	"testing"

	"github.com/farebox/farebox/internal/testkit/upstreamtest"
)

// FuzzStream: whatever a Chat Completions server streams, the client sees schema-valid
// events and a mapped error or a valid response (seeds: the chat fixtures).
func FuzzStream(f *testing.F) { upstreamtest.FuzzStream(f, "chat", newModel) }
