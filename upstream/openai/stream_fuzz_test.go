package openai

import (
	"testing"

	"github.com/farebox/farebox/internal/testkit/upstreamtest"
)

// FuzzStream: whatever an OpenAI Responses server streams, the client sees schema-valid
// events and a mapped error or a valid response (seeds: the responses fixtures).
func FuzzStream(f *testing.F) { upstreamtest.FuzzStream(f, "responses", newModel) }
