package evm_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/farebox/farebox/x402"
)

// A settlement whose send died in transport (the RPC node's load balancer
// answered 502, the transaction never reached the node) on a chain that
// mines only when it is sent something: no new head comes to make the
// follower send it again, and the relayer's later nonces wait behind it.
// The follower sends it again once the chain was quiet for a while, and
// it is mined.
func TestFaultLostSendIsSentAgainOnAQuietChain(t *testing.T) {
	f := fixtures[1]
	var lost atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"eth_sendRawTransaction"`)) && lost.CompareAndSwap(0, 1) {
			http.Error(w, "no backend", http.StatusBadGateway)
			return
		}
		res, err := http.Post(f.anvil.RPCURL, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, res.Body)
	}))
	t.Cleanup(srv.Close)
	client, err := ethclient.DialContext(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	s := ownSettlerOn(t, f, client)
	p, req := f.pay(1000)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rc, err := s.Settle(ctx, p, req)
	if !errors.Is(err, x402.ErrSettlementPending) {
		t.Fatalf("settling through a lost send: %v (%+v), want pending", err, rc)
	}
	if lost.Load() != 1 {
		t.Fatal("the send was not lost")
	}
	if err := s.Await(ctx, common.HexToHash(rc.Transaction), p); err != nil {
		t.Fatalf("the lost transaction was never mined: %v", err)
	}
}
