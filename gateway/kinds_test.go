package gateway

// The gateway's tests link the kinds farebox links, and the test kit's
// in-process kind for models built in Go.
import (
	_ "github.com/farebox/farebox/builtin"
	_ "github.com/farebox/farebox/internal/testkit/inprocess"
)
