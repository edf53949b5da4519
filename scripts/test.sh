#!/usr/bin/env bash
# Runs every test file of the workspace with node's test runner (Node 24, TypeScript run as is).
# Unit and integration tests live beside their package (packages/*/test, services/*/test); the
# cross-service and browser suites live in tests/. Each file starts its own private redis-server.
# Extra arguments are passed to node, e.g. scripts/test.sh --test-name-pattern=revocation
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find packages services tests -path '*/node_modules' -prune -o -name '*.test.ts' -print | sort)
mkdir -p test-output
exec ./scripts/node --test --test-concurrency=2 --test-timeout=180000 --test-reporter=spec "$@" "${files[@]}"
