package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionPrintsOneLine: `farebox --version` (and `farebox version`)
// exits 0 with one line naming farebox and the Go version it was built with.
func TestVersionPrintsOneLine(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		code, stdout, stderr := farebox(t, nil, arg)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if code != 0 || len(lines) != 1 || !strings.HasPrefix(stdout, "farebox ") || !strings.Contains(stdout, " go1.") {
			t.Errorf("farebox %s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
	}
}

// TestVersionLineNamesTheRevision: a binary built from a checkout names
// its module version and VCS revision (short, marked when modified).
func TestVersionLineNamesTheRevision(t *testing.T) {
	t.Parallel()
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/farebox/farebox", Version: "v0.4.1"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "59e479f0123456789abcdef0123456789abcdef0"},
			{Key: "vcs.time", Value: "2026-11-28T13:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionLine(bi), "farebox v0.4.1 revision 59e479f01234+modified (2026-11-28T13:00:00Z) go1.26.8"; got != want {
		t.Errorf("versionLine = %q, want %q", got, want)
	}
	bi.Settings = nil
	bi.Main.Version = "(devel)"
	if got := versionLine(bi); !strings.Contains(got, "farebox (devel) revision unknown") {
		t.Errorf("without VCS information: %q", got)
	}
}

// TestUnknownCommandIsOneLineWithTheNearest: a mistyped command gets one
// line with the nearest real one, no usage dump; a word nowhere near any
// command gets no guess.
func TestUnknownCommandIsOneLineWithTheNearest(t *testing.T) {
	for typo, want := range map[string]string{"srve": "did you mean serve?", "chta": "did you mean chat?", "proxi": "did you mean proxy?", "--verison": "did you mean version?"} {
		code, _, stderr := farebox(t, nil, typo)
		assertOneLineFailure(t, code, stderr, `unknown command "`+typo+`"`, want, "farebox help")
	}
	code, _, stderr := farebox(t, nil, "xyzzy")
	assertOneLineFailure(t, code, stderr, `unknown command "xyzzy"`)
	if strings.Contains(stderr, "did you mean") {
		t.Errorf("a guess for xyzzy: %s", stderr)
	}
}
