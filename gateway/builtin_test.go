package gateway_test

// A whole gateway is built here: its stores are the ones farebox ships with.
import _ "github.com/farebox/farebox/builtin"
