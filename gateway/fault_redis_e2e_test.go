package gateway_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/redis/go-redis/v9"
	"github.com/tidwall/gjson"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// A Redis that loses its data (restarted without persistence) while a paid
// call's transfer is still unmined forgets the authorization; the chain
// does not. The same authorization with another body, on the replica that
// served it or on another one sharing the Redis, is refused (the store
// epoch is gone, so the replica reads the authorization's pending state),
// the model runs once, and the payer pays once (chain-judged).
func TestFaultRedisRestartedEmptyRefusesTheReplayedAuthorization(t *testing.T) {
	a := sharedAnvil(t)
	ctx := context.Background()
	addr := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	key, err := a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pc := usdcPayments(a)
	pc.Settler = "chain"
	pc.RedisURL = "redis://" + addr
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL, RelayerKeyEnv: relayerEnv}
	env := map[string]string{relayerEnv: hexutil.Encode(crypto.FromECDSA(key))}
	first := startUSDCFarebox(t, a, pc, env)
	second := startUSDCFarebox(t, a, pc, env)
	name, value, err := payer.NewSigner(a.PayerKey).PaymentHeader(first.offer(t, 2), 2)
	if err != nil {
		t.Fatal(err)
	}
	before, payToBefore := usdcBalance(t, a, a.Payer), usdcBalance(t, a, first.payTo)
	rpc := a.Client.Client()
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rpc.CallContext(ctx, nil, "evm_setAutomine", true); rpc.CallContext(ctx, nil, "evm_mine") })

	res, body := post(t, first.URL+"/responses", `{"model":"`+usdcModel+`","input":"the paid one"}`, name, value)
	if res.StatusCode != 200 {
		t.Fatalf("paid call: %d %s", res.StatusCode, body)
	}
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	served, refused := 1, 0
	for _, f := range []*usdcFarebox{second, first} {
		for _, input := range []string{"another body, same payment", "the paid one"} {
			res, body := post(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"`+input+`"}`, name, value)
			if res.StatusCode == 200 {
				served++
				t.Errorf("after the empty restart, %q was served again: %s", input, body)
				continue
			}
			refused++
			if code := gjson.GetBytes(body, "error.code").String(); res.StatusCode != 402 || code != x402.ReasonNonceAlreadyUsed {
				t.Errorf("replay of %q: %d %s, want 402 %s", input, res.StatusCode, body, x402.ReasonNonceAlreadyUsed)
			}
		}
	}
	if n := first.model.calls.Load() + second.model.calls.Load(); n != 1 {
		t.Errorf("the model ran %d times for one payment", n)
	}
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
		t.Fatal(err)
	}
	if err := rpc.CallContext(ctx, nil, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	spent := new(big.Int).Sub(before, usdcBalance(t, a, a.Payer))
	got := new(big.Int).Sub(usdcBalance(t, a, first.payTo), payToBefore)
	if spent.Int64() != atomics || got.Int64() != atomics {
		t.Errorf("payer spent %s, payTo got %s, want exactly %d each", spent, got, atomics)
	}
	t.Logf("redis restarted empty: served %d, refused %d, settled %s (payer), reverted 0", served, refused, spent)
}
