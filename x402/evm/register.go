package evm

import (
	"context"
	"fmt"
	"time"

	"github.com/farebox/farebox/internal/keyfile"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// The chain settler (payments.settler: chain) and the chain check of
// EVM networks, registered where the chain is, so that a server names
// neither.
func init() {
	settle.RegisterSettler("chain", buildChainSettler)
	settle.RegisterChecker("eip155", buildChecker)
}

var _ settle.Chain = (*Settler)(nil)

// buildChainSettler makes farebox's own relayer from payments.chain: it
// dials rpc_url, reads the relayer key from its variable, and refuses a
// configured network that is not the chain it dialled.
func buildChainSettler(d settle.SettlerDeps) (*settle.SettlerParts, error) {
	cc := d.Chain
	if cc.RPCURL == "" {
		return nil, fmt.Errorf("payments.chain.rpc_url is required with settler: chain")
	}
	key, err := keyfile.Source{Keystore: cc.RelayerKeystore, PasswordFile: cc.RelayerPasswordFile,
		Env: cc.RelayerKeyEnv, What: "payments.chain.relayer_keystore", Key: "the relayer key"}.Load(d.Getenv)
	if err != nil {
		return nil, fmt.Errorf("settler chain: %w", err)
	}
	client, err := DialConfigured(cc.RPCURL)
	if err != nil {
		return nil, err
	}
	d.AddCloser(client.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := NewSettler(ctx, client, key)
	if err != nil {
		return nil, err
	}
	st.Confirmations = cc.Confirmations
	for _, n := range d.Networks {
		if n.ChainID.Cmp(st.ChainID()) != 0 {
			return nil, fmt.Errorf("payments.networks: %s is not the chain at payments.chain.rpc_url (chain id %s)", n.CAIP2, st.ChainID())
		}
	}
	parts := &settle.SettlerParts{Settler: st, Ready: st.Ready, Prove: st.Ready}
	if !d.Checked {
		// EIP-1271 wallets always; the eth_call simulation unless turned off.
		parts.Checker = ConfiguredChecker(client, cc)
	}
	return parts, nil
}

// buildChecker is the chain check of payments read from payments.chain's
// rpc_url, for a settler that is not this chain's relayer.
func buildChecker(d settle.SettlerDeps) (x402.Checker, error) {
	client, err := DialConfigured(d.Chain.RPCURL)
	if err != nil {
		return nil, err
	}
	d.AddCloser(client.Close)
	return ConfiguredChecker(client, d.Chain), nil
}

// DialConfigured dials payments.chain.rpc_url, its errors naming the key.
func DialConfigured(url string) (*Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := Dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("payments.chain.rpc_url: %w", err)
	}
	return client, nil
}

// ConfiguredChecker is the chain's check of payments under cc's simulate mode.
func ConfiguredChecker(b Backend, cc settle.ChainSettings) *Checker {
	c := NewChecker(b, cc.Simulate)
	c.PerPayer = cc.PerPayer
	return c
}
