#!/usr/bin/env bash
# Runs every test farebox has, on a fresh machine with only Go, Node and apt.
# It installs first what the tests need and never install themselves
# (redis-server and tmux from apt, the pinned npm packages with
# scripts/npm-install.sh: anvil, Circle's USDC, the official x402, OpenAI and
# Codex clients, the MCP SDK), then: gofmt, go vet, staticcheck (pinned, fetched by
# go run), the image's static build, the Go suite with the race detector,
# the Node interop suite and the benchmark harness in smoke mode. Each phase
# prints its time. Temporary files go to a folder removed on exit.
#
# The fast tier, after every change: go test -short ./...
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=1

TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/farebox-test.XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

# phase NAME COMMAND...: runs one phase and says how long it took.
phase() {
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@"
  echo "== $name ($((SECONDS - start)) s)"
}

install_apt() {
  local missing=()
  command -v redis-server >/dev/null || missing+=(redis-server)
  command -v tmux >/dev/null || missing+=(tmux)
  # The replica fault test runs farebox replicas behind a real load balancer.
  command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
  # The interop suite drives the admin dashboard in headless Chromium.
  command -v chromium >/dev/null || missing+=(chromium)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

check_gofmt() {
  local unformatted
  unformatted=$(gofmt -l $(git ls-files '*.go'))
  if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted"; return 1; fi
}

total=$SECONDS
phase "install (apt: redis-server, tmux, haproxy, chromium)" install_apt
phase "install (npm: scripts/npm-install.sh, by each lockfile's content)" bash scripts/npm-install.sh
phase "gofmt" check_gofmt
phase "go vet" go vet ./...
phase "staticcheck (checks in staticcheck.conf)" go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# The image's binaries, built once here; internal/testkit/dockerbuild checks them.
export FAREBOX_STATIC_BIN="$TMPDIR/static-bin"
phase "static build (scripts/build-static.sh, the Dockerfile's)" sh scripts/build-static.sh "$FAREBOX_STATIC_BIN"

phase "go test -race" go test -race -count=1 -timeout 30m ./...

if [ -f interop/package.json ]; then
  phase "interop (Node clients against a real farebox)" npm test --workspace interop
fi

if [ -d cmd/farebox-bench ]; then
  phase "benchmark harness, smoke mode" go run ./cmd/farebox-bench -smoke
fi
echo "== all ($((SECONDS - total)) s)"
