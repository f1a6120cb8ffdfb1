package gateway

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream"
	"github.com/farebox/farebox/x402/channel"
	"gopkg.in/yaml.v3"
)

// Config is everything an operator decides. It comes from one YAML file
// (farebox.example.yaml documents every key), then FAREBOX_* environment
// variables, then flags. Secrets (API keys, the relayer key, facilitator
// credentials) are never in the file: only the names of the environment
// variables that hold them.
type Config struct {
	// Addr is the listen address.
	Addr string `yaml:"addr"`
	// PublicURL is the base URL clients reach farebox at (used for the x402
	// resource); empty = derived from each request's Host.
	PublicURL string `yaml:"public_url"`
	// PublicHosts are the Host headers (host or host:port) farebox may name
	// in an offer's resource when PublicURL is empty; a loopback host
	// always may. Any other Host is the client's word, not the operator's:
	// the resource then names the listen address.
	PublicHosts []string `yaml:"public_hosts"`
	// BodyLimit caps a request body in bytes (default 20 MiB).
	BodyLimit int64 `yaml:"body_limit"`
	// ShutdownTimeout bounds how long open streams may run after SIGTERM.
	ShutdownTimeout Duration `yaml:"shutdown_timeout"`
	// ReadHeaderTimeout and IdleTimeout protect the listener.
	ReadHeaderTimeout Duration `yaml:"read_header_timeout"`
	IdleTimeout       Duration `yaml:"idle_timeout"`
	// LogLevel is debug, info, warn or error.
	LogLevel string `yaml:"log_level"`
	// DataDir is the directory for durable state: the settlement journal.
	DataDir string `yaml:"data_dir"`
	// Store is where farebox keeps every store (journal, channels, books,
	// circuits): memory (default), bolt:DIR or a Redis URL. data_dir and
	// payments.redis_url are older names of the last two.
	Store string `yaml:"store"`
	// Keepalive is how often a waiting stream gets an SSE comment line
	// (default 15 s), so proxies with idle timeouts do not cut it.
	Keepalive Duration `yaml:"keepalive"`

	Limits  LimitsConfig  `yaml:"limits"`
	CORS    CORSConfig    `yaml:"cors"`
	Tools   ToolsConfig   `yaml:"tools"`
	Metrics MetricsConfig `yaml:"metrics"`
	// Admin is the operator's admin API and dashboard (see AdminConfig).
	Admin AdminConfig `yaml:"admin"`
	// Books prices the relayer's gas in the books (see BooksConfig).
	Books BooksConfig `yaml:"books"`

	Payments PaymentsConfig `yaml:"payments"`
	Models   []ModelConfig  `yaml:"models"`
	// EndUsers says how the provider sees each payer (config_limits.go).
	EndUsers EndUsersConfig `yaml:"end_users"`

	// StoredAnswers bounds the answers kept for paid retries.
	StoredAnswers StoredAnswersConfig `yaml:"stored_answers"`
}

// ToolsConfig is the tool policy an operator chooses. Tools the client
// executes always pass; this decides about tools the provider would execute.
type ToolsConfig struct {
	// Hosted is "drop" (default: such tools are removed from the request,
	// named in the Farebox-Dropped-Tools header and logged) or "refuse"
	// (the request is answered 400).
	Hosted string `yaml:"hosted"`
}

// hostedPolicy is the parser's form of Hosted, or an error naming the key.
func (t ToolsConfig) hostedPolicy() (responses.HostedPolicy, error) {
	switch t.Hosted {
	case "", "drop":
		return responses.HostedDrop, nil
	case "refuse":
		return responses.HostedRefuse, nil
	}
	return 0, fmt.Errorf("tools.hosted: want drop or refuse, got %q", t.Hosted)
}

// LimitsConfig bounds what one client can hold: connections, requests in
// flight and how slowly a body may arrive.
type LimitsConfig struct {
	// MaxConnections caps open connections (default 10,000, at most what the
	// file descriptor limit allows); over it a connection is answered 503
	// and closed at once, probes excepted.
	MaxConnections int `yaml:"max_connections"`
	// MaxInFlight caps calls being served (default 4,096); over it a call
	// gets 503 with Retry-After. Probes and /metrics are not counted.
	MaxInFlight int `yaml:"max_in_flight"`
	// BodyTimeout is the time a request body gets for its first
	// BodyMinRate x BodyRateWindow bytes (default 10 s).
	BodyTimeout Duration `yaml:"body_timeout"`
	// BodyMinRate is the slowest a body may arrive, in bytes per second
	// (default 4096), judged over each BodyRateWindow: a window that
	// brings fewer than rate x window bytes cuts the body off (408). Bytes
	// sent early buy no later idleness.
	BodyMinRate int64 `yaml:"body_min_rate"`
	// BodyRateWindow is the interval BodyMinRate is judged over (default 2 s).
	BodyRateWindow Duration `yaml:"body_rate_window"`
	// MaxBodyBytes caps the bytes of all request bodies being read or held
	// at once (default 256 MiB); a body that would pass it gets 503 with
	// Retry-After.
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// MaxHeaderBytes caps the request line and headers (default 64 KiB);
	// larger gets 431.
	MaxHeaderBytes int `yaml:"max_header_bytes"`
	// OtherBodyLimit caps bodies on routes other than POST /v1/responses
	// (default 4 KiB); BodyLimit is the one for /v1/responses.
	OtherBodyLimit int64 `yaml:"other_body_limit"`
}

// CORSConfig is the browser policy.
type CORSConfig struct {
	// AllowedOrigins may call farebox from a web page ("*" = any). Empty
	// (the default for serve): no CORS headers, browsers keep pages out.
	AllowedOrigins []string `yaml:"allowed_origins"`
}

// MetricsConfig says where /metrics is served and who may read it.
type MetricsConfig struct {
	// Addr, when set, serves /metrics on its own listener instead of the
	// main one (e.g. 127.0.0.1:9402).
	Addr string `yaml:"addr"`
	// BearerTokenEnv names an environment variable holding a token that
	// /metrics requires as "Authorization: Bearer <token>".
	BearerTokenEnv string `yaml:"bearer_token_env"`
	// Public opens /metrics on the main listener to anyone. Otherwise it
	// takes the metrics token, or the admin token, or is closed (revenue,
	// payers' activity and the relayer's balance are the operator's);
	// metrics.addr is open to whoever reaches that address.
	Public bool `yaml:"public"`
}

// ModelConfig declares one model clients can name.
type ModelConfig struct {
	// Name is the public model name clients send.
	Name string `yaml:"name"`
	// Upstream is the kind (`upstream:`): one registered in package
	// upstream, such as scripted, openai (Responses API), chat (Chat
	// Completions) or x402 (a Responses endpoint that charges with x402:
	// resold).
	Upstream string `yaml:"upstream"`
	// UpstreamConfig is the kind's own keys, written beside `upstream:` in
	// YAML (base_url, api_key_env, pace, ...: see each kind's Settings);
	// nil = the kind's defaults.
	UpstreamConfig upstream.Config `yaml:"-"`
	// Price per call in USDC as a decimal string; "0" or empty = free.
	Price string `yaml:"price"`
	// PricePerMTok prices the model per token instead (not with Price).
	PricePerMTok *TokenPriceConfig `yaml:"price_per_mtok"`
	// Limits bound what one call may make the upstream spend (config_limits.go).
	Limits *ModelLimits `yaml:"limits"`
	// Description is shown in the x402 offer.
	Description string `yaml:"description"`
	// Created is the model's "created" date in GET /v1/models (YYYY-MM-DD
	// or RFC 3339); default: when the configuration was loaded.
	Created string `yaml:"created"`
	// Cost is what one call costs the operator upstream (an API key's
	// price), booked as the call's cost; a pool's is each supplier's.
	Cost CostConfig `yaml:"cost"`

	// Suppliers, when set, make the model a pool (config_pool.go); the
	// model's own upstream and its keys are then left empty.
	Suppliers []SupplierConfig `yaml:"suppliers"`
	// Routing says how a pool picks and fails over among its suppliers.
	Routing RoutingConfig `yaml:"routing"`

	// keyProblems are the unknown keys and mistyped values decoding found
	// (config_upstream.go), reported by LoadConfig.
	keyProblems []string
}

// UpstreamTimeouts bound each phase of an upstream call.
type UpstreamTimeouts = upstream.Timeouts

// PaymentsConfig says how priced models are paid.
type PaymentsConfig struct {
	// PayTo receives the payments.
	PayTo string `yaml:"pay_to"`
	// Networks lists the networks accepted, by CAIP-2 id or v1 name
	// ("base", "base-sepolia", "eip155:1337"); custom ones are declared below.
	Networks []string `yaml:"networks"`
	// CustomNetworks declares chains that are not built in (a dev chain, anvil).
	CustomNetworks []NetworkConfig `yaml:"custom_networks"`
	// MaxTimeoutSeconds bounds an authorization's validity (default 300).
	MaxTimeoutSeconds int64 `yaml:"max_timeout_seconds"`
	// Settle is "after" (default: an exact transfer is sent as the model
	// starts and the answer waits for it; metered schemes settle the use
	// once the model answered) or "before" (settle, then run the model).
	Settle string `yaml:"settle"`
	// Streams is which payments may buy a stream: "any" (default) or
	// "escrow_only" (batch-settlement channels alone, whose deposit holds
	// the funds before the first byte; exact and upto, whose funds the
	// payer can still move, are refused for stream: true).
	Streams string `yaml:"streams"`
	// Confirm is when a settlement counts as done: "broadcast" (the node
	// accepted the transfer, simulated against pending state; the default
	// with settler chain) or "mined" (its block is in; the default with a
	// facilitator, which only answers once mined).
	Confirm string `yaml:"confirm"`
	// Settler is "facilitator" or "chain".
	Settler string `yaml:"settler"`
	// SettleTimeout bounds one settlement (default 30 s).
	SettleTimeout Duration `yaml:"settle_timeout"`
	// AdoptAfter is how long a purchase of a replica sharing the journal
	// may sit unchanged in flight before another takes it over (default
	// 10m; looked for every minute, or every half of it when shorter).
	AdoptAfter Duration `yaml:"adopt_after"`
	// Facilitator configures the facilitator settler.
	Facilitator FacilitatorConfig `yaml:"facilitator"`
	// Chain configures the chain settler and on-chain checks.
	Chain ChainConfig `yaml:"chain"`
	// RedisURL, when set, keeps replay protection in Redis (shared by replicas).
	RedisURL string `yaml:"redis_url"`
	// BatchSettlement tunes the payment channels of per-token models
	// (settler chain; settler facilitator when chain.rpc_url is set and the
	// facilitator settles batch-settlement).
	BatchSettlement BatchSettlementConfig `yaml:"batch_settlement"`
}

// BatchSettlementConfig tunes batch-settlement: the channels' terms and
// when their vouchers are claimed on chain.
type BatchSettlementConfig struct {
	// WithdrawDelay is the channels' withdrawDelay in seconds (default 900).
	// It is part of every channel id: never change it while channels are open.
	WithdrawDelay uint64 `yaml:"withdraw_delay"`
	// ClaimInterval claims every channel with unclaimed charges this often
	// (default 1h; farebox dev: --claim-interval, a few seconds).
	ClaimInterval Duration `yaml:"claim_interval"`
	// ClaimThreshold claims as soon as the unclaimed charges reach this
	// many USDC ("" = no threshold).
	ClaimThreshold string `yaml:"claim_threshold"`
	// ClaimWithdrawLead claims at least this long before a pending
	// withdrawal's delay runs out (default 5m; less than withdraw_delay):
	// charges still unclaimed when a payer finalizes are lost.
	ClaimWithdrawLead Duration `yaml:"claim_withdraw_lead"`
	// MinDeposit is the least one deposit may bring, in USDC (default
	// "0.01"; "0" for no minimum): announced in the offer as
	// extra.minDeposit and enforced, since every deposit is a transaction
	// the operator pays for.
	MinDeposit string `yaml:"min_deposit"`
	// RefundInterval is the least time between a channel's cooperative
	// refund and a partial refund after it (default 10m): a refund voucher
	// does not sign its amount, so each replay would be a transaction. A
	// refund of everything left is always served.
	RefundInterval Duration `yaml:"refund_interval"`
	// MinRefund is the least a partial refund may return, in USDC (default
	// none).
	MinRefund string `yaml:"min_refund"`
	// ReceiverAuthorizer says who signs claims and refunds with settler
	// facilitator: "" (the facilitator's advertised receiverAuthorizer,
	// else no batch-settlement), "facilitator" (the same, required) or
	// "key" (farebox signs with ReceiverAuthorizerKeyEnv's key, the
	// facilitator relays). It is part of every channel id: claim and refund
	// open channels before changing it. With settler chain it must be empty
	// (the relayer is the authorizer).
	ReceiverAuthorizer string `yaml:"receiver_authorizer"`
	// ReceiverAuthorizerKeyEnv names the environment variable holding that
	// key (hex) when ReceiverAuthorizer is "key".
	ReceiverAuthorizerKeyEnv string `yaml:"receiver_authorizer_key_env"`
}

// NetworkConfig declares a custom EVM network and its EIP-3009 token.
type NetworkConfig struct {
	CAIP2   string `yaml:"caip2"`
	V1Name  string `yaml:"v1_name"`
	ChainID int64  `yaml:"chain_id"`
	Asset   string `yaml:"asset"`
	Name    string `yaml:"name"`
	Version string `yaml:"version"`
}

// FacilitatorConfig points at a remote x402 facilitator.
type FacilitatorConfig struct {
	// Kind is "" (any facilitator speaking the x402 HTTP API) or "cdp"
	// (Coinbase's, every request signed with a JWT of the CDP API key);
	// a url on api.cdp.coinbase.com is cdp without saying so.
	Kind string `yaml:"kind"`
	// URL is the facilitator's base URL (with kind cdp, default
	// https://api.cdp.coinbase.com/platform/v2/x402).
	URL string `yaml:"url"`
	// KeyIDEnv and KeySecretEnv name the environment variables holding
	// the CDP API key's id and secret (kind cdp; e.g. CDP_API_KEY_ID and
	// CDP_API_KEY_SECRET).
	KeyIDEnv     string `yaml:"key_id_env"`
	KeySecretEnv string `yaml:"key_secret_env"`
	// AuthHeaderEnv names an environment variable whose value is sent as the
	// Authorization header on every facilitator call.
	AuthHeaderEnv string `yaml:"auth_header_env"`
	// Verify asks the facilitator to verify before the model is called.
	Verify bool `yaml:"verify"`
}

// LoadConfig reads a YAML config file; unknown keys are errors, so a typo
// does not silently become a default.
func LoadConfig(path string) (Config, error) {
	var c Config
	f, err := os.Open(path)
	if err != nil {
		return c, err
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	dec.KnownFields(true)
	err = dec.Decode(&c)
	var te *yaml.TypeError
	if problems := c.keyProblems(); len(problems) > 0 && (err == nil || errors.As(err, &te)) {
		if te == nil {
			te = &yaml.TypeError{}
		}
		te.Errors = byLine(append(te.Errors, problems...))
		err = te
	}
	if err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// byLine orders yaml.v3's "line N: ..." problems by N, so those found
// while decoding a model read in the order of the file.
func byLine(problems []string) []string {
	line := func(p string) int {
		var n int
		fmt.Sscanf(p, "line %d:", &n)
		return n
	}
	sort.SliceStable(problems, func(i, j int) bool { return line(problems[i]) < line(problems[j]) })
	return problems
}

// ApplyEnv overrides c from FAREBOX_* environment variables.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	set := func(name string, dst *string) {
		if v := getenv(name); v != "" {
			*dst = v
		}
	}
	set("FAREBOX_ADDR", &c.Addr)
	set("FAREBOX_PUBLIC_URL", &c.PublicURL)
	set("FAREBOX_LOG_LEVEL", &c.LogLevel)
	set("FAREBOX_TOOLS_HOSTED", &c.Tools.Hosted)
	set("FAREBOX_PAY_TO", &c.Payments.PayTo)
	set("FAREBOX_SETTLE", &c.Payments.Settle)
	set("FAREBOX_SETTLER", &c.Payments.Settler)
	set("FAREBOX_FACILITATOR_URL", &c.Payments.Facilitator.URL)
	set("FAREBOX_RPC_URL", &c.Payments.Chain.RPCURL)
	set("FAREBOX_REDIS_URL", &c.Payments.RedisURL)
	if v := getenv("FAREBOX_NETWORKS"); v != "" {
		c.Payments.Networks = strings.Split(v, ",")
	}
	if v := getenv("FAREBOX_BODY_LIMIT"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("FAREBOX_BODY_LIMIT: want a positive number of bytes, got %q", v)
		}
		c.BodyLimit = n
	}
	return nil
}

// withDefaults fills what the operator left out.
func (c Config) withDefaults() Config {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:8402"
	}
	c.PublicURL = strings.TrimSuffix(c.PublicURL, "/") // the path is appended to it
	hosts := make([]string, len(c.PublicHosts))
	for i, h := range c.PublicHosts {
		hosts[i] = strings.ToLower(h)
	}
	c.PublicHosts = hosts
	if c.BodyLimit == 0 {
		c.BodyLimit = 20 << 20
	}
	if c.LogLevel == "" {
		c.LogLevel = "info"
	}
	if c.ReadHeaderTimeout == 0 {
		c.ReadHeaderTimeout = Duration(10 * time.Second)
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = Duration(120 * time.Second)
	}
	if c.Keepalive == 0 {
		c.Keepalive = Duration(15 * time.Second)
	}
	c.Limits = c.Limits.withDefaults()
	c.Payments = c.Payments.withDefaults()
	c.StoredAnswers = c.StoredAnswers.withDefaults()
	return c
}

// withDefaults fills the payment keys the operator left out; the code
// that reads them keeps a fallback only for configs built in tests.
func (pc PaymentsConfig) withDefaults() PaymentsConfig {
	if pc.MaxTimeoutSeconds == 0 {
		pc.MaxTimeoutSeconds = 300
	}
	if pc.Settle == "" {
		pc.Settle = "after"
	}
	if pc.Chain.RelayerKeyEnv == "" {
		pc.Chain.RelayerKeyEnv = "FAREBOX_RELAYER_KEY"
	}
	if pc.SettleTimeout == 0 {
		pc.SettleTimeout = Duration(30 * time.Second)
	}
	pc.Facilitator = pc.Facilitator.withDefaults()
	bc := &pc.BatchSettlement
	if bc.WithdrawDelay == 0 {
		bc.WithdrawDelay = channel.MinWithdrawDelay
	}
	if bc.ClaimInterval == 0 {
		bc.ClaimInterval = Duration(channel.DefaultClaimInterval)
	}
	if bc.ClaimWithdrawLead == 0 {
		bc.ClaimWithdrawLead = Duration(channel.DefaultClaimWithdrawLead)
	}
	return pc
}

func (l LimitsConfig) withDefaults() LimitsConfig {
	if l.MaxConnections == 0 {
		l.MaxConnections = 10000
	}
	if l.MaxInFlight == 0 {
		l.MaxInFlight = 4096
	}
	if l.BodyTimeout == 0 {
		l.BodyTimeout = Duration(10 * time.Second)
	}
	if l.BodyMinRate == 0 {
		l.BodyMinRate = 4096
	}
	if l.BodyRateWindow == 0 {
		l.BodyRateWindow = Duration(2 * time.Second)
	}
	if l.MaxBodyBytes == 0 {
		l.MaxBodyBytes = 256 << 20
	}
	if l.MaxHeaderBytes == 0 {
		l.MaxHeaderBytes = 64 << 10
	}
	if l.OtherBodyLimit == 0 {
		l.OtherBodyLimit = 4 << 10
	}
	return l
}

// simulate reports whether on-chain simulation is on (default: on when a
// chain is reachable).
func (c ChainConfig) simulate() bool {
	if c.Simulate.set {
		return c.Simulate.on
	}
	return c.RPCURL != ""
}
