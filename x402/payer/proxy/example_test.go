package proxy_test

import (
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/proxy"
)

// A proxy in front of an endpoint: here a free one, which answers without
// a 402, so nothing is signed; a paid one's 402 would be paid within the
// budget and the transport's spend cap.
func ExampleNew() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"route":%q}`, r.URL.Path)
	}))
	defer upstream.Close()

	key, _ := crypto.GenerateKey()
	p, err := proxy.New(proxy.Config{
		Upstream:  upstream.URL + "/v1",
		Transport: payer.NewTransport(payer.NewSigner(key), payer.WithSpendCap(big.NewInt(10_000))),
		Budget:    big.NewInt(1_000_000), // 1 USDC
	})
	if err != nil {
		panic(err)
	}
	local := httptest.NewServer(p) // on 127.0.0.1: its Host is the proxy's
	defer local.Close()

	res, err := http.Post(local.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Println(res.StatusCode, string(body), "signed:", p.Signed())
	// Output: 200 {"route":"/v1/chat/completions"} signed: 0
}
