package evm

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

func init() { settle.RegisterTxCheck("eip155", buildTxCheck) }

// buildTxCheck reads payments.chain.rpc_url to check that a facilitator's
// transaction hash is a mined, successful transaction with a log of the
// network's token (the transfer): a made-up hash is never booked as
// settled.
func buildTxCheck(d settle.SettlerDeps) (settle.TxCheck, error) {
	client, err := DialConfigured(d.Chain.RPCURL)
	if err != nil {
		return nil, err
	}
	d.AddCloser(client.Close)
	return func(ctx context.Context, n *x402.Network, hash string) error {
		return checkTx(ctx, client, n, hash)
	}, nil
}

func checkTx(ctx context.Context, b interface {
	TransactionReceipt(context.Context, common.Hash) (*types.Receipt, error)
}, n *x402.Network, hash string) error {
	raw, err := common.ParseHexOrString(hash)
	if err != nil || len(raw) != common.HashLength {
		return fmt.Errorf("transaction %q is not a transaction hash", hash)
	}
	rc, err := b.TransactionReceipt(ctx, common.BytesToHash(raw))
	if err != nil {
		return fmt.Errorf("transaction %s is not on the chain at payments.chain.rpc_url: %w", hash, err)
	}
	if rc.Status != types.ReceiptStatusSuccessful {
		return fmt.Errorf("transaction %s reverted", hash)
	}
	for _, l := range rc.Logs {
		if n == nil || l.Address == n.Asset {
			return nil
		}
	}
	return fmt.Errorf("transaction %s moved no %s token", hash, n.CAIP2)
}
