package eip155

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/facilitator"
	"github.com/farebox/farebox/x402/settle"
)

// remoteFacilitator is a settler that is a remote x402 facilitator: it
// says what it settles (/supported), and the channels may call its
// endpoints.
type remoteFacilitator interface {
	service.FacilitatorCaller
	Supported(ctx context.Context) (*facilitator.Supported, error)
}

// delegated is the service's setup with settler facilitator (the spec's
// delegation): the facilitator sends deposits, claims, sweeps and refunds
// and, unless receiver_authorizer is "key", signs the claims and refunds
// as the receiverAuthorizer it advertises in /supported. farebox still
// owns the channel state and reads the contract itself (chain.rpc_url,
// eth_call only) to load channels and see withdrawals. on is false, with
// a log line, when batch-settlement cannot be offered (no rpc_url, or a
// facilitator that does not settle it).
func delegated(d settle.SchemeDeps, fc remoteFacilitator) (cfg service.Config, on bool, err error) {
	bc := d.Channels
	switch bc.ReceiverAuthorizer {
	case "", "facilitator", "key":
	default:
		return cfg, false, fmt.Errorf("payments.batch_settlement.receiver_authorizer: want facilitator or key, got %q", bc.ReceiverAuthorizer)
	}
	required := bc.ReceiverAuthorizer != ""
	skip := func(why string) (service.Config, bool, error) {
		if required {
			return cfg, false, fmt.Errorf("payments.batch_settlement.receiver_authorizer %s: %s", bc.ReceiverAuthorizer, why)
		}
		if d.Metered {
			// Only a per-token model would offer it: otherwise there is
			// nothing to say (start-up logs nothing else).
			d.Log.Info("batch-settlement not offered with settler facilitator: " + why)
		}
		return cfg, false, nil
	}
	if d.RPCURL == "" {
		return skip("payments.chain.rpc_url is needed to read the channels")
	}
	client, err := evm.DialConfigured(d.RPCURL)
	if err != nil {
		return cfg, false, err
	}
	d.AddCloser(client.Close, false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	chainID, err := client.ChainID(ctx)
	if err != nil {
		return cfg, false, fmt.Errorf("payments.chain.rpc_url: %w", err)
	}
	var network *x402.Network
	for _, n := range d.Networks {
		if n.ChainID.Cmp(chainID) == 0 {
			network = n
		}
	}
	if network == nil {
		return skip(fmt.Sprintf("no network in payments.networks is the chain at payments.chain.rpc_url (chain id %s)", chainID))
	}
	sup, err := fc.Supported(ctx)
	if err != nil {
		return skip(fmt.Sprintf("reading the facilitator's supported kinds: %v", err))
	}
	if !sup.Supports(2, channel.Scheme, network.CAIP2) {
		return skip("the facilitator does not settle batch-settlement on " + network.CAIP2)
	}
	fb := &service.FacilitatorBackend{Facilitator: fc, Contracts: canonicalContracts(chainID), Network: network.CAIP2, Receipts: client}
	if a, ok := fc.(interface{ Available(context.Context) error }); ok {
		// While the facilitator is seen down, a deposit or refund is
		// refused 503 before anything runs; vouchers need it only to claim.
		fb.Available = a.Available
	}
	if bc.ReceiverAuthorizer == "key" {
		env := bc.ReceiverAuthorizerKeyEnv
		if env == "" {
			return cfg, false, fmt.Errorf("payments.batch_settlement.receiver_authorizer_key_env is required with receiver_authorizer: key")
		}
		key, err := crypto.HexToECDSA(strings.TrimPrefix(d.Getenv(env), "0x"))
		if err != nil {
			return cfg, false, fmt.Errorf("$%s: %w", env, err)
		}
		fb.Key, fb.Authorizer = key, crypto.PubkeyToAddress(key.PublicKey)
	} else {
		a := sup.ReceiverAuthorizer(channel.Scheme, network.CAIP2)
		if !common.IsHexAddress(a) || common.HexToAddress(a) == (common.Address{}) {
			return skip("the facilitator advertises no receiverAuthorizer to delegate to (set receiver_authorizer: key)")
		}
		fb.Authorizer = common.HexToAddress(a)
	}
	d.Log.Info("batch-settlement through the facilitator", "network", network.CAIP2,
		"receiver_authorizer", fb.Authorizer.Hex(), "farebox_signs", fb.Key != nil)
	return service.Config{Contracts: fb.Contracts, Chain: client, Backend: fb}, true, nil
}
