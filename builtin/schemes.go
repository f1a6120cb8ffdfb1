// Package builtin links farebox's built-in implementations into a binary:
// each registers itself (a scheme by scheme and network family, a settler
// by kind) when imported, so the composition root imports this package
// and the gateway names none of them.
package builtin

import (
	_ "github.com/farebox/farebox/x402/channel/eip155" // scheme batch-settlement on eip155
	_ "github.com/farebox/farebox/x402/evm"            // settler chain, and the chain check of eip155 networks
	_ "github.com/farebox/farebox/x402/exact"          // scheme exact on eip155
	_ "github.com/farebox/farebox/x402/facilitator"    // settler facilitator
	_ "github.com/farebox/farebox/x402/upto"           // scheme upto on eip155
)
