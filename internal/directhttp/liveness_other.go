//go:build !unix

package directhttp

import (
	"net"
	"time"
)

// liveness has no cheap non-blocking probe here; it trusts only a
// connection idle for under a second, well within the keep-alive timeouts
// of common servers (Node's 5 s is among the shortest).
type liveness struct{}

func (*liveness) init(net.Conn) {}

func (*liveness) usable(idle time.Duration) bool { return idle < time.Second }
