package wal

import (
	"os"
	"syscall"
)

// fdatasync syncs f's data and the metadata needed to read it back (its
// size), not its timestamps: what a log append needs, for less than fsync.
func fdatasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = syscall.Fdatasync(int(fd))
			if serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return serr
}
