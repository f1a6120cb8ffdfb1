// Command openai-go is the README's Go example: openai-go pays farebox dev
// with x402 through farebox's paying transport (x402/payer).
//
//	FAREBOX_PAYER_KEY=0x... FAREBOX_TOKEN=0x... go run ./interop/examples/openai-go
package main

import (
	"context"
	"fmt"
	"log"
	"math/big"
	"net/http"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

func main() {
	baseURL := envOr("FAREBOX_BASE_URL", "http://127.0.0.1:8402/v1")
	key, err := crypto.HexToECDSA(strings.TrimPrefix(os.Getenv("FAREBOX_PAYER_KEY"), "0x"))
	if err != nil {
		log.Fatalf("FAREBOX_PAYER_KEY: want the hex private key farebox dev prints under DEV PAYER (%v)", err)
	}
	// farebox dev's chain and token, as its banner prints them.
	token := os.Getenv("FAREBOX_TOKEN")
	if !common.IsHexAddress(token) {
		log.Fatalf("FAREBOX_TOKEN: want the address farebox dev prints as \"token (USDC)\", got %q", token)
	}
	devUSDC := x402.NewNetwork("eip155:1337", "", big.NewInt(1337), common.HexToAddress(token), "USDC", "2")
	networks, err := x402.NewRegistry(devUSDC)
	if err != nil {
		log.Fatal(err)
	}
	pay := payer.NewTransport(payer.NewSigner(key),
		payer.WithNetworks(networks),
		payer.OnReceipt(func(r *x402.Receipt) { fmt.Printf("paid: tx %s on %s by %s\n", r.Transaction, r.Network, r.Payer) }))

	client := openai.NewClient(
		option.WithBaseURL(baseURL),
		option.WithAPIKey("unused"), // x402 pays instead of an API key
		option.WithHTTPClient(&http.Client{Transport: pay}),
	)
	resp, err := client.Responses.New(context.Background(), responses.ResponseNewParams{
		Model: "farebox-scripted",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Hello from openai-go")},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.OutputText())
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
