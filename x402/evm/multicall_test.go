package evm

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// abiTryAggregateCalldata is the ABI packer's encoding, the reference.
func abiTryAggregateCalldata(requireSuccess bool, calls []call3) []byte {
	out, err := multicallABI.Pack("tryAggregate", requireSuccess, calls)
	if err != nil {
		panic(err)
	}
	return out
}

// abiUnpackTryAggregate is the ABI decoder's reading, the reference.
func abiUnpackTryAggregate(out []byte) ([]callResult, error) {
	vals, err := multicallABI.Unpack("tryAggregate", out)
	if err != nil {
		return nil, err
	}
	var res []callResult
	err = multicallABI.Methods["tryAggregate"].Outputs.Copy(&res, vals)
	return res, err
}

func randomCalls(rng *rand.Rand, n int) []call3 {
	calls := make([]call3, n)
	for i := range calls {
		for j := range calls[i].Target {
			calls[i].Target[j] = byte(rng.UintN(256))
		}
		calls[i].CallData = make([]byte, rng.IntN(400))
		for j := range calls[i].CallData {
			calls[i].CallData[j] = byte(rng.UintN(256))
		}
	}
	return calls
}

// The hand-written encoding is the ABI packer's, byte for byte, for
// batches of every size, empty call data and lengths off the word size.
func TestTryAggregateCalldataIsTheABIPackers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 7, 64, 500} {
		for _, req := range []bool{false, true} {
			calls := randomCalls(rng, n)
			if got, want := tryAggregateCalldata(req, calls), abiTryAggregateCalldata(req, calls); !bytes.Equal(got, want) {
				t.Fatalf("%d calls, requireSuccess %v: encodings differ\ngot  %x\nwant %x", n, req, got, want)
			}
		}
	}
}

// encodeResults is tryAggregate's answer for res, as the ABI packs it.
func encodeResults(t testing.TB, res []callResult) []byte {
	out, err := multicallABI.Methods["tryAggregate"].Outputs.Pack(res)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestUnpackTryAggregateIsTheABIDecoders(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 5, 100} {
		res := make([]callResult, n)
		for i := range res {
			res[i].Success = rng.IntN(2) == 1
			res[i].ReturnData = make([]byte, rng.IntN(200))
			for j := range res[i].ReturnData {
				res[i].ReturnData[j] = byte(rng.UintN(256))
			}
		}
		out := encodeResults(t, res)
		got, err := unpackTryAggregate(out)
		if err != nil {
			t.Fatalf("%d results: %v", n, err)
		}
		want, err := abiUnpackTryAggregate(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d results decoded, the ABI decoder says %d", len(got), len(want))
		}
		for i := range got {
			if got[i].Success != want[i].Success || !bytes.Equal(got[i].ReturnData, want[i].ReturnData) {
				t.Fatalf("result %d: %+v, the ABI decoder says %+v", i, got[i], want[i])
			}
		}
	}
}

// Whatever a node answers, decoding it never panics, and whatever the
// ABI decoder accepts decodes to the same results.
func FuzzUnpackTryAggregate(f *testing.F) {
	f.Add(encodeResults(f, []callResult{{Success: true, ReturnData: []byte{1, 2, 3}}, {ReturnData: common.Hash{9}.Bytes()}}))
	f.Add(encodeResults(f, nil))
	f.Add([]byte{})
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, out []byte) {
		got, err := unpackTryAggregate(out)
		want, werr := abiUnpackTryAggregate(out)
		if werr != nil || err != nil {
			return // a node's malformed answer: refused either way or not, but never a panic
		}
		if len(want) == 0 && len(got) == 0 {
			return
		}
		if !reflect.DeepEqual(normalize(got), normalize(want)) {
			t.Fatalf("decoded %+v, the ABI decoder says %+v", got, want)
		}
	})
}

func normalize(rs []callResult) []callResult {
	out := make([]callResult, len(rs))
	for i, r := range rs {
		out[i] = callResult{Success: r.Success, ReturnData: append([]byte{}, r.ReturnData...)}
	}
	return out
}

// Any batch's encoding decodes, through the ABI, to the calls it carries.
func FuzzTryAggregateCalldata(f *testing.F) {
	f.Add(uint64(1), 3, true)
	f.Fuzz(func(t *testing.T, seed uint64, n int, req bool) {
		if n < 0 || n > 50 {
			return
		}
		calls := randomCalls(rand.New(rand.NewPCG(seed, seed)), n)
		if got, want := tryAggregateCalldata(req, calls), abiTryAggregateCalldata(req, calls); !bytes.Equal(got, want) {
			t.Fatalf("%d calls: encodings differ", n)
		}
	})
}

func BenchmarkTryAggregate(b *testing.B) {
	calls := randomCalls(rand.New(rand.NewPCG(1, 1)), 2)
	for i := range calls {
		calls[i].CallData = calls[i].CallData[:0]
		calls[i].CallData = append(calls[i].CallData, make([]byte, 4+9*32)...)
	}
	res := encodeResults(b, []callResult{{Success: true}, {Success: true}})
	b.Run("pack/hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tryAggregateCalldata(false, calls)
		}
	})
	b.Run("pack/abi", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			abiTryAggregateCalldata(false, calls)
		}
	})
	b.Run("unpack/hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := unpackTryAggregate(res); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unpack/abi", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := abiUnpackTryAggregate(res); err != nil {
				b.Fatal(err)
			}
		}
	})
}
