#!/usr/bin/env bash
# Refreshes schemas/openai/openapi.json, the part of OpenAI's published
# OpenAPI document that farebox's conformance suite validates against, from
# the full document at REF (a branch, tag or commit of openai/openai-openapi;
# default: the default branch).
#
#   scripts/refresh-openai-schemas.sh [REF]
#
# OPENAI_OPENAPI_REPO names another clone to fetch from (a URL or a local
# git directory). Then run the suite: go test ./schemas/ ./responses/ -run Conformance
set -euo pipefail
ref="${1:-HEAD}"
repo="${OPENAI_OPENAPI_REPO:-https://github.com/openai/openai-openapi}"
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git -C "$tmp" init -q
git -C "$tmp" fetch -q --depth 1 "$repo" "$ref"
commit="$(git -C "$tmp" rev-parse FETCH_HEAD)"
git -C "$tmp" show FETCH_HEAD:openapi.json >"$tmp/openapi.json"
go run ./scripts/openai-schemas -in "$tmp/openapi.json" -commit "$commit" -out schemas/openai/openapi.json
echo "schemas/openai/openapi.json now holds openai/openai-openapi@$commit"
