package upstream

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/farebox/farebox/upstream/upstreamhttp"
	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration written as "30s" in YAML.
type Duration time.Duration

// UnmarshalYAML reads "30s", "1m" or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes d as "30s", the form UnmarshalYAML reads back.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// parseDuration reads a Go duration or a number of seconds; negative, NaN
// and out-of-range values are refused rather than wrapped into a timer that
// fires at once.
func parseDuration(s string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if !(secs >= 0 && secs*float64(time.Second) < math.MaxInt64) {
			return 0, fmt.Errorf("duration %q: want a non-negative number of seconds or a duration like 30s", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err == nil && d < 0 {
		return 0, fmt.Errorf("duration %q: must not be negative", s)
	}
	return d, err
}

// D returns d as a time.Duration, or def when unset.
func (d Duration) D(def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return time.Duration(d)
}

// Timeouts bound each phase of an upstream call (the `timeouts:` key of
// every HTTP kind).
type Timeouts struct {
	Connect   Duration `yaml:"connect"`
	FirstByte Duration `yaml:"first_byte"`
	Idle      Duration `yaml:"idle"` // the longest gap between two chunks
	Total     Duration `yaml:"total"`
}

// HTTP is t as the HTTP client takes it.
func (t Timeouts) HTTP() upstreamhttp.Timeouts {
	return upstreamhttp.Timeouts{Connect: time.Duration(t.Connect), FirstByte: time.Duration(t.FirstByte),
		Gap: time.Duration(t.Idle), Total: time.Duration(t.Total)}
}

// Endpoint is the keys of an upstream reached over HTTP with an API key
// (the openai and chat kinds), so both read, check and build them alike.
type Endpoint struct {
	// UpstreamModel is the model name sent upstream (default: the public name).
	UpstreamModel string `yaml:"upstream_model"`
	// BaseURL of the upstream API, e.g. https://api.openai.com/v1.
	BaseURL string `yaml:"base_url"`
	// APIKeyEnv names the environment variable holding the upstream API key.
	APIKeyEnv string `yaml:"api_key_env"`
	// Timeouts for the upstream call.
	Timeouts Timeouts `yaml:"timeouts"`
}

// Validate checks the endpoint of an upstream of kind.
func (e Endpoint) Validate(p Problems, kind string) {
	if e.BaseURL == "" {
		p.Add("base_url", "required for upstream %s", kind)
	} else {
		p.URL("base_url", e.BaseURL, "http", "https")
	}
	if e.APIKeyEnv != "" {
		p.Secret("api_key_env", e.APIKeyEnv, false)
	}
}

// KeyEnv is the variable holding the API key ("" = none is sent).
func (e Endpoint) KeyEnv() string { return e.APIKeyEnv }

// APIKey reads the API key ("" when none is configured).
func (e Endpoint) APIKey(getenv func(string) string) (string, error) {
	if e.APIKeyEnv == "" {
		return "", nil
	}
	key := getenv(e.APIKeyEnv)
	if key == "" {
		return "", fmt.Errorf("api_key_env: $%s is empty", e.APIKeyEnv)
	}
	return key, nil
}

// ModelName is the model name sent upstream: upstream_model, else the
// public name.
func ModelName(upstreamModel, public string) string {
	if upstreamModel != "" {
		return upstreamModel
	}
	return public
}
