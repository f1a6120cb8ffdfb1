//go:build !server

package main

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
)

// devV1Name is the dev network's x402 v1 name, so the v1 body of a 402
// offers it too (v1 has no CAIP-2 ids; a network without a name is left out).
const devV1Name = "farebox-dev"

// devNet is the chain `farebox dev` settles on: the in-process one, or an
// external one (--chain) with the dev token deployed on it.
type devNet struct {
	backend    evm.Backend
	network    *x402.Network
	rpcURL     string
	payerKey   *ecdsa.PrivateKey
	relayerKey *ecdsa.PrivateKey
	fund       func(ctx context.Context, addr common.Address, amount *big.Int) error
	close      func() error
	// about describes the chain for the banner.
	about string
	// pollInterval is how often the settler looks for its receipt.
	pollInterval time.Duration
}

func (n *devNet) payer() common.Address { return crypto.PubkeyToAddress(n.payerKey.PublicKey) }

// startInProcess starts the embedded chain.
func startInProcess(ctx context.Context, f devFlags) (*devNet, error) {
	c, err := devchain.Start(ctx, devchain.Config{ChainID: f.chainID, RPCAddr: f.rpcAddr, V1Name: devV1Name, BlockTime: f.blockTime})
	if err != nil {
		var addrErr *devchain.RPCAddrError
		if errors.As(err, &addrErr) || errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf(`the dev chain's JSON-RPC address %s is already in use (another farebox dev?): choose another with --rpc-addr, or --rpc-addr "" for none`, f.rpcAddr)
		}
		return nil, fmt.Errorf("dev chain: %w", err)
	}
	mining := "a block as soon as a transaction arrives"
	poll := 10 * time.Millisecond
	if f.blockTime > 0 {
		mining = "a block every " + f.blockTime.String()
		poll = min(f.blockTime/4, 250*time.Millisecond)
	}
	return &devNet{backend: c.Client, network: c.Network, rpcURL: c.RPCURL, payerKey: c.PayerKey, relayerKey: c.RelayerKey,
		fund: c.Fund, close: c.Close, pollInterval: poll,
		about: fmt.Sprintf("in-process dev chain %s, mining %s (state lives in memory and is gone on exit)", c.Network.CAIP2, mining)}, nil
}

// attachRemote deploys (or finds, with --data) the dev token on --chain.
func attachRemote(ctx context.Context, f devFlags, getenv func(string) string) (*devNet, error) {
	rc := devchain.RemoteConfig{RPCURL: f.chain, DataDir: f.dataDir, V1Name: devV1Name}
	var err error
	if rc.DeployerKey, err = keyFrom(f.deployerKey, "the deployer key (FAREBOX_DEPLOYER_KEY or --deployer-key-file)"); err != nil {
		return nil, err
	}
	if rc.RelayerKey, err = keyFrom(getenv("FAREBOX_RELAYER_KEY"), "FAREBOX_RELAYER_KEY"); err != nil {
		return nil, err
	}
	r, err := devchain.Attach(ctx, rc)
	if err != nil {
		return nil, remoteError(f, err)
	}
	kept := "kept in memory only: add --data DIR to reuse it"
	if r.Path != "" {
		kept = "kept in " + r.Path
		if r.Reused {
			kept = "reused from " + r.Path
		}
	}
	return &devNet{backend: r.Client, network: r.Network, rpcURL: r.RPCURL, payerKey: r.PayerKey, relayerKey: r.RelayerKey,
		fund: r.Fund, close: r.Close, pollInterval: 100 * time.Millisecond,
		about: fmt.Sprintf("dev chain %s at %s (token and keys %s)", r.Network.CAIP2, r.RPCURL, kept)}, nil
}

// remoteError names the flag to change for what went wrong on --chain.
func remoteError(f devFlags, err error) error {
	switch {
	case errors.Is(err, devchain.ErrNoDeployer):
		return fmt.Errorf("--chain %s: %w: pass a funded key in FAREBOX_DEPLOYER_KEY or --deployer-key-file", f.chain, err)
	case errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "no such host"):
		return fmt.Errorf("--chain %s is unreachable (%s): start the node or fix --chain", f.chain, rootCause(err))
	}
	return fmt.Errorf("--chain %s: %w", f.chain, err)
}

// keyFrom decodes an optional hex private key; what names its source.
func keyFrom(hexKey, what string) (*ecdsa.PrivateKey, error) {
	if hexKey == "" {
		return nil, nil
	}
	k, err := crypto.HexToECDSA(strings.TrimPrefix(hexKey, "0x"))
	if err != nil {
		return nil, fmt.Errorf("%s: not a hex private key (%v)", what, err)
	}
	return k, nil
}
