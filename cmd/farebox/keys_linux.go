//go:build !server

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// singleKeys turns off line buffering and echo on the terminal f (signals
// stay on: Ctrl-C still interrupts) so an approval takes one key; restore
// puts the terminal back. ok is false when f is not a terminal.
func singleKeys(f *os.File) (restore func(), ok bool) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, false
	}
	raw := *old
	raw.Lflag &^= unix.ICANON | unix.ECHO
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
		return nil, false
	}
	return func() { unix.IoctlSetTermios(fd, unix.TCSETS, old) }, true
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
