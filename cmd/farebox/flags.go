package main

import "strings"

// fundFlags collects a repeatable flag's values in order (--fund, --tool,
// --mcp, ...).
type fundFlags []string

func (f *fundFlags) String() string     { return strings.Join(*f, ",") }
func (f *fundFlags) Set(v string) error { *f = append(*f, v); return nil }

// publicDevPayerKey is the key `farebox dev` funds
// (devchain.DevPayerKey, which a test keeps equal): a client command pays
// with it when FAREBOX_PAYER_KEY is unset, and naming it here keeps the
// dev chain's package out of builds without `dev`.
const publicDevPayerKey = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
