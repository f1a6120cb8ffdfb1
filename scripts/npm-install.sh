#!/usr/bin/env bash
# Installs the pinned npm packages the test suite uses, each project in its
# own node_modules: the repository root (its workspaces: anvil, Circle's USDC,
# the official x402, OpenAI and Codex clients) and the chat MCP server
# (internal/testkit/mcptest/node). A project is installed again only when its
# package-lock.json's content changed since its last install here: the
# lockfile's SHA-256 is kept in node_modules/.farebox-lock.sha256 (a
# timestamp would be fooled by a checkout or by another project's npm ci).
# Run by scripts/test.sh; run it alone before running an end-to-end Go test
# by hand.
set -euo pipefail
cd "$(dirname "$0")/.."

# The projects, each with its own package-lock.json.
projects=(. internal/testkit/mcptest/node)

for dir in "${projects[@]}"; do
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  mark="$dir/node_modules/.farebox-lock.sha256"
  if [ -f "$mark" ] && [ "$(cat "$mark")" = "$want" ]; then
    echo "$dir: node_modules matches package-lock.json (sha256 ${want:0:12})"
    continue
  fi
  echo "$dir: npm ci (package-lock.json sha256 ${want:0:12})"
  (cd "$dir" && npm ci --no-audit --no-fund)
  echo "$want" >"$mark"
done
