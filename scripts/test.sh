#!/usr/bin/env bash
# Runs every test farebox has, on a fresh machine with only Go, Node and apt:
# vet, staticcheck (pinned, fetched by go run), the Go suite with the race
# detector (it installs anvil, Circle's USDC and redis-server itself when they
# are missing), the fuzz seed corpora, the benchmark harness in smoke mode, and
# the Node interop suite with the real npm clients.
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=1

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted"; exit 1; fi

echo "== go vet"
go vet ./...

echo "== staticcheck (checks in staticcheck.conf)"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

echo "== go test -race"
go test -race -count=1 -timeout 30m ./...

if [ -f interop/package.json ]; then
  echo "== interop (Node clients against a real farebox)"
  (cd interop && npm ci --no-audit --no-fund && npm test)
fi

if [ -d cmd/farebox-bench ]; then
  echo "== benchmark harness, smoke mode"
  go run ./cmd/farebox-bench -smoke
fi
