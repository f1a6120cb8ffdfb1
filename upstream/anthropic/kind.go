package anthropic

import (
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream"
)

// Kind is this package's name in `upstream:`.
const Kind = "anthropic"

func init() {
	upstream.Register(Kind, upstream.KindFunc(func() upstream.Config { return new(Settings) }))
}

// Settings is the keys of `upstream: anthropic`: Anthropic's Messages API
// (base_url defaults to https://api.anthropic.com/v1; the key, read from
// api_key_env, goes as x-api-key).
type Settings struct {
	upstream.Endpoint `yaml:",inline"`
	// Betas are the anthropic-beta flags the operator allows, sent on
	// every call; a client's own flags are never forwarded.
	Betas []string `yaml:"betas"`
	// Caching puts prompt-cache breakpoints on the system prompt and the
	// conversation so far (cache reads are priced at cache_read).
	Caching bool `yaml:"caching"`
	// Thinking maps reasoning.effort to extended thinking.
	Thinking ThinkingSettings `yaml:"thinking"`
	// MaxTokens is max_tokens when the client sets none, and the most
	// farebox asks for.
	MaxTokens MaxTokensSettings `yaml:"max_tokens"`
	// StructuredOutput: the model takes output_config.format, so a
	// json_schema text format is honoured instead of refused.
	StructuredOutput bool `yaml:"structured_output"`
}

// ThinkingSettings are the keys of `thinking:`.
type ThinkingSettings struct {
	// Mode is off (default), adaptive (thinking {type: adaptive} with the
	// effort as output_config.effort) or enabled (budget_tokens per effort).
	Mode string `yaml:"mode"`
	// BudgetTokens are budget_tokens per effort in mode enabled.
	BudgetTokens map[string]int64 `yaml:"budget_tokens"`
}

// MaxTokensSettings are the keys of `max_tokens:`.
type MaxTokensSettings struct {
	Default int64 `yaml:"default"`
	Limit   int64 `yaml:"limit"`
}

// Validate checks the keys; base_url may be left out.
func (s *Settings) Validate(p upstream.Problems) {
	e := s.Endpoint
	if e.BaseURL == "" {
		e.BaseURL = DefaultBaseURL
	}
	e.Validate(p, Kind)
	switch ThinkingMode(s.Thinking.Mode) {
	case ThinkingOff, ThinkingAdaptive, ThinkingEnabled:
	case "off":
	default:
		p.Add("thinking.mode", "want off, adaptive or enabled, got %q", s.Thinking.Mode)
	}
	for effort, b := range s.Thinking.BudgetTokens {
		if b < minBudget {
			p.Add("thinking.budget_tokens."+effort, "%d is below Anthropic's minimum of %d", b, minBudget)
		}
	}
	if s.MaxTokens.Default < 0 || s.MaxTokens.Limit < 0 {
		p.Add("max_tokens", "cannot be negative")
	}
}

// New builds the Messages upstream.
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
		Betas: s.Betas, Timeouts: s.Timeouts.HTTP(), Caching: s.Caching,
		Thinking:  Thinking{Mode: mode, Budgets: s.Thinking.BudgetTokens},
		MaxTokens: MaxTokens{Default: s.MaxTokens.Default, Limit: s.MaxTokens.Limit}, StructuredOutput: s.StructuredOutput})
}
