package contracts

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/evm"
)

// Canonical addresses of the x402 contracts (CREATE2 deployments, the same on
// every chain) that @x402/evm 2.27 hard-codes in its clients.
var (
	CanonicalBatchSettlement         = common.HexToAddress("0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003")
	CanonicalERC3009DepositCollector = common.HexToAddress("0x4020806089470a89826cB9fB1f4059150b550004")
	CanonicalPermit2DepositCollector = common.HexToAddress("0x4020425FAf3B746C082C2f942b4E5159887B0005")
	CanonicalPermit2                 = common.HexToAddress("0x000000000022D473030F116dDEE9F6B43aC78BA3")
	CanonicalUptoPermit2Proxy        = common.HexToAddress("0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002")
)

// Deployment is where the batch-settlement and upto contracts live on one chain.
type Deployment struct {
	BatchSettlement         common.Address
	ERC3009DepositCollector common.Address
	Permit2DepositCollector common.Address
	Permit2                 common.Address
	UptoPermit2Proxy        common.Address
}

// Canonical is the deployment at the canonical addresses (Base, Base Sepolia).
func Canonical() Deployment {
	return Deployment{BatchSettlement: CanonicalBatchSettlement,
		ERC3009DepositCollector: CanonicalERC3009DepositCollector,
		Permit2DepositCollector: CanonicalPermit2DepositCollector,
		Permit2:                 CanonicalPermit2, UptoPermit2Proxy: CanonicalUptoPermit2Proxy}
}

// Deploy creates Permit2, x402BatchSettlement, both deposit collectors and
// the upto proxy from the transactor's key (plain CREATE, so at addresses
// derived from its nonce), each waited for in turn.
func Deploy(ctx context.Context, t *evm.Transactor) (Deployment, error) {
	var d Deployment
	var err error
	step := func(what string, code []byte, out *common.Address) {
		if err != nil {
			return
		}
		if *out, err = t.Deploy(ctx, code); err != nil {
			err = fmt.Errorf("contracts: deploying %s: %w", what, err)
		}
	}
	step("Permit2", common.FromHex(Permit2MetaData.Bin), &d.Permit2)
	step("x402BatchSettlement", common.FromHex(BatchSettlementMetaData.Bin), &d.BatchSettlement)
	step("ERC3009DepositCollector", append(common.FromHex(ERC3009DepositCollectorMetaData.Bin),
		NewERC3009DepositCollector().PackConstructor(d.BatchSettlement)...), &d.ERC3009DepositCollector)
	step("Permit2DepositCollector", append(common.FromHex(Permit2DepositCollectorMetaData.Bin),
		NewPermit2DepositCollector().PackConstructor(d.BatchSettlement, d.Permit2)...), &d.Permit2DepositCollector)
	step("x402UptoPermit2Proxy", append(common.FromHex(UptoPermit2ProxyMetaData.Bin),
		NewUptoPermit2Proxy().PackConstructor(d.Permit2)...), &d.UptoPermit2Proxy)
	return d, err
}

// DeployToken creates a FareboxUSDv2 (EIP-712 domain name and version as
// given, symbol "USDC") owned by the transactor's key, which may mint.
func DeployToken(ctx context.Context, t *evm.Transactor, name, version string) (common.Address, error) {
	code := append(common.FromHex(FareboxUSDv2MetaData.Bin), NewFareboxUSDv2().PackConstructor(name, version, "USDC")...)
	addr, err := t.Deploy(ctx, code)
	if err != nil {
		return common.Address{}, fmt.Errorf("contracts: deploying FareboxUSDv2: %w", err)
	}
	return addr, nil
}

// Mint creates amount test dollars for to; t must be the token's owner.
func Mint(ctx context.Context, t *evm.Transactor, token, to common.Address, amount *big.Int) error {
	if _, err := t.Send(ctx, &token, NewFareboxUSDv2().PackMint(to, amount), nil); err != nil {
		return fmt.Errorf("contracts: minting for %s: %w", to, err)
	}
	return nil
}
