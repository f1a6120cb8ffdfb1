package gateway

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/resell"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
)

// newResold builds an `upstream: x402` model: a paid Responses endpoint
// resold, paid from the operator's wallet within its limits.
func (s *Server) newResold(mc ModelConfig, opts Options) (responses.Model, error) {
	if mc.BaseURL == "" {
		return nil, fmt.Errorf("base_url is required for upstream x402")
	}
	if mc.PayerKeyEnv == "" {
		return nil, fmt.Errorf("payer_key_env is required for upstream x402: it names the variable holding the wallet key that pays the upstream")
	}
	keyHex := strings.TrimPrefix(opts.getenv()(mc.PayerKeyEnv), "0x")
	if keyHex == "" {
		return nil, fmt.Errorf("payer_key_env: $%s is empty", mc.PayerKeyEnv)
	}
	key, err := crypto.HexToECDSA(keyHex)
	if err != nil {
		return nil, fmt.Errorf("payer_key_env: $%s is not a private key", mc.PayerKeyEnv)
	}
	if mc.MaxUpstreamPrice == "" {
		return nil, fmt.Errorf("max_upstream_price is required for upstream x402: the most one call may cost upstream")
	}
	maxPrice, err := x402.ParseUSDC(mc.MaxUpstreamPrice)
	if err != nil {
		return nil, fmt.Errorf("max_upstream_price: %w", err)
	}
	var perDay *big.Int
	if mc.MaxSpendPerDay != "" {
		if perDay, err = x402.ParseUSDC(mc.MaxSpendPerDay); err != nil {
			return nil, fmt.Errorf("max_spend_per_day: %w", err)
		}
	}
	var maxDeposit *big.Int
	if mc.MaxUpstreamDeposit != "" {
		if maxDeposit, err = x402.ParseUSDC(mc.MaxUpstreamDeposit); err != nil {
			return nil, fmt.Errorf("max_upstream_deposit: %w", err)
		}
	}
	reg, err := registry(s.cfg.Payments, opts.Networks)
	if err != nil {
		return nil, err
	}
	name := mc.UpstreamModel
	if name == "" {
		name = mc.Name
	}
	cfg := resell.Config{BaseURL: mc.BaseURL, Model: name, Signer: payer.NewSigner(key), Networks: reg,
		MaxPrice: maxPrice, MaxSpendPerDay: perDay, MaxDeposit: maxDeposit, MaxWithdrawDelay: time.Duration(mc.MaxUpstreamWithdrawDelay),
		Timeouts: mc.Timeouts.upstream(), Log: s.log.With("model", mc.Name)}
	if url := firstNonEmpty(mc.RPCURL, s.cfg.Payments.Chain.RPCURL); url != "" {
		client, err := evm.DialConfigured(url)
		if err != nil {
			return nil, fmt.Errorf("rpc_url: %w", err)
		}
		s.pay.closers = append(s.pay.closers, client.Close)
		cfg.Balance = func(ctx context.Context, req *x402.Requirement, who common.Address) (*big.Int, error) {
			return resell.TokenBalance(ctx, client, req.Network.Asset, who)
		}
	}
	return resell.New(cfg)
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
