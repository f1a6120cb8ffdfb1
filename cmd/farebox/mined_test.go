package main

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402/evm/devchain"
)

// chainReader is what the tests read a chain with.
type chainReader interface {
	TransactionReceipt(ctx context.Context, tx common.Hash) (*types.Receipt, error)
	NonceAt(ctx context.Context, who common.Address, block *big.Int) (uint64, error)
	PendingNonceAt(ctx context.Context, who common.Address) (uint64, error)
}

// awaitMined waits for tx's receipt: farebox answers a paid call once its
// transfer is broadcast, before its block.
func awaitMined(t *testing.T, c chainReader, tx common.Hash) *types.Receipt {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if r, err := c.TransactionReceipt(context.Background(), tx); err == nil {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("transaction %s never mined", tx.Hex())
		}
	}
}

// devRelayer is the in-process dev chain's relayer (a public dev key).
var devRelayer = func() common.Address {
	k, err := crypto.HexToECDSA(devchain.DevRelayerKey)
	if err != nil {
		panic(err)
	}
	return crypto.PubkeyToAddress(k.PublicKey)
}()

// awaitRelayer waits until every transaction relayer sent is mined, so
// balances read next include every settlement answered so far.
func awaitRelayer(t *testing.T, c chainReader, relayer common.Address) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := devchain.AwaitMined(ctx, c, relayer); err != nil {
		t.Fatal(err)
	}
}
