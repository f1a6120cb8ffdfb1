//go:build ignore

// bindgen writes the Go bindings (abigen v2 style) for the contracts that
// compile.js compiled into *.abi and *.bin. Run it through `go generate`.
package main

import (
	"log"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi/abigen"
)

func main() {
	for _, name := range []string{"FareboxUSD", "DevWallet"} {
		abiJSON, err := os.ReadFile(name + ".abi")
		if err != nil {
			log.Fatal(err)
		}
		bin, err := os.ReadFile(name + ".bin")
		if err != nil {
			log.Fatal(err)
		}
		code, err := abigen.BindV2([]string{name}, []string{string(abiJSON)},
			[]string{strings.TrimSpace(string(bin))}, "token", nil, nil)
		if err != nil {
			log.Fatal(err)
		}
		out := strings.ToLower(name) + "_binding.go"
		if err := os.WriteFile(out, []byte(code), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
