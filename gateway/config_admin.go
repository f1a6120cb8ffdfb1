package gateway

import "strings"

// AdminConfig is the operator's view (admin:): the books as JSON under
// /admin/api/ and the dashboard page at /admin. It is off unless a token
// is configured.
type AdminConfig struct {
	// Addr, when set, serves /admin on its own listener (e.g.
	// 127.0.0.1:9403) instead of the gateway's.
	Addr string `yaml:"addr"`
	// TokenEnv names an environment variable holding the admin token that
	// every admin request presents as "Authorization: Bearer <token>" (or
	// through the page's login form, as a cookie). Unset or empty: the
	// admin API and the page are not served.
	TokenEnv string `yaml:"token_env"`
}

// admin checks the admin config: a token of at least minAdminToken
// characters when it is on, and no listener without one.
func (v *validation) admin(ac AdminConfig) {
	if ac.TokenEnv == "" {
		if ac.Addr != "" {
			v.add("admin.addr", "is set but admin.token_env is not: the admin API needs a token")
		}
		return
	}
	switch tok := v.getenv(ac.TokenEnv); {
	case tok == "":
		v.add("admin.token_env", "$%s is empty: set it in the environment", ac.TokenEnv)
	case len(tok) < minAdminToken || strings.ContainsAny(tok, " \t\r\n"):
		v.add("admin.token_env", "$%s must be one word of at least %d characters", ac.TokenEnv, minAdminToken)
	}
}

// minAdminToken is the shortest admin token accepted: a guessable token
// would open the books and the operator's actions to anyone.
const minAdminToken = 16
