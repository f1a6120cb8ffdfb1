package eip712

import (
	"sync"

	"github.com/ethereum/go-ethereum/crypto"
)

// scratch is a pooled keccak state with room for what it hashes: handing
// the hasher (an interface) a caller's buffer or result moves them to the
// heap, one allocation each per hash, on every payment verified.
type scratch struct {
	h   crypto.KeccakState
	buf [scratchBytes]byte
	out [32]byte
	sig [65]byte
}

// scratchBytes holds the longest struct encoded on the hot path (a
// channel config: eight words); longer input is hashed in pieces.
const scratchBytes = 8 * 32

var scratchPool = sync.Pool{New: func() any { return &scratch{h: crypto.NewKeccakState()} }}

// keccak is keccak256(b) without allocating.
func keccak(b []byte) [32]byte {
	s := scratchPool.Get().(*scratch)
	s.h.Reset()
	for len(b) > 0 {
		n := copy(s.buf[:], b)
		s.h.Write(s.buf[:n])
		b = b[n:]
	}
	s.h.Read(s.out[:])
	out := s.out
	scratchPool.Put(s)
	return out
}
