package gateway

import (
	"net/url"
	"strings"

	"github.com/farebox/farebox/x402/settle"
)

// Coinbase's CDP facilitator, as the config names it (the facilitator
// package, which the gateway does not import, signs its requests).
const (
	facilitatorKindCDP = "cdp"
	cdpFacilitatorURL  = "https://api.cdp.coinbase.com/platform/v2/x402"
	cdpHost            = "api.cdp.coinbase.com"
)

// withDefaults recognises CDP: kind cdp without a url is CDP's facilitator,
// and a url on CDP's host is kind cdp, whose requests need the API key.
func (fc FacilitatorConfig) withDefaults() FacilitatorConfig {
	fc.Kind = strings.ToLower(strings.TrimSpace(fc.Kind))
	if fc.Kind == facilitatorKindCDP && fc.URL == "" {
		fc.URL = cdpFacilitatorURL
	}
	if fc.Kind == "" && fc.URL != "" {
		if u, err := url.Parse(strings.TrimSpace(fc.URL)); err == nil && strings.EqualFold(u.Hostname(), cdpHost) {
			fc.Kind = facilitatorKindCDP
		}
	}
	return fc
}

// facilitator checks payments.facilitator's keys: its kind, and
// a CDP key's two variables (the secret's form is checked as farebox
// starts, where the facilitator package reads it).
func (v *validation) facilitator(fc FacilitatorConfig) {
	switch fc.Kind {
	case "":
	case facilitatorKindCDP:
		if fc.AuthHeaderEnv != "" {
			v.add("payments.facilitator.auth_header_env", "not with kind cdp: every CDP request is signed with the API key of key_id_env and key_secret_env")
		}
		if fc.KeyIDEnv == "" || fc.KeySecretEnv == "" {
			v.add("payments.facilitator", "the CDP facilitator (%s) needs key_id_env and key_secret_env naming the variables of a CDP API key (e.g. CDP_API_KEY_ID, CDP_API_KEY_SECRET; create one at portal.cdp.coinbase.com)", fc.URL)
			return
		}
		v.secret("payments.facilitator.key_id_env", fc.KeyIDEnv, false)
		v.secret("payments.facilitator.key_secret_env", fc.KeySecretEnv, false)
	default:
		v.add("payments.facilitator.kind", "want cdp or nothing, got %q", fc.Kind)
	}
}

// settings is what the facilitator settler reads of the config.
func (fc FacilitatorConfig) settings() settle.FacilitatorSettings {
	fc = fc.withDefaults()
	return settle.FacilitatorSettings{Kind: fc.Kind, URL: fc.URL, AuthHeaderEnv: fc.AuthHeaderEnv,
		KeyIDEnv: fc.KeyIDEnv, KeySecretEnv: fc.KeySecretEnv, Verify: fc.Verify}
}
