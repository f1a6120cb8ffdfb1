package contracts_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
)

// startChain runs a dev chain with the x402 contracts and a FareboxUSDv2
// deployed from its relayer key. Its block timestamps may run a minute
// ahead of the clock (each block is a second after its parent): nothing
// here is timed, and the default 2 s would make each deployment wait for
// the clock.
func startChain(t *testing.T) (*devchain.Chain, *evm.Transactor, contracts.Deployment, common.Address) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := devchain.Start(ctx, devchain.Config{MaxDrift: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tx, err := evm.NewTransactor(ctx, c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	d, err := contracts.Deploy(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	token, err := contracts.DeployToken(ctx, tx, "USDC", "2")
	if err != nil {
		t.Fatal(err)
	}
	return c, tx, d, token
}

func TestDeploy(t *testing.T) {
	c, _, d, token := startChain(t)
	ctx := context.Background()
	for name, a := range map[string]common.Address{"BatchSettlement": d.BatchSettlement, "Permit2": d.Permit2,
		"ERC3009DepositCollector": d.ERC3009DepositCollector, "Permit2DepositCollector": d.Permit2DepositCollector,
		"UptoPermit2Proxy": d.UptoPermit2Proxy, "token": token} {
		code, err := c.Client.CodeAt(ctx, a, nil)
		if err != nil || len(code) == 0 {
			t.Errorf("%s at %s has no code (%v)", name, a, err)
		}
	}
	// The collectors and the proxy were built against these addresses.
	out, err := c.Client.CallContract(ctx, callMsg(d.UptoPermit2Proxy, contracts.NewUptoPermit2Proxy().PackPERMIT2()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := contracts.NewUptoPermit2Proxy().UnpackPERMIT2(out); got != d.Permit2 {
		t.Errorf("upto proxy PERMIT2 = %s, want %s", got, d.Permit2)
	}
	out, err = c.Client.CallContract(ctx, callMsg(d.BatchSettlement, contracts.NewBatchSettlement().PackMINWITHDRAWDELAY()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := contracts.NewBatchSettlement().UnpackMINWITHDRAWDELAY(out); got.Cmp(big.NewInt(900)) != 0 {
		t.Errorf("MIN_WITHDRAW_DELAY = %s, want 900", got)
	}
}
