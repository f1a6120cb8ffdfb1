//go:build unix

package gateway

import "syscall"

// fdLimit is the process's open file limit (Go raises the soft limit to
// the hard one at start-up), or 0 when unknown.
func fdLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}
