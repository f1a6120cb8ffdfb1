package upto

import (
	"bytes"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestERC20CallsMatchTheABI holds the hand-encoded reads to the ABI packer
// and their selectors to the hashes of the signatures.
func TestERC20CallsMatchTheABI(t *testing.T) {
	t.Parallel()
	for sig, sel := range map[string][4]byte{"balanceOf(address)": selBalanceOf, "allowance(address,address)": selAllowance} {
		if !bytes.Equal(crypto.Keccak256([]byte(sig))[:4], sel[:]) {
			t.Errorf("%s: selector %x", sig, sel)
		}
	}
	addrT, _ := abi.NewType("address", "", nil)
	a, b := common.HexToAddress("0x00000000000000000000000000000000000000a1"), common.HexToAddress("0xffffffffffffffffffffffffffffffffffffff02")
	want, err := abi.Arguments{{Type: addrT}, {Type: addrT}}.Pack(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := erc20Call(selAllowance, a, b); !bytes.Equal(got[4:], want) || !bytes.Equal(got[:4], selAllowance[:]) {
		t.Errorf("allowance calldata %x, want %x%x", got, selAllowance, want)
	}
	if v, ok := uint256Result(common.LeftPadBytes([]byte{1, 2}, 32)); !ok || v.Int64() != 258 {
		t.Errorf("uint256Result = %v, %v", v, ok)
	}
	if _, ok := uint256Result([]byte{1}); ok {
		t.Error("a short answer decoded")
	}
}
