package service_test

import (
	"context"
	"encoding/json"
	"errors"
	storebolt "github.com/farebox/farebox/store/bolt"
	"math/big"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	bolt "go.etcd.io/bbolt"

	"github.com/farebox/farebox/internal/groupcommit"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// cpuTime is the CPU the process used so far (user and system, every
// thread: the group commit's and the collector's too).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// noChain fails every read and send: a voucher on a fresh channel record
// must not touch the chain.
type noChain struct{}

var errNoChain = errors.New("the voucher path touched the chain")

func (noChain) CallContract(context.Context, ethereum.CallMsg, *big.Int) ([]byte, error) {
	return nil, errNoChain
}
func (noChain) CodeAt(context.Context, common.Address, *big.Int) ([]byte, error) {
	return nil, errNoChain
}
func (noChain) Relayer() common.Address { return common.Address{0xa7} }
func (noChain) Call(context.Context, common.Address, []byte, func(common.Hash) error) (common.Hash, error) {
	return common.Hash{}, errNoChain
}
func (noChain) AwaitCall(context.Context, common.Hash) (*types.Receipt, error) {
	return nil, errNoChain
}

// BenchmarkVoucherCall is the server's part of one voucher-paid request
// as farebox runs it: the payload decoded, Begin (the channel's lock, its
// record read, the payload verified: one signature recovery) and Commit
// (the next state, written through a group commit to bbolt, and the
// receipt), one channel, calls one after another. The vouchers are signed
// before the timer starts. store=logged is farebox's store (the write in
// the write-ahead log, the file later); store=bbolt commits each write to
// the file (two fdatasyncs); store=nosync leaves the disk out (bbolt's
// NoSync), for the CPU alone.
func BenchmarkVoucherCall(b *testing.B) {
	for _, mode := range []string{"logged", "bbolt", "nosync"} {
		b.Run("store="+mode, func(b *testing.B) { benchVoucherCall(b, mode) })
	}
}

func benchVoucherCall(b *testing.B, mode string) {
	ctx := context.Background()
	dir := b.TempDir()
	db, err := bolt.Open(filepath.Join(dir, "channels.db"), 0o600, &bolt.Options{NoSync: mode == "nosync", NoFreelistSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var store *storebolt.Channels
	if mode == "logged" {
		store, err = storebolt.NewChannelsLogged(groupcommit.New(db), dir, "channels.wal")
	} else {
		store, err = storebolt.NewChannelsSharing(groupcommit.New(db))
	}
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	net := x402.BaseSepolia
	d := contracts.Canonical()
	cs := channel.NewContracts(net.ChainID, d.BatchSettlement, d.ERC3009DepositCollector, d.Permit2DepositCollector, d.Permit2)
	receiver := common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C")
	now := time.Unix(1_800_000_000, 0)
	svc, err := service.New(service.Config{Contracts: cs, Receiver: receiver, Chain: noChain{}, Relayer: noChain{}, Store: store,
		Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	key, _ := crypto.GenerateKey()
	who := crypto.PubkeyToAddress(key.PublicKey)
	cfg := channel.Config{Payer: who, PayerAuthorizer: who, Receiver: receiver, ReceiverAuthorizer: svc.Terms().ReceiverAuthorizer,
		Token: net.Asset, WithdrawDelay: svc.Terms().WithdrawDelay, Salt: [32]byte{1}}
	id := cs.ChannelID(&cfg)
	ceiling := big.NewInt(1000)
	balance := new(big.Int).Mul(ceiling, big.NewInt(int64(b.N)+1))
	if err := store.Put(ctx, &service.Record{State: channel.NewState(id, cfg, channel.Onchain{Balance: balance}, now)}, 0); err != nil {
		b.Fatal(err)
	}
	req := &x402.Requirement{Scheme: channel.Scheme, Network: net, Amount: ceiling, PayTo: receiver, MaxTimeoutSeconds: 300}
	raws := make([][]byte, b.N)
	for i := range raws {
		max := new(big.Int).Mul(ceiling, big.NewInt(int64(i)+1)) // every call is charged its ceiling
		digest := cs.VoucherDigest(id, max)
		sig, err := crypto.Sign(digest[:], key)
		if err != nil {
			b.Fatal(err)
		}
		sig[64] += 27
		raws[i], _ = json.Marshal(map[string]any{"type": channel.TypeVoucher, "channelConfig": cfg,
			"voucher": map[string]any{"channelId": common.Hash(id), "maxClaimableAmount": max.String(), "signature": hexutil.Bytes(sig)}})
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := range b.N {
		p, err := channel.DecodePayload(raws[i])
		if err != nil {
			b.Fatal(err)
		}
		call, err := svc.Begin(ctx, p, req, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := call.Commit(ctx, ceiling); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	rec, err := store.Get(ctx, id)
	if err != nil || rec.State.Charged.Cmp(new(big.Int).Mul(ceiling, big.NewInt(int64(b.N)))) != 0 {
		b.Fatalf("record %+v %v after %d calls", rec, err, b.N)
	}
}
