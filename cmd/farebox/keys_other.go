//go:build !linux && !server

package main

import "os"

// singleKeys is not available here: approvals read a line.
func singleKeys(*os.File) (func(), bool) { return nil, false }

func isTerminal(*os.File) bool { return false }
