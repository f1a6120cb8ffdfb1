package channel

import (
	"bytes"
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// reflectJSON is the state's JSON rendered by encoding/json from stateJSON:
// what AppendJSON must write byte for byte.
func reflectJSON(t *testing.T, s *State) []byte {
	t.Helper()
	b, err := json.Marshal(stateJSON{ChannelID: s.ChannelID, Config: s.Config.wire(),
		Charged: s.Charged.String(), SignedMaxClaimable: s.SignedMaxClaimable.String(), Signature: s.Signature,
		Balance: s.Balance.String(), TotalClaimed: s.TotalClaimed.String(),
		WithdrawRequestedAt: s.WithdrawRequestedAt, RefundNonce: s.RefundNonce.String(),
		OnchainSyncedAt: unixMilli(s.OnchainSyncedAt), LastRequestAt: unixMilli(s.LastRequestAt)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAppendJSONMatchesTheReflectedLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() (w [32]byte) {
		for i := range w {
			w[i] = byte(r.Uint32())
		}
		return w
	}
	addr := func() common.Address { w := word(); return common.BytesToAddress(w[:20]) }
	amount := func() *big.Int {
		switch r.IntN(3) {
		case 0:
			return new(big.Int)
		case 1:
			return new(big.Int).SetUint64(r.Uint64())
		}
		w := word()
		return new(big.Int).SetBytes(w[:16]) // up to uint128, past uint64
	}
	for i := range 200 {
		s := NewState(word(), Config{Payer: addr(), PayerAuthorizer: addr(), Receiver: addr(), ReceiverAuthorizer: addr(),
			Token: addr(), WithdrawDelay: r.Uint64N(MaxWithdrawDelay), Salt: word()},
			Onchain{Balance: amount(), TotalClaimed: amount(), WithdrawRequestedAt: r.Uint64(), RefundNonce: amount()},
			time.UnixMilli(r.Int64N(1<<42)))
		s.Charged, s.SignedMaxClaimable = amount(), amount()
		if i%3 != 0 {
			s.Signature = make([]byte, 65)
			for j := range s.Signature {
				s.Signature[j] = byte(r.Uint32())
			}
			s.LastRequestAt = time.UnixMilli(r.Int64N(1 << 42))
		}
		if i%7 == 0 {
			s.OnchainSyncedAt = time.Time{}
		}
		got, _ := s.MarshalJSON()
		if want := reflectJSON(t, s); !bytes.Equal(got, want) {
			t.Fatalf("state %d:\n got %s\nwant %s", i, got, want)
		}
		var back State
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if again, _ := back.MarshalJSON(); !bytes.Equal(again, got) {
			t.Fatalf("state %d does not survive a round trip:\n%s\n%s", i, got, again)
		}
	}
}

func BenchmarkStateJSON(b *testing.B) {
	s := NewState([32]byte{1}, Config{Payer: common.Address{1}, Receiver: common.Address{2}, WithdrawDelay: 900},
		Onchain{Balance: big.NewInt(10_000_000)}, time.UnixMilli(1_800_000_000_000))
	b.ReportAllocs()
	buf := make([]byte, 0, 1024)
	for range b.N {
		buf = s.AppendJSON(buf[:0])
	}
}
