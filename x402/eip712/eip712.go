// Package eip712 holds the hand-rolled EIP-712 pieces the x402 schemes past
// `exact` share: strict recovery of an EOA signature, 32-byte word encoding,
// Permit2's PermitWitnessTransferFrom digest (upto payments and Permit2
// channel deposits), and the token-domain digests of EIP-2612 permits and
// EIP-3009 receiveWithAuthorization. Digests are a few keccak rounds over
// fixed buffers, precomputed where they can be; go-ethereum's apitypes
// cross-checks them in tests only.
package eip712

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
)

// Type hashes that never change.
var (
	permit2DomainTypeHash = crypto.Keccak256Hash([]byte("EIP712Domain(string name,uint256 chainId,address verifyingContract)"))
	domainTypeHash        = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	tokenPermissionsHash  = crypto.Keccak256Hash([]byte("TokenPermissions(address token,uint256 amount)"))
	permit2612TypeHash    = crypto.Keccak256Hash([]byte("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)"))
	receiveTypeHash       = crypto.Keccak256Hash([]byte("ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"))
	permit2NameHash       = crypto.Keccak256Hash([]byte("Permit2"))
)

// permitWitnessStub is the head of every PermitWitnessTransferFrom type
// string; the witness type string completes it (Permit2's SignatureTransfer).
const permitWitnessStub = "PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,"

// secp256k1 order n and n/2, big-endian.
var (
	secpN, _   = new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)
	secpNBytes = secpN.FillBytes(make([]byte, 32))
	secpHalfN  = new(big.Int).Rsh(secpN, 1).FillBytes(make([]byte, 32))
	zeroWord   = make([]byte, 32)
)

// Signature shape errors, returned by Recover.
var (
	ErrSignatureLength = errors.New("eip712: signature must be 65 bytes")
	ErrSignatureV      = errors.New("eip712: signature v must be 27 or 28")
	ErrSignatureRange  = errors.New("eip712: signature r or s is out of range")
	ErrSignatureHighS  = errors.New("eip712: signature s is high; use the low-s form")
	ErrNoSigner        = errors.New("eip712: signature does not recover")
)

// Recover returns the address whose key signed digest with the 65-byte
// signature (r, s, v), holding it to what contracts accept on chain: v in
// {27, 28} (or {0, 1}), 0 < r, s < n, and s <= n/2 (OpenZeppelin's ECDSA
// and USDC reject high s).
func Recover(digest [32]byte, sig []byte) (common.Address, error) {
	if len(sig) != 65 {
		return common.Address{}, ErrSignatureLength
	}
	r, s, v := sig[0:32], sig[32:64], sig[64]
	if v >= 27 {
		v -= 27
	}
	if v > 1 {
		return common.Address{}, ErrSignatureV
	}
	if bytes.Equal(r, zeroWord) || bytes.Equal(s, zeroWord) ||
		bytes.Compare(r, secpNBytes) >= 0 || bytes.Compare(s, secpNBytes) >= 0 {
		return common.Address{}, ErrSignatureRange
	}
	if bytes.Compare(s, secpHalfN) > 0 {
		return common.Address{}, ErrSignatureHighS
	}
	// The digest and signature go to cgo from the pooled scratch, so
	// neither the caller's copies nor new ones reach the heap.
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	copy(sc.sig[:64], sig[:64])
	sc.sig[64] = v
	sc.out = digest
	pub, err := crypto.Ecrecover(sc.out[:], sc.sig[:])
	if err != nil || len(pub) != 65 {
		return common.Address{}, ErrNoSigner
	}
	sc.h.Reset()
	sc.h.Write(pub[1:])
	sc.h.Read(sc.out[:])
	var a common.Address
	copy(a[:], sc.out[12:])
	return a, nil
}

// Digest is keccak256(0x19 0x01 || domainSeparator || structHash).
func Digest(domainSeparator, structHash [32]byte) [32]byte {
	var buf [66]byte
	buf[0], buf[1] = 0x19, 0x01
	copy(buf[2:34], domainSeparator[:])
	copy(buf[34:], structHash[:])
	return keccak(buf[:])
}

// Words builds an abi.encode of static 32-byte words, the body of an
// EIP-712 struct hash.
type Words []byte

// Hash returns the keccak256 of the words, wrapped as a common.Hash.
func (w Words) Hash() [32]byte { return keccak(w) }

// Bytes32 appends a 32-byte word.
func (w Words) Bytes32(b [32]byte) Words { return append(w, b[:]...) }

// Address appends an address, left-padded to 32 bytes.
func (w Words) Address(a common.Address) Words {
	w = append(w, zeroWord[:12]...)
	return append(w, a[:]...)
}

// Uint appends an unsigned integer as a big-endian word; nil, negative and
// wider than 256-bit values append zero (decoders refuse them earlier).
func (w Words) Uint(v *big.Int) Words {
	var word [32]byte
	if v != nil && v.Sign() >= 0 && v.BitLen() <= 256 {
		v.FillBytes(word[:])
	}
	return append(w, word[:]...)
}

// Uint64 appends a small unsigned integer.
func (w Words) Uint64(v uint64) Words {
	var word [32]byte
	binary.BigEndian.PutUint64(word[24:], v)
	return append(w, word[:]...)
}

// DomainSeparator is keccak256 of EIP712Domain(string name,string
// version,uint256 chainId,address verifyingContract), the domain of tokens
// and of x402BatchSettlement.
func DomainSeparator(name, version string, chainID *big.Int, contract common.Address) [32]byte {
	return Words(nil).Bytes32(domainTypeHash).Bytes32(crypto.Keccak256Hash([]byte(name))).
		Bytes32(crypto.Keccak256Hash([]byte(version))).Uint(chainID).Address(contract).Hash()
}

// Permit2Domain is Permit2's domain separator: name "Permit2", no version.
func Permit2Domain(chainID *big.Int, permit2 common.Address) [32]byte {
	return Words(nil).Bytes32(permit2DomainTypeHash).Bytes32(permit2NameHash).Uint(chainID).Address(permit2).Hash()
}

// PermitWitnessTransferFrom is a Permit2 signature transfer bound to a
// witness: what the upto proxy and the Permit2 deposit collector spend.
type PermitWitnessTransferFrom struct {
	Token    common.Address
	Amount   *big.Int
	Spender  common.Address
	Nonce    *big.Int
	Deadline *big.Int
}

// WitnessType is one witness struct as Permit2 hashes it: the type string
// that completes permitWitnessStub (e.g. "Witness witness)TokenPermissions(
// address token,uint256 amount)Witness(address to,address facilitator,
// uint256 validAfter)") and the keccak of the full type string.
type WitnessType struct {
	TypeString string
	typeHash   [32]byte
}

// NewWitnessType precomputes the full PermitWitnessTransferFrom type hash.
func NewWitnessType(typeString string) *WitnessType {
	return &WitnessType{TypeString: typeString, typeHash: crypto.Keccak256Hash([]byte(permitWitnessStub + typeString))}
}

// Digest is the EIP-712 digest the payer signs, given Permit2's domain
// separator and the hash of the witness struct.
func (w *WitnessType) Digest(permit2Domain [32]byte, p *PermitWitnessTransferFrom, witnessHash [32]byte) [32]byte {
	perms := Words(make([]byte, 0, 3*32)).Bytes32(tokenPermissionsHash).Address(p.Token).Uint(p.Amount).Hash()
	st := Words(make([]byte, 0, 6*32)).Bytes32(w.typeHash).Bytes32(perms).Address(p.Spender).Uint(p.Nonce).Uint(p.Deadline).
		Bytes32(witnessHash).Hash()
	return Digest(permit2Domain, st)
}

// Permit2612 is an EIP-2612 permit message.
type Permit2612 struct {
	Owner    common.Address
	Spender  common.Address
	Value    *big.Int
	Nonce    *big.Int
	Deadline *big.Int
}

// PermitDigest is the digest of an EIP-2612 permit under the token's domain.
func PermitDigest(n *x402.Network, p *Permit2612) [32]byte {
	st := Words(make([]byte, 0, 6*32)).Bytes32(permit2612TypeHash).Address(p.Owner).Address(p.Spender).Uint(p.Value).
		Uint(p.Nonce).Uint(p.Deadline).Hash()
	return Digest(n.DomainSeparator(), st)
}

// ReceiveDigest is the digest of an EIP-3009 ReceiveWithAuthorization under
// the token's domain (same fields as TransferWithAuthorization, another type).
func ReceiveDigest(n *x402.Network, a *x402.Authorization) [32]byte {
	st := Words(make([]byte, 0, 7*32)).Bytes32(receiveTypeHash).Address(a.From).Address(a.To).Uint(a.Value).
		Uint(a.ValidAfter).Uint(a.ValidBefore).Bytes32(a.Nonce).Hash()
	return Digest(n.DomainSeparator(), st)
}
