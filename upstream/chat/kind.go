package chat

import (
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream"
)

// Kind is this package's name in `upstream:`.
const Kind = "chat"

func init() {
	upstream.Register(Kind, upstream.KindFunc(func() upstream.Config { return new(Settings) }))
}

// Settings is the keys of `upstream: chat`: a Chat Completions endpoint.
type Settings struct {
	upstream.Endpoint `yaml:",inline"`
	// Images says whether the upstream takes images: when false, tool-output
	// images are refused instead of moved into a user message.
	Images *bool `yaml:"images"`
}

// Validate checks the endpoint.
func (s *Settings) Validate(p upstream.Problems) { s.Endpoint.Validate(p, Kind) }

// New builds the Chat Completions upstream.
func (s *Settings) New(env upstream.Env) (responses.Model, error) {
	key, err := s.APIKey(env.Getenv)
	if err != nil {
		return nil, err
	}
	return New(Config{BaseURL: s.BaseURL, APIKey: key, Model: upstream.ModelName(s.UpstreamModel, env.Model),
		Timeouts: s.Timeouts.HTTP(), NoImages: s.Images != nil && !*s.Images})
}
