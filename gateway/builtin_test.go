package gateway_test

// A whole gateway is built here: its stores, schemes and settlers are the
// ones farebox ships with.
import _ "github.com/farebox/farebox/builtin"
