package agent_test

// The tests build gateways from configs naming the built-in upstream kinds.
import _ "github.com/farebox/farebox/builtin"
