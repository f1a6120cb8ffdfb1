//go:build linux

package dockerbuild

import (
	"bufio"
	"context"
	"debug/buildinfo"
	"debug/elf"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// repoRoot is the module root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestStaticBuildServesWithEmptyEnvironment checks the image's binaries
// (scripts/build-static.sh): both static, farebox with cgo (for
// libsecp256k1) and without `farebox dev`, `call` or `chat`; `farebox serve`
// starts under an empty environment as it would FROM scratch and passes the
// image's health check.
func TestStaticBuildServesWithEmptyEnvironment(t *testing.T) {
	out := staticBuild(t)
	farebox := filepath.Join(out, "farebox")
	healthcheck := filepath.Join(out, "farebox-healthcheck")
	for _, bin := range []string{farebox, healthcheck} {
		checkStatic(t, bin)
	}
	checkBuildSetting(t, farebox, "CGO_ENABLED", "1")
	checkBuildSetting(t, farebox, "-tags", "netgo,osusergo,server")

	for _, command := range []string{"dev", "call", "chat"} {
		cmd := exec.Command(farebox, command)
		cmd.Env = []string{}
		if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "go run ./cmd/farebox "+command) {
			t.Fatalf("the image's farebox %s: %v, %q; want a failure saying how to run %s", command, err, b, command)
		}
	}

	base := startServe(t, farebox)
	res, err := http.Get(strings.TrimSuffix(base, "/v1") + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %s", res.Status)
	}

	probe := exec.Command(healthcheck)
	probe.Env = []string{"FAREBOX_HEALTHCHECK_URL=" + strings.TrimSuffix(base, "/v1") + "/healthz"}
	if b, err := probe.CombinedOutput(); err != nil {
		t.Fatalf("farebox-healthcheck against a live farebox: %v\n%s", err, b)
	}
	dead := exec.Command(healthcheck, strings.TrimSuffix(base, "/v1")+"/no-such-route")
	dead.Env = []string{}
	b, err := dead.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(b), "404") {
		t.Fatalf("farebox-healthcheck on a 404: %v, %q; want exit 1 naming the status", err, b)
	}
}

// staticBuild returns the folder holding the image's two binaries:
// FAREBOX_STATIC_BIN when scripts/test.sh built them already (a static
// build recompiles every package, so the script does it once, as its own
// phase), else the output of scripts/build-static.sh run here.
func staticBuild(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end: builds the static binaries; run without -short")
	}
	if dir := os.Getenv("FAREBOX_STATIC_BIN"); dir != "" {
		return dir
	}
	out := t.TempDir()
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-time.Minute)) // fail with the build's output, not a timeout panic
		defer cancel()
	}
	build := exec.CommandContext(ctx, "sh", filepath.Join(repoRoot(t), "scripts", "build-static.sh"), out)
	// The script's go build is a grandchild: kill the whole group when the deadline passes.
	build.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	build.Cancel = func() error { return syscall.Kill(-build.Process.Pid, syscall.SIGKILL) }
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/build-static.sh: %v\n%s", err, b)
	}
	return out
}

// checkStatic fails unless bin is an ELF executable with no interpreter and
// no shared libraries, which is what FROM scratch can run.
func checkStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Fatalf("%s is dynamically linked (program header %v)", filepath.Base(bin), p.Type)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Fatalf("%s needs shared libraries %v (%v)", filepath.Base(bin), libs, err)
	}
}

// checkBuildSetting fails unless bin was built with setting key = want.
func checkBuildSetting(t *testing.T, bin, key, want string) {
	t.Helper()
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range info.Settings {
		if s.Key == key {
			if s.Value != want {
				t.Fatalf("%s built with %s=%s, want %s", filepath.Base(bin), key, s.Value, want)
			}
			return
		}
	}
	t.Fatalf("%s: no build setting %s", filepath.Base(bin), key)
}

var baseURLLine = regexp.MustCompile(`base URL\s+(http://\S+/v1)`)

// startServe runs `farebox serve` with a one-model free config on an
// ephemeral port and an empty environment, and returns the base URL it
// prints; cleanup stops it with SIGTERM and expects a clean exit.
func startServe(t *testing.T, farebox string) string {
	t.Helper()
	config := filepath.Join(t.TempDir(), "farebox.yaml")
	if err := os.WriteFile(config, []byte("models:\n  - {name: m, upstream: scripted, price: \"0\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(farebox, "serve", "--config", config, "--addr", "127.0.0.1:0")
	cmd.Env = []string{} // env -i: no HOME, no PATH, nothing from the build machine
	cmd.SysProcAttr = orphanless()
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := baseURLLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		close(found)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("farebox serve exited with %v after SIGTERM", err)
		}
	})
	select {
	case base, ok := <-found:
		if !ok {
			t.Fatal("farebox serve closed stdout without printing its base URL")
		}
		return base
	case <-time.After(2 * time.Minute): // a start-up that hangs, not a timing assertion
		t.Fatal("farebox serve printed no base URL")
	}
	return ""
}

// orphanless makes a child die with the test process, so a test killed by
// its timeout leaves no server running on the shared machine.
func orphanless() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
