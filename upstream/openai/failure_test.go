package openai

import (
	"testing"

	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
)

// newModel is New in the shape the shared upstream tests build models.
func newModel(baseURL, apiKey, model string, tm upstreamhttp.Timeouts) (responses.Model, error) {
	m, err := New(Config{BaseURL: baseURL, APIKey: apiKey, Model: model, Timeouts: tm})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func TestUpstreamFailuresAreMappedForTheClient(t *testing.T) {
	upstreamtest.FailureMapping(t, newModel)
}

func TestOperatorKeyIsSentAsBearer(t *testing.T) { upstreamtest.OperatorKeyIsSentAsBearer(t, newModel) }

func TestUnreachableUpstreamIs502(t *testing.T) { upstreamtest.UnreachableUpstreamIs502(t, newModel) }

// TestClientDisconnectCancelsUpstream: the client going away (its context
// cancelled) ends the upstream request within 200 ms, both while waiting
// for the first byte and in the middle of a stream.
func TestClientDisconnectCancelsUpstream(t *testing.T) {
	upstreamtest.ClientDisconnectCancelsUpstream(t, newModel)
}
