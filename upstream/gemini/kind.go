package gemini

import (
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream"
)

// Kind is this package's name in `upstream:`.
const Kind = "gemini"

func init() {
	upstream.Register(Kind, upstream.KindFunc(func() upstream.Config { return new(Settings) }))
}

// Settings is the keys of `upstream: gemini`: the Gemini API's
// generateContent (base_url defaults to
// https://generativelanguage.googleapis.com/v1beta; the key, read from
// api_key_env, goes as x-goog-api-key).
type Settings struct {
	upstream.Endpoint `yaml:",inline"`
	// Thinking maps reasoning.effort to generationConfig.thinkingConfig.
	Thinking ThinkingSettings `yaml:"thinking"`
	// MaxOutputTokens caps maxOutputTokens (0: no cap).
	MaxOutputTokens int64 `yaml:"max_output_tokens"`
}

// ThinkingSettings are the keys of `thinking:`.
type ThinkingSettings struct {
	// Mode is off (default: the model's own thinking), budget
	// (thinkingBudget per effort, Gemini 2.5) or level (thinkingLevel per
	// effort, Gemini 3).
	Mode string `yaml:"mode"`
	// Budgets are thinkingBudget per effort in mode budget.
	Budgets map[string]int64 `yaml:"budgets"`
	// Levels are thinkingLevel per effort in mode level.
	Levels map[string]string `yaml:"levels"`
}

// Validate checks the keys; base_url may be left out.
func (s *Settings) Validate(p upstream.Problems) {
	e := s.Endpoint
	if e.BaseURL == "" {
		e.BaseURL = DefaultBaseURL
	}
	e.Validate(p, Kind)
	switch ThinkingMode(s.Thinking.Mode) {
	case ThinkingOff, ThinkingBudget, ThinkingLevel, "off":
	default:
		p.Add("thinking.mode", "want off, budget or level, got %q", s.Thinking.Mode)
	}
	for effort, b := range s.Thinking.Budgets {
		if b < -1 {
			p.Add("thinking.budgets."+effort, "%d is not a budget (-1 is dynamic, 0 is off)", b)
		}
	}
	if s.MaxOutputTokens < 0 {
		p.Add("max_output_tokens", "cannot be negative")
	}
}

// New builds the Gemini upstream.
func (s *Settings) New(env upstream.Env) (responses.Model, error) {
	key, err := s.APIKey(env.Getenv)
	if err != nil {
		return nil, err
	}
	mode := ThinkingMode(s.Thinking.Mode)
	if mode == "off" {
		mode = ThinkingOff
	}
	return New(Config{BaseURL: s.BaseURL, APIKey: key, Model: upstream.ModelName(s.UpstreamModel, env.Model),
		Timeouts: s.Timeouts.HTTP(), MaxOutputTokens: s.MaxOutputTokens,
		Thinking: Thinking{Mode: mode, Budgets: s.Thinking.Budgets, Levels: s.Thinking.Levels}})
}
