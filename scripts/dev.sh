#!/usr/bin/env bash
# The README's first command: builds farebox with progress shown, then runs
# `farebox dev` (flags are passed on: bash scripts/dev.sh --block-time 2s).
# The first build compiles go-ethereum and takes about 5 minutes on 2 cores
# with an empty Go build cache; later builds take seconds. The binary is
# bin/farebox (add bin/ to PATH to type `farebox`).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED="${CGO_ENABLED:-1}"
mkdir -p bin
if [ -x bin/farebox ]; then
  echo "building farebox (bin/farebox; seconds when little changed) ..."
else
  echo "building farebox (bin/farebox): the first build compiles go-ethereum and takes"
  echo "about 5 minutes on 2 cores; each package is printed as it compiles ..."
fi
start=$SECONDS
# -v prints each package as it is compiled (nothing when all is cached);
# -buildvcs=auto lets farebox --version name the checkout's revision.
go build -v -buildvcs=auto -o bin/farebox ./cmd/farebox 2>&1 | sed -u 's/^/  /'
echo "built bin/farebox in $((SECONDS - start)) s; starting farebox dev"
exec bin/farebox dev "$@"
