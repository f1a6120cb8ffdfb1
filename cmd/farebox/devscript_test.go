package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/farebox/farebox/internal/testkit/testenv"
)

// TestDevScriptSaysWhatItBuildsThenRuns runs the README's first command,
// bash scripts/dev.sh, as a user would: it says it is building (and how
// long a first build takes), reports the build, then farebox dev serves,
// and the binary it built answers --version.
func TestDevScriptSaysWhatItBuildsThenRuns(t *testing.T) {
	testenv.SkipShort(t, "builds farebox and runs farebox dev")
	root := testenv.Root()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "dev.sh"), "--addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0", "--log-level", "warn")
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the build and farebox end with the test
	out := &syncBuffer{wrote: make(chan struct{}, 1)}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var runErr error
	go func() { runErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		<-exited
	})
	s := waitFor(t, out, "farebox dev is running", exited, &runErr)
	building, built, running := strings.Index(s, "building farebox (bin/farebox"), strings.Index(s, "built bin/farebox in "), strings.Index(s, "farebox dev is running")
	if building < 0 || built < building || running < built {
		t.Fatalf("dev.sh did not say building, built, then run farebox dev:\n%s", s)
	}
	v, err := exec.Command(filepath.Join(root, "bin", "farebox"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(v), "farebox ") {
		t.Fatalf("bin/farebox --version: %q, %v", v, err)
	}
}
