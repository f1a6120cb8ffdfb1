package dockerbuild

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDockerfileRunsTheTestedBuild pins the Dockerfile to what the build
// test exercises, since no engine can run it here: it builds with
// scripts/build-static.sh on the Go of go.mod, and its final stage is
// FROM scratch with both binaries, a numeric non-root user, port 8402, the
// health check probe and farebox as the entrypoint.
func TestDockerfileRunsTheTestedBuild(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	df, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if goVersion == nil {
		t.Fatal("go.mod has no go directive")
	}
	text := strings.ReplaceAll(string(df), "\\\n", " ") // join continued lines
	stages := regexp.MustCompile(`(?m)^FROM `).Split(text, -1)
	if len(stages) != 3 {
		t.Fatalf("want a build stage and a final stage, got %d FROM lines", len(stages)-1)
	}
	build, final := stages[1], stages[2]
	for _, want := range []struct{ in, pattern string }{
		{stages[0], `(?m)^ARG GO_VERSION=` + regexp.QuoteMeta(string(goVersion[1])) + `$`},
		{build, `^\S*golang:\$\{GO_VERSION\}-\S+ AS build`},
		{build, `(?m)^RUN sh scripts/build-static\.sh /out$`},
		{final, `^scratch\n`},
		{final, `(?m)^COPY --from=build /etc/ssl/certs/ca-certificates\.crt `},
		{final, `(?m)^COPY --from=build /out/farebox /out/farebox-healthcheck /usr/local/bin/$`},
		{final, `(?m)^EXPOSE 8402$`},
		{final, `(?m)^HEALTHCHECK .*CMD \["/usr/local/bin/farebox-healthcheck"\]$`},
		{final, `(?m)^ENTRYPOINT \["/usr/local/bin/farebox"\]$`},
		{final, `(?m)^ENV FAREBOX_ADDR=0\.0\.0\.0:8402 `},
	} {
		if !regexp.MustCompile(want.pattern).MatchString(want.in) {
			t.Errorf("Dockerfile does not match %s", want.pattern)
		}
	}
	user := regexp.MustCompile(`(?m)^USER (\d+):(\d+)$`).FindStringSubmatch(final)
	if user == nil {
		t.Fatal("the final stage has no numeric USER uid:gid")
	}
	if uid, _ := strconv.Atoi(user[1]); uid == 0 {
		t.Error("the image runs as root")
	}
}
