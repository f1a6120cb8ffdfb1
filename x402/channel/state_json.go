package channel

import (
	"encoding/hex"
	"math/big"
	"strconv"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Clone returns a deep copy of the state.
func (s *State) Clone() *State { return s.clone() }

// AppendJSON appends what MarshalJSON writes to b, without reflection:
// the journal writes a state per paid request.
func (s *State) AppendJSON(b []byte) []byte {
	k := checksums.Get().(*checksummer)
	defer checksums.Put(k)
	b = append(b, `{"channelId":`...)
	b = appendHexString(b, s.ChannelID[:])
	b = append(b, `,"channelConfig":{"payer":`...)
	b = appendAddress(b, s.Config.Payer, k)
	b = append(b, `,"payerAuthorizer":`...)
	b = appendAddress(b, s.Config.PayerAuthorizer, k)
	b = append(b, `,"receiver":`...)
	b = appendAddress(b, s.Config.Receiver, k)
	b = append(b, `,"receiverAuthorizer":`...)
	b = appendAddress(b, s.Config.ReceiverAuthorizer, k)
	b = append(b, `,"token":`...)
	b = appendAddress(b, s.Config.Token, k)
	b = append(b, `,"withdrawDelay":`...)
	b = strconv.AppendUint(b, s.Config.WithdrawDelay, 10)
	b = append(b, `,"salt":`...)
	b = appendHexString(b, s.Config.Salt[:])
	b = append(b, `},"chargedCumulativeAmount":`...)
	b = appendDecimal(b, s.Charged)
	b = append(b, `,"signedMaxClaimable":`...)
	b = appendDecimal(b, s.SignedMaxClaimable)
	b = append(b, `,"signature":`...)
	b = appendHexString(b, s.Signature)
	b = append(b, `,"balance":`...)
	b = appendDecimal(b, s.Balance)
	b = append(b, `,"totalClaimed":`...)
	b = appendDecimal(b, s.TotalClaimed)
	b = append(b, `,"withdrawRequestedAt":`...)
	b = strconv.AppendUint(b, s.WithdrawRequestedAt, 10)
	b = append(b, `,"refundNonce":`...)
	b = appendDecimal(b, s.RefundNonce)
	b = append(b, `,"onchainSyncedAt":`...)
	b = strconv.AppendInt(b, unixMilli(s.OnchainSyncedAt), 10)
	b = append(b, `,"lastRequestTimestamp":`...)
	b = strconv.AppendInt(b, unixMilli(s.LastRequestAt), 10)
	return append(b, '}')
}

// checksummer renders EIP-55 addresses without allocating: its buffers
// live with the hash state (through an interface they would escape).
type checksummer struct {
	k   crypto.KeccakState
	buf [40]byte
	sum [32]byte
}

var checksums = sync.Pool{New: func() any { return &checksummer{k: crypto.NewKeccakState()} }}

// appendHexString appends "0x…" (lower case), as hexutil.Bytes and
// common.Hash render.
func appendHexString(b, v []byte) []byte {
	b = append(b, `"0x`...)
	b = hex.AppendEncode(b, v)
	return append(b, '"')
}

// appendAddress appends a's EIP-55 checksummed form, as common.Address.Hex.
func appendAddress(b []byte, a common.Address, c *checksummer) []byte {
	hex.Encode(c.buf[:], a[:])
	c.k.Reset()
	c.k.Write(c.buf[:])
	c.k.Read(c.sum[:])
	b = append(b, `"0x`...)
	for i, ch := range c.buf {
		if ch > '9' {
			nib := c.sum[i/2]
			if i%2 == 0 {
				nib >>= 4
			} else {
				nib &= 0xf
			}
			if nib > 7 {
				ch -= 32
			}
		}
		b = append(b, ch)
	}
	return append(b, '"')
}

// appendDecimal appends v as a JSON string of its decimal digits.
func appendDecimal(b []byte, v *big.Int) []byte {
	b = append(b, '"')
	if v.IsUint64() {
		b = strconv.AppendUint(b, v.Uint64(), 10)
	} else {
		b = v.Append(b, 10)
	}
	return append(b, '"')
}
