package scripted

import (
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream"
)

// Kind is this package's name in `upstream:`.
const Kind = "scripted"

func init() {
	upstream.Register(Kind, upstream.KindFunc(func() upstream.Config { return new(Settings) }))
}

// Settings is the keys of `upstream: scripted`.
type Settings struct {
	// Pace is the delay between two deltas.
	Pace upstream.Duration `yaml:"pace"`
}

// Validate has nothing to check: every pace is a pace.
func (s *Settings) Validate(upstream.Problems) {}

// New builds the scripted model.
func (s *Settings) New(upstream.Env) (responses.Model, error) {
	return New(Options{Pace: s.Pace.D(0)}), nil
}
