package upto

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// The two ERC-20 reads a refused upto payment is explained with, encoded
// by hand: every USDC answers them, whatever else its ABI holds.
var (
	selBalanceOf = [4]byte{0x70, 0xa0, 0x82, 0x31} // balanceOf(address)
	selAllowance = [4]byte{0xdd, 0x62, 0xed, 0x3e} // allowance(address,address)
)

// erc20Call is the calldata of sel with address arguments.
func erc20Call(sel [4]byte, args ...common.Address) []byte {
	out := make([]byte, 4, 4+32*len(args))
	copy(out, sel[:])
	for _, a := range args {
		out = append(out, common.LeftPadBytes(a[:], 32)...)
	}
	return out
}

// uint256Result decodes a call's single uint256 answer.
func uint256Result(out []byte) (*big.Int, bool) {
	if len(out) != 32 {
		return nil, false
	}
	return new(big.Int).SetBytes(out), true
}
