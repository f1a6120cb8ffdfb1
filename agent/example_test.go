package agent_test

import (
	"context"
	"fmt"
	"log"

	"github.com/farebox/farebox/agent"
	"github.com/farebox/farebox/internal/testkit/mcptest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// fareboxDev is the base URL of farebox dev (started by TestMain) and a
// paying transport with its dev payer key: in your program, build the
// transport with payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(...)).
func fareboxDev() (string, *payer.Transport) {
	reg, err := x402.NewRegistry(dev.chain.Network)
	if err != nil {
		log.Fatal(err)
	}
	return dev.url, payer.NewTransport(payer.NewSigner(dev.chain.PayerKey), payer.WithNetworks(reg))
}

type weatherArgs struct {
	City string `json:"city" jsonschema:"the city"`
}

// A Go function is a tool: its JSON Schema comes from the argument struct.
// Each turn is paid; the ledger holds each turn's receipt.
func Example_goFunctionTool() {
	base, pay := fareboxDev()
	weather := agent.MustFunc("get_weather", "Current weather in a city",
		func(ctx context.Context, in weatherArgs) (string, error) { return "sunny, 21 C in " + in.City, nil })
	a, err := agent.New(agent.Config{Client: agent.NewClient(base, pay), Model: "farebox-scripted", Tools: []agent.Tool{weather}})
	if err != nil {
		log.Fatal(err)
	}
	res, err := a.Ask(context.Background(), "What is the weather? Use get_weather.")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.OutputText)
	fmt.Println(res.Turns, "turns,", res.Spent, "atomic USDC,", len(res.Receipts), "receipts")
	// Output:
	// get_weather returned: sunny, 21 C in Paris
	// 2 turns, 2000 atomic USDC, 2 receipts
}

// An MCP server's tools (a stdio server the client starts) are function
// tools too; the two calls of one turn run in parallel.
func Example_mcpServer() {
	if err := mcptest.Prepare(); err != nil { // this example's server: internal/testkit/mcptest/node/server.js
		log.Fatal(err)
	}
	base, pay := fareboxDev()
	srv, err := agent.StartMCPCommand(context.Background(), mcptest.Command())
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	a, err := agent.New(agent.Config{Client: agent.NewClient(base, pay), Model: "farebox-scripted", Tools: srv.Tools()})
	if err != nil {
		log.Fatal(err)
	}
	res, err := a.Ask(context.Background(), "use secret_code and lookup_city")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.OutputText)
	// Output:
	// secret_code returned: the secret code is 7421 (ran in parallel)
	// lookup_city returned: Paris has 2.1 million people (ran in parallel)
}
