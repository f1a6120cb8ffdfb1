package contracts_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"
	"github.com/farebox/farebox/x402/eip712"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// TestCanonicalAlloc puts the contracts at their canonical addresses in a
// chain's genesis and checks what clients with hard-coded addresses rely
// on: Permit2's domain, the settlement contract's domain, the immutables.
func TestCanonicalAlloc(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	chainID := big.NewInt(84532)
	alloc, err := contracts.CanonicalAlloc(ctx, chainID)
	if err != nil {
		t.Fatal(err)
	}
	cfg := *params.AllDevChainProtocolChanges
	cfg.ChainID = chainID
	b := simulated.NewBackend(alloc, func(_ *node.Config, ec *ethconfig.Config) { ec.Genesis.Config = &cfg; ec.NetworkId = 84532 })
	defer b.Close()
	c := b.Client()

	out, err := c.CallContract(ctx, callMsg(contracts.CanonicalPermit2, contracts.NewPermit2().PackDOMAINSEPARATOR()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := eip712.Permit2Domain(chainID, contracts.CanonicalPermit2); common.BytesToHash(out) != want {
		t.Errorf("Permit2 domain %x, want %x", out, want)
	}
	bs := contracts.NewBatchSettlement()
	id := [32]byte{7}
	out, err = c.CallContract(ctx, callMsg(contracts.CanonicalBatchSettlement, bs.PackGetVoucherDigest(id, big.NewInt(5))), nil)
	if err != nil {
		t.Fatal(err)
	}
	sep := eip712.DomainSeparator("x402 Batch Settlement", "1", chainID, contracts.CanonicalBatchSettlement)
	st := eip712.Words(nil).Bytes32(crypto.Keccak256Hash([]byte("Voucher(bytes32 channelId,uint128 maxClaimableAmount)"))).
		Bytes32(id).Uint64(5).Hash()
	if want := eip712.Digest(sep, st); common.BytesToHash(out) != want {
		t.Errorf("voucher digest at the canonical address %x, want %x", out, want)
	}
	out, err = c.CallContract(ctx, callMsg(contracts.CanonicalERC3009DepositCollector, contracts.NewERC3009DepositCollector().PackX402BatchSettlement()), nil)
	if err != nil || common.BytesToAddress(out) != contracts.CanonicalBatchSettlement {
		t.Errorf("ERC-3009 collector serves %x (%v)", out, err)
	}
	out, err = c.CallContract(ctx, callMsg(contracts.CanonicalPermit2DepositCollector, contracts.NewPermit2DepositCollector().PackPERMIT2()), nil)
	if err != nil || common.BytesToAddress(out) != contracts.CanonicalPermit2 {
		t.Errorf("Permit2 collector uses %x (%v)", out, err)
	}
	out, err = c.CallContract(ctx, callMsg(contracts.CanonicalUptoPermit2Proxy, contracts.NewUptoPermit2Proxy().PackPERMIT2()), nil)
	if err != nil || common.BytesToAddress(out) != contracts.CanonicalPermit2 {
		t.Errorf("upto proxy uses %x (%v)", out, err)
	}
}
