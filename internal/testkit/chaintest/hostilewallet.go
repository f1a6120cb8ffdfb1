package chaintest

import (
	"context"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/evm"
)

// hostileWalletBin is HostileWallet.sol (next to this file) compiled with
// solc-js 0.8.30 from npm (optimizer 200 runs, evmVersion cancun), creation
// bytecode without constructor arguments. Rebuild: npm install solc@0.8.30
// in a scratch folder and compile HostileWallet.sol with those settings
// (standard JSON, output evm.bytecode.object).
const hostileWalletBin = "0x6080604052348015600e575f5ffd5b50604051610275380380610275833981016040819052602b91604e565b5f80546001600160a01b0319166001600160a01b03929092169190911790556079565b5f60208284031215605d575f5ffd5b81516001600160a01b03811681146072575f5ffd5b9392505050565b6101ef806100865f395ff3fe608060405234801561000f575f5ffd5b506004361061003f575f3560e01c80631626ba7e14610043578063372ac1ea14610074578063c3b66a2d146100a5575b5f5ffd5b610056610051366004610115565b6100cf565b6040516001600160e01b031990911681526020015b60405180910390f35b6100a361008236600461018c565b5f80546001600160a01b0319166001600160a01b0392909216919091179055565b005b5f546100b7906001600160a01b031681565b6040516001600160a01b03909116815260200161006b565b5f80546001600160a01b0316158015906100f257505f546001600160a01b031633145b61010357630b135d3f60e11b61010d565b6001600160e01b03195b949350505050565b5f5f5f60408486031215610127575f5ffd5b83359250602084013567ffffffffffffffff811115610144575f5ffd5b8401601f81018613610154575f5ffd5b803567ffffffffffffffff81111561016a575f5ffd5b86602082840101111561017b575f5ffd5b939660209190910195509293505050565b5f6020828403121561019c575f5ffd5b81356001600160a01b03811681146101b2575f5ffd5b939250505056fea264697066735822122059431406038a0084dd16437fb5b99e52bd85d829e026121cbee8a079f063d16564736f6c634300081e0033"

var hostileWalletABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[{"type":"constructor","inputs":[{"name":"refused_","type":"address"}]},
{"type":"function","name":"refuse","inputs":[{"name":"who","type":"address"}],"outputs":[],"stateMutability":"nonpayable"}]`))
	if err != nil {
		panic(err)
	}
	return a
}()

// DeployHostileWallet deploys an EIP-1271 wallet that accepts every
// signature except when the caller is refused (the zero address refuses
// no one), and funds it with PayerFunds USDC. It is the payer who
// signs junk and hopes a batch claim carries it.
func (a *Anvil) DeployHostileWallet(ctx context.Context, refused common.Address) (common.Address, error) {
	tx, err := evm.NewTransactor(ctx, a.Client, a.OwnerKey)
	if err != nil {
		return common.Address{}, err
	}
	args, err := hostileWalletABI.Pack("", refused)
	if err != nil {
		return common.Address{}, err
	}
	w, err := tx.Deploy(ctx, append(common.FromHex(hostileWalletBin), args...))
	if err != nil {
		return common.Address{}, fmt.Errorf("chaintest: deploying HostileWallet: %w", err)
	}
	return w, a.mint(ctx, w, PayerFunds)
}

// SetHostileWalletRefused makes wallet refuse the signatures refused asks
// about (and accept everyone else's) from now on.
func (a *Anvil) SetHostileWalletRefused(ctx context.Context, wallet, refused common.Address) error {
	tx, err := evm.NewTransactor(ctx, a.Client, a.OwnerKey)
	if err != nil {
		return err
	}
	data, err := hostileWalletABI.Pack("refuse", refused)
	if err != nil {
		return err
	}
	_, err = tx.Send(ctx, &wallet, data, nil)
	return err
}
