//go:build !server

// CanonicalAlloc deploys on go-ethereum's simulated backend (an in-process
// node), which only the dev chain and tests need: the production build
// (-tags server) leaves this file out so the server does not link that node.

package contracts

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/farebox/farebox/x402/eip712"
)

// CanonicalAlloc returns the runtime code of Permit2, x402BatchSettlement,
// both deposit collectors and the upto proxy for the canonical addresses
// (as a genesis allocation; on anvil, anvil_setCode each entry), so that
// clients with hard-coded addresses (@x402/evm) work on a dev chain with the
// given chain id. The code comes from deploying on a scratch in-process
// chain with the canonical addresses as constructor arguments, so the
// immutables point where they must; Permit2's cached domain separator
// (bound to its deploy address) is rewritten for the canonical address.
// None of these constructors writes storage, so code alone is the contract.
func CanonicalAlloc(ctx context.Context, chainID *big.Int) (types.GenesisAlloc, error) {
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	cfg := *params.AllDevChainProtocolChanges
	cfg.ChainID = new(big.Int).Set(chainID)
	b := simulated.NewBackend(types.GenesisAlloc{from: {Balance: new(big.Int).Mul(big.NewInt(100), big.NewInt(params.Ether))}},
		func(_ *node.Config, ec *ethconfig.Config) { ec.Genesis.Config = &cfg; ec.NetworkId = chainID.Uint64() })
	defer b.Close()
	client := b.Client()
	signer := types.LatestSignerForChainID(chainID)
	deploy := func(nonce uint64, code []byte) (common.Address, error) {
		head, err := client.HeaderByNumber(ctx, nil)
		if err != nil {
			return common.Address{}, err
		}
		tip, err := client.SuggestGasTipCap(ctx)
		if err != nil {
			return common.Address{}, err
		}
		tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, Gas: 10_000_000,
			GasTipCap: tip, GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))), Data: code})
		if err != nil {
			return common.Address{}, err
		}
		if err := client.SendTransaction(ctx, tx); err != nil {
			return common.Address{}, err
		}
		b.Commit()
		r, err := receipt(ctx, client, tx.Hash())
		if err != nil || r.Status != types.ReceiptStatusSuccessful {
			return common.Address{}, fmt.Errorf("contracts: scratch deployment failed (%v)", err)
		}
		return r.ContractAddress, nil
	}
	type build struct {
		at   common.Address
		code []byte
	}
	builds := []build{
		{CanonicalPermit2, common.FromHex(Permit2MetaData.Bin)},
		{CanonicalBatchSettlement, common.FromHex(BatchSettlementMetaData.Bin)},
		{CanonicalERC3009DepositCollector, append(common.FromHex(ERC3009DepositCollectorMetaData.Bin),
			NewERC3009DepositCollector().PackConstructor(CanonicalBatchSettlement)...)},
		{CanonicalPermit2DepositCollector, append(common.FromHex(Permit2DepositCollectorMetaData.Bin),
			NewPermit2DepositCollector().PackConstructor(CanonicalBatchSettlement, CanonicalPermit2)...)},
		{CanonicalUptoPermit2Proxy, append(common.FromHex(UptoPermit2ProxyMetaData.Bin),
			NewUptoPermit2Proxy().PackConstructor(CanonicalPermit2)...)},
	}
	alloc := types.GenesisAlloc{}
	for i, bd := range builds {
		addr, err := deploy(uint64(i), bd.code)
		if err != nil {
			return nil, err
		}
		code, err := client.CodeAt(ctx, addr, nil)
		if err != nil {
			return nil, err
		}
		if bd.at == CanonicalPermit2 {
			old, want := eip712.Permit2Domain(chainID, addr), eip712.Permit2Domain(chainID, CanonicalPermit2)
			if bytes.Count(code, old[:]) != 1 {
				return nil, fmt.Errorf("contracts: Permit2's cached domain separator not found once in its code")
			}
			code = bytes.Replace(code, old[:], want[:], 1)
		}
		alloc[bd.at] = types.Account{Code: code, Balance: new(big.Int)}
	}
	return alloc, nil
}

// receipt waits for the scratch chain to index a mined transaction.
func receipt(ctx context.Context, c simulated.Client, h common.Hash) (*types.Receipt, error) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		r, err := c.TransactionReceipt(ctx, h)
		if err == nil {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// InstallCanonical puts CanonicalAlloc's code at the canonical addresses of
// an anvil chain (anvil_setCode), so official clients can pay on it.
func InstallCanonical(ctx context.Context, anvil *rpc.Client, chainID *big.Int) error {
	alloc, err := CanonicalAlloc(ctx, chainID)
	if err != nil {
		return err
	}
	for addr, acct := range alloc {
		if err := anvil.CallContext(ctx, nil, "anvil_setCode", addr, hexutil.Bytes(acct.Code)); err != nil {
			return fmt.Errorf("contracts: anvil_setCode %s: %w", addr, err)
		}
	}
	return nil
}
