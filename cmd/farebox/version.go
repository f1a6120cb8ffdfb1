package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// commands are the subcommands dispatch knows, for suggestions.
var commands = []string{"dev", "serve", "init", "call", "chat", "proxy", "help", "version"}

// unknownCommand is the one-line answer to a command farebox does not
// have, with the nearest one when it is close enough to be a typo.
func unknownCommand(name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	best, bestD := "", len(name)/2+2
	for _, c := range commands {
		d := editDistance(strings.TrimLeft(name, "-"), c)
		if strings.HasPrefix(c, name) && name != "" {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", best)
	}
	return fmt.Errorf("%s; farebox help lists the commands", msg)
}

// buildInfo is the binary's build information (nil when it has none).
func buildInfo() *debug.BuildInfo {
	bi, _ := debug.ReadBuildInfo()
	return bi
}

// versionLine is what `farebox --version` prints: the module version, the
// VCS revision it was built from (marked when the tree had changes) and
// the Go version, as far as the build recorded them.
func versionLine(bi *debug.BuildInfo) string {
	if bi == nil {
		return "farebox (no build information)"
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var rev, when string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	out := "farebox " + version
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified {
			rev += "+modified"
		}
		out += " revision " + rev
		if when != "" {
			out += " (" + when + ")"
		}
	} else {
		out += " revision unknown (built without VCS information)"
	}
	return out + " " + bi.GoVersion
}
