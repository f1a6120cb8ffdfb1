// Package builtin links farebox's built-in upstream kinds: importing it
// (for its registrations alone) is what makes `upstream: openai`, `chat`,
// `scripted`, `x402`, `anthropic` and `gemini` known. Adding a kind is one package under
// upstream/ and one line here.
package builtin

import (
	_ "github.com/farebox/farebox/upstream/anthropic"
	_ "github.com/farebox/farebox/upstream/chat"
	_ "github.com/farebox/farebox/upstream/gemini"
	_ "github.com/farebox/farebox/upstream/openai"
	_ "github.com/farebox/farebox/upstream/resell"
	_ "github.com/farebox/farebox/upstream/scripted"
)
