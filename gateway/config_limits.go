package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/farebox/farebox/responses"
)

// ModelLimits (models[].limits) bound what one call may make the upstream
// spend, so that a price per call covers it: the upstream bills tokens,
// the payer pays a fixed price. A model priced per call gets the defaults
// below for every key it leaves out (and `serve --check` warns when it
// has no limits block at all); other models are bounded only by the keys
// they set.
type ModelLimits struct {
	// MaxOutputTokens is sent upstream on every call; a client's larger
	// max_output_tokens is lowered to it (default 1024 per call).
	MaxOutputTokens int64 `yaml:"max_output_tokens"`
	// MaxInputTokens refuses, with a 400 before any payment or upstream
	// call, a request whose input is estimated larger: a token per 4
	// bytes of text, 2,500 per image or file part (default 8192 per call).
	MaxInputTokens int64 `yaml:"max_input_tokens"`
	// ReasoningEfforts are the reasoning.effort values that pass (default
	// per call: none, minimal, low); any other is lowered to
	// ReasoningEffortCap (default: the last allowed one). An effort is
	// never added to a request that sent none.
	ReasoningEfforts   []string `yaml:"reasoning_efforts"`
	ReasoningEffortCap string   `yaml:"reasoning_effort_cap"`
	// ServiceTiers are the service_tier values that pass, among auto,
	// default and flex (default all three); any other is served at the
	// default tier. priority and scale are never sent: no price here
	// covers them.
	ServiceTiers []string `yaml:"service_tiers"`
	// MaxVerbosity caps text.verbosity: low, medium or high (default per
	// call: medium).
	MaxVerbosity string `yaml:"max_verbosity"`
	// Moderation forwards the client's moderation field, which has the
	// provider run a moderation model on the operator's bill (default
	// false: never forwarded).
	Moderation bool `yaml:"moderation"`
}

// EndUsersConfig says how the upstream's provider sees payers: each as its
// own end user (safety_identifier), named by a keyed hash.
type EndUsersConfig struct {
	// KeyEnv names the environment variable holding the key of that hash
	// (any string; the same on every replica so that a payer keeps its
	// identifier). Unset: a key derived from each model's upstream API
	// key, which the provider also knows, so the provider could test
	// whether a given address made a call.
	KeyEnv string `yaml:"key_env"`
}

// The per-call defaults: a gpt-4.1-mini call bounded by them costs at most
// ~0.005 USD upstream.
const (
	defaultMaxOutputTokens = 1024
	defaultMaxInputTokens  = 8192
	defaultMaxVerbosity    = "medium"
)

var (
	defaultEfforts = []string{"none", "minimal", "low"}
	// efforts are reasoning.effort's values, least first.
	efforts = []string{"none", "minimal", "low", "medium", "high", "xhigh"}
	// tiers are the service tiers a price here can cover.
	tiers = []string{"auto", "default", "flex"}
)

// DefaultLimits are the limits a model priced per call gets when its
// config sets none (farebox init writes them out).
func DefaultLimits() ModelLimits {
	return ModelLimits{MaxOutputTokens: defaultMaxOutputTokens, MaxInputTokens: defaultMaxInputTokens,
		ReasoningEfforts: slices.Clone(defaultEfforts), ReasoningEffortCap: defaultEfforts[len(defaultEfforts)-1],
		ServiceTiers: slices.Clone(tiers), MaxVerbosity: defaultMaxVerbosity}
}

// limits are a model's ModelLimits as the gateway applies them.
type limits struct {
	request    *responses.Limits // nil: none
	moderation bool
	key        []byte // the end users' hash key
}

// perCall reports a model priced per call (not free, not per token).
func (mc *ModelConfig) perCall() bool {
	return mc.PricePerMTok == nil && mc.Price != "" && strings.Trim(mc.Price, "0.") != ""
}

// resolvedLimits fills the keys a per-call model left out with defaults.
func (mc *ModelConfig) resolvedLimits() ModelLimits {
	var l ModelLimits
	if mc.Limits != nil {
		l = *mc.Limits
	}
	if !mc.perCall() {
		return l
	}
	d := DefaultLimits()
	if l.MaxOutputTokens == 0 {
		l.MaxOutputTokens = d.MaxOutputTokens
	}
	if l.MaxInputTokens == 0 {
		l.MaxInputTokens = d.MaxInputTokens
	}
	if l.ReasoningEfforts == nil {
		l.ReasoningEfforts = d.ReasoningEfforts
	}
	if l.ServiceTiers == nil {
		l.ServiceTiers = d.ServiceTiers
	}
	if l.MaxVerbosity == "" {
		l.MaxVerbosity = d.MaxVerbosity
	}
	return l
}

// buildLimits turns a model's config into what the handler applies.
func buildLimits(mc ModelConfig, endUsers EndUsersConfig, getenv func(string) string) (*limits, error) {
	l := mc.resolvedLimits()
	out := &limits{moderation: l.Moderation}
	if err := checkLimits(l); err != nil {
		return nil, err
	}
	if l.MaxOutputTokens > 0 || l.MaxInputTokens > 0 || l.ReasoningEfforts != nil || l.ServiceTiers != nil || l.MaxVerbosity != "" {
		rl := &responses.Limits{MaxOutputTokens: l.MaxOutputTokens, MaxInputTokens: l.MaxInputTokens,
			Efforts: l.ReasoningEfforts, EffortCap: l.ReasoningEffortCap, ServiceTiers: l.ServiceTiers, MaxVerbosity: l.MaxVerbosity}
		if rl.Efforts != nil && rl.EffortCap == "" {
			rl.EffortCap = rl.Efforts[len(rl.Efforts)-1]
		}
		out.request = rl
	}
	seed := "model:" + mc.Name
	switch {
	case endUsers.KeyEnv != "":
		if seed = getenv(endUsers.KeyEnv); seed == "" {
			return nil, fmt.Errorf("end_users.key_env: $%s is empty", endUsers.KeyEnv)
		}
	case upstreamKeyEnv(mc) != "" && getenv(upstreamKeyEnv(mc)) != "":
		seed = "api-key:" + getenv(upstreamKeyEnv(mc))
	}
	k := sha256.Sum256([]byte("farebox end users\x00" + seed))
	out.key = k[:]
	return out, nil
}

// checkLimits reports the first value a limits block may not hold.
func checkLimits(l ModelLimits) error {
	switch {
	case l.MaxOutputTokens < 0 || (l.MaxOutputTokens > 0 && l.MaxOutputTokens < 16):
		return fmt.Errorf("limits.max_output_tokens: want at least 16 (the least OpenAI accepts), got %d", l.MaxOutputTokens)
	case l.MaxInputTokens < 0:
		return fmt.Errorf("limits.max_input_tokens: must not be negative")
	case l.ReasoningEfforts != nil && len(l.ReasoningEfforts) == 0:
		return fmt.Errorf("limits.reasoning_efforts: list at least one (e.g. [none, minimal, low])")
	case l.ServiceTiers != nil && len(l.ServiceTiers) == 0:
		return fmt.Errorf("limits.service_tiers: list at least one (e.g. [default])")
	}
	for _, e := range l.ReasoningEfforts {
		if !slices.Contains(efforts, e) {
			return fmt.Errorf("limits.reasoning_efforts: unknown effort %q (want among %s)", e, strings.Join(efforts, ", "))
		}
	}
	if c := l.ReasoningEffortCap; c != "" && !slices.Contains(l.ReasoningEfforts, c) {
		return fmt.Errorf("limits.reasoning_effort_cap: %q must be one of reasoning_efforts", c)
	}
	for _, t := range l.ServiceTiers {
		if !slices.Contains(tiers, t) {
			return fmt.Errorf("limits.service_tiers: %q is not sold (want among %s)", t, strings.Join(tiers, ", "))
		}
	}
	switch l.MaxVerbosity {
	case "", "low", "medium", "high":
	default:
		return fmt.Errorf("limits.max_verbosity: want low, medium or high, got %q", l.MaxVerbosity)
	}
	return nil
}

// limitWarnings are the config's sound but risky choices, for `serve
// --check` and the start-up log: a model priced per call with no limits
// block runs on defaults that may not fit its price.
func (c Config) limitWarnings() []string {
	var out []string
	for i, mc := range c.Models {
		if mc.perCall() && mc.Limits == nil {
			d := DefaultLimits()
			out = append(out, fmt.Sprintf("models[%d] (%s): priced per call with no limits: the defaults apply (max_output_tokens %d, max_input_tokens %d, reasoning efforts %s); check that %s USDC covers such a call upstream, or set models[%d].limits",
				i, mc.Name, d.MaxOutputTokens, d.MaxInputTokens, strings.Join(d.ReasoningEfforts, "/"), mc.Price, i))
		}
	}
	return out
}

// Warnings lists what Validate accepts but an operator should look at.
func (c Config) Warnings() []string {
	return slices.Concat(c.limitWarnings(), c.moneyWarnings(), c.publicURLWarnings())
}

// endUser sets what the provider sees of this call's end user: who, a
// payer's address or (free calls) the client's IP address, as a keyed
// hash, and the client's prompt_cache_key namespaced by it. The client's
// own user, safety_identifier and prompt_cache_key are never sent.
func (l *limits) endUser(req *responses.Request, who string) {
	if l == nil {
		return
	}
	req.Provider.Moderation = l.moderation
	if who == "" {
		return
	}
	id := l.hash("end-user\x00" + who)
	req.Provider.SafetyID = "fbu_" + id
	if req.PromptCache != nil {
		req.Provider.CacheKey = "fbc_" + l.hash("cache\x00"+id+"\x00"+*req.PromptCache)
	}
}

// hash is the hex of the first 16 bytes of HMAC-SHA256(key, s).
func (l *limits) hash(s string) string {
	m := hmac.New(sha256.New, l.key)
	m.Write([]byte(s))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// apply bounds req by the model's limits; an input over its limit is a 400.
func (l *limits) apply(req *responses.Request) error {
	if l == nil || l.request == nil {
		return nil
	}
	if err := l.request.Apply(req); err != nil {
		return err
	}
	return nil
}
