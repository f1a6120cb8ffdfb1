package eip712

import "encoding/binary"

// EIP1271Magic is what a contract wallet's isValidSignature(bytes32,bytes)
// returns for a valid signature; it is also that function's selector.
var EIP1271Magic = [4]byte{0x16, 0x26, 0xba, 0x7e}

// IsValidSignatureCalldata encodes isValidSignature(digest, sig): the
// selector, the digest, the offset of the bytes (two words in), their
// length, and the bytes padded to a word.
func IsValidSignatureCalldata(digest [32]byte, sig []byte) []byte {
	padded := (len(sig) + 31) / 32 * 32
	out := make([]byte, 4+32*3+padded)
	copy(out, EIP1271Magic[:])
	copy(out[4:], digest[:])
	out[4+32+31] = 64
	binary.BigEndian.PutUint64(out[4+64+24:4+96], uint64(len(sig)))
	copy(out[4+96:], sig)
	return out
}
