#!/bin/sh
# Builds the two binaries of the container image, exactly as the Dockerfile
# does (it RUNs this script) and as internal/testkit/dockerbuild tests it:
#   farebox              cgo on, because go-ethereum's libsecp256k1 recovers
#                        signatures about 4x faster than the pure-Go fallback,
#                        linked statically so it runs FROM scratch; tagged
#                        server, so it is the gateway and the proxy only: it
#                        leaves out `farebox dev` with the in-process Ethereum
#                        node it needs, and `farebox call` and `chat` with
#                        openai-go and the MCP SDK (together more than half of
#                        the default build);
#   farebox-healthcheck  the image's HEALTHCHECK probe (scratch has no curl).
# Usage: scripts/build-static.sh OUTDIR   (default: ./bin)
set -eu
cd "$(dirname "$0")/.."
out=${1:-bin}
mkdir -p "$out"

# netgo and osusergo keep the resolver and user lookups in Go, so the static
# glibc link pulls in no NSS code that would need shared libraries at run time.
CGO_ENABLED=1 go build -trimpath -tags netgo,osusergo,server \
	-ldflags '-s -w -linkmode external -extldflags "-static"' \
	-o "$out/farebox" ./cmd/farebox
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' \
	-o "$out/farebox-healthcheck" ./cmd/farebox-healthcheck
