package resell

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/internal/keyfile"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
)

// Kind is this package's name in `upstream:`: a paid endpoint resold.
const Kind = "x402"

func init() {
	upstream.Register(Kind, upstream.KindFunc(func() upstream.Config { return new(Settings) }))
}

// Settings is the keys of `upstream: x402`: a Responses endpoint that
// charges with x402, paid from the operator's wallet within its limits.
type Settings struct {
	// UpstreamModel is the model name sent to the seller (default: the public name).
	UpstreamModel string `yaml:"upstream_model"`
	// BaseURL of the seller, e.g. https://seller.example/v1.
	BaseURL string `yaml:"base_url"`
	// Timeouts for the upstream call.
	Timeouts upstream.Timeouts `yaml:"timeouts"`
	// PayerKeyEnv names the environment variable holding the key of the
	// wallet that pays the upstream.
	PayerKeyEnv string `yaml:"payer_key_env"`
	// PayerKeystore, with PayerPasswordFile, holds that key instead: an
	// encrypted go-ethereum v3 keystore file and the file of its password.
	PayerKeystore     string `yaml:"payer_keystore"`
	PayerPasswordFile string `yaml:"payer_password_file"`
	// MaxUpstreamPrice is the most one call may cost upstream, in USDC; an
	// offer above it is never signed.
	MaxUpstreamPrice string `yaml:"max_upstream_price"`
	// MaxSpendPerDay caps what the wallet signs for the upstream per UTC
	// day, in USDC; empty = no cap.
	MaxSpendPerDay string `yaml:"max_spend_per_day"`
	// MaxUpstreamDeposit is the most one batch-settlement deposit may lock
	// in the upstream's channel, in USDC; default 10 x max_upstream_price.
	// A seller asking a larger minimum is not paid.
	MaxUpstreamDeposit string `yaml:"max_upstream_deposit"`
	// MaxUpstreamWithdrawDelay is the longest withdraw delay of an upstream
	// channel the wallet deposits into (default 24h).
	MaxUpstreamWithdrawDelay upstream.Duration `yaml:"max_upstream_withdraw_delay"`
	// RPCURL is a chain endpoint to read the wallet's balance, so a call it
	// cannot pay is refused before anything is signed, and to prove what
	// an upto seller's settlement moved (the books' cost); default
	// payments.chain.rpc_url.
	RPCURL string `yaml:"rpc_url"`
}

// Validate checks the seller, the wallet's key and the limits.
func (s *Settings) Validate(p upstream.Problems) {
	if s.BaseURL == "" {
		p.Add("base_url", "required for upstream x402")
	} else {
		p.URL("base_url", s.BaseURL, "http", "https")
	}
	src := s.keySource()
	switch {
	case src.Check() != nil:
		p.Add("payer_keystore", "payer_keystore and payer_password_file go together")
	case src.FromKeystore():
		for key, path := range map[string]string{"payer_keystore": s.PayerKeystore, "payer_password_file": s.PayerPasswordFile} {
			if _, err := os.Stat(path); err != nil {
				p.Add(key, "%s cannot be read", path)
			}
		}
	case s.PayerKeyEnv == "":
		p.Add("payer_key_env", "required for upstream x402 (or payer_keystore): it names the variable holding the wallet key that pays the upstream")
	default:
		p.Secret("payer_key_env", s.PayerKeyEnv, true)
	}
	if s.MaxUpstreamPrice == "" {
		p.Add("max_upstream_price", "required for upstream x402: the most one call may cost upstream")
	} else {
		p.USDC("max_upstream_price", s.MaxUpstreamPrice)
	}
	if s.MaxSpendPerDay != "" {
		p.USDC("max_spend_per_day", s.MaxSpendPerDay)
	}
	if s.MaxUpstreamDeposit != "" {
		p.USDC("max_upstream_deposit", s.MaxUpstreamDeposit)
	}
	if s.RPCURL != "" {
		p.URL("rpc_url", s.RPCURL, "http", "https", "ws", "wss")
	}
}

// keySource is where the wallet's key is read from.
func (s *Settings) keySource() keyfile.Source {
	return keyfile.Source{Keystore: s.PayerKeystore, PasswordFile: s.PayerPasswordFile, Env: s.PayerKeyEnv, What: "payer_keystore"}
}

// New builds the resold model: the wallet, its limits and, when a chain
// can be read, the balance check and the proof of upto charges.
func (s *Settings) New(env upstream.Env) (responses.Model, error) {
	key, err := s.keySource().Load(env.Getenv)
	if err != nil {
		return nil, fmt.Errorf("payer key: %w", err)
	}
	cfg := Config{BaseURL: s.BaseURL, Model: upstream.ModelName(s.UpstreamModel, env.Model), Signer: payer.NewSigner(key),
		MaxWithdrawDelay: time.Duration(s.MaxUpstreamWithdrawDelay), Timeouts: s.Timeouts.HTTP(), Log: env.Log.With("model", env.Model)}
	if err := s.limits(&cfg); err != nil {
		return nil, err
	}
	if cfg.Networks, err = env.Networks(); err != nil {
		return nil, err
	}
	if url := s.RPCURL; url != "" || env.ChainRPCURL != "" {
		if url == "" {
			url = env.ChainRPCURL
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		client, err := evm.Dial(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("rpc_url: %w", err)
		}
		cfg.Balance = func(ctx context.Context, req *x402.Requirement, who common.Address) (*big.Int, error) {
			return TokenBalance(ctx, client, req.Network.Asset, who)
		}
		// The same client proves what an upto seller's settlement moved.
		cfg.Chain = client
		m, err := New(cfg)
		if err != nil {
			client.Close()
			return nil, err
		}
		env.OnClose(func() {
			// Proofs still awaited are booked at their maximum before the client goes.
			done, cancel := context.WithCancel(context.Background())
			cancel()
			m.Settle(done)
			client.Close()
		})
		return m, nil
	}
	return New(cfg)
}

// limits reads the wallet's limits into cfg.
func (s *Settings) limits(cfg *Config) error {
	var err error
	if cfg.MaxPrice, err = x402.ParseUSDC(s.MaxUpstreamPrice); err != nil {
		return fmt.Errorf("max_upstream_price: %w", err)
	}
	if s.MaxSpendPerDay != "" {
		if cfg.MaxSpendPerDay, err = x402.ParseUSDC(s.MaxSpendPerDay); err != nil {
			return fmt.Errorf("max_spend_per_day: %w", err)
		}
	}
	if s.MaxUpstreamDeposit != "" {
		if cfg.MaxDeposit, err = x402.ParseUSDC(s.MaxUpstreamDeposit); err != nil {
			return fmt.Errorf("max_upstream_deposit: %w", err)
		}
	}
	return nil
}
