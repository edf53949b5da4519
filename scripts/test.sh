#!/usr/bin/env bash
# Runs the workspace's tests with node's test runner (Node 24, TypeScript run as is), by suite.
#
#   scripts/test.sh [unit|integration|e2e|all] [node options...]   one suite, or all three in turn
#   scripts/test.sh [node options...] path/to/a.test.ts ...          just those files
#
# Which suite a file belongs to follows from where it is and its name (docs/conventions.md "Tests"):
#   unit         files named *.unit.test.ts: of packages/*/test and services/*/test, and the
#                repository's own checks in tests/repo (function bounds, one owner per concept):
#                pure logic, no Redis, no server, no browser (startRedis() refuses to run there);
#                seconds in all.
#   integration  the other *.test.ts files of packages/*/test and services/*/test: a real private
#                redis-server per file, servers in process on free ports.
#   e2e          the other tests/**/*.test.ts: cross-service, browser, CLI, black-box and k8s suites.
# A file named *.alone.test.ts (integration or e2e) measures latency that other test files running
# beside it would distort: its suite runs it after the suite's other files, one such file at a time.
# `all` (the default, `pnpm test`) runs unit, integration and e2e one after the other, goes on past a
# failing suite, prints each suite's time and fails if any failed. Node options pass through, e.g.
# scripts/test.sh integration --test-name-pattern=revocation
set -euo pipefail
cd "$(dirname "$0")/.."

suite=all
case "${1:-}" in unit | integration | e2e | all) suite=$1 && shift ;; esac
opts=()
files=()
for arg in "$@"; do
  if [[ $arg != -* && $arg == *.test.ts ]]; then files+=("$arg"); else opts+=("$arg"); fi
done
mkdir -p test-output

# suite_files SUITE [shared|alone]: the suite's files, all of them or those run side by side or alone.
suite_files() {
  local part=${2:-all}
  case $1 in
    unit)
      find packages services -path '*/node_modules' -prune -o -path '*/test/*' -name '*.unit.test.ts' -print
      find tests -path '*/node_modules' -prune -o -name '*.unit.test.ts' -print
      ;;
    integration) find packages services -path '*/node_modules' -prune -o -path '*/test/*' -name '*.test.ts' ! -name '*.unit.test.ts' -print ;;
    e2e) find tests -path '*/node_modules' -prune -o -name '*.test.ts' ! -name '*.unit.test.ts' -print ;;
  esac | case $part in
    shared) grep -v '\.alone\.test\.ts$' ;;
    alone) grep '\.alone\.test\.ts$' || true ;;
    *) cat ;;
  esac | sort
}

# run NAME TIMEOUT_MS FILE...: one node --test run; SVC_TEST_SUITE tells @svc/testkit which suite runs.
# Every suite but unit loads the loop guard: a test during which the event loop was held more than
# 50 ms fails (packages/testkit/src/loop-guard.ts, docs/security.md "Bounds").
# ALONE=1 runs the files one at a time.
run() {
  local name=$1 timeout=$2 guard=() concurrency=2
  shift 2
  [[ $name == unit ]] || guard=(--import ./packages/testkit/src/loop-guard.ts)
  [[ ${ALONE:-0} == 1 ]] && concurrency=1
  SVC_TEST_SUITE=$name ./scripts/node --test --test-concurrency=$concurrency --test-timeout="$timeout" --test-reporter=spec \
    "${guard[@]}" ${opts[@]+"${opts[@]}"} "$@"
}

if ((${#files[@]})); then
  unit_files=() other_files=() status=0
  for f in "${files[@]}"; do
    if [[ $f == *.unit.test.ts ]]; then unit_files+=("$f"); else other_files+=("$f"); fi
  done
  if ((${#unit_files[@]})); then run unit 30000 "${unit_files[@]}" || status=$?; fi
  if ((${#other_files[@]})); then run files 180000 "${other_files[@]}" || status=$?; fi
  exit $status
fi

# count pass|fail: the runner's closing count in $log (0 when it printed none).
count() {
  local n
  n=$(sed -n "s/^ℹ $1 \([0-9]*\)\$/\1/p" "$log" | tail -1)
  echo "${n:-0}"
}
failed=()
times=()
passed_total=0
failed_total=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for s in unit integration e2e; do
  [[ $suite == all || $suite == "$s" ]] || continue
  mapfile -t list < <(suite_files "$s" shared)
  mapfile -t alone < <(suite_files "$s" alone)
  if ((${#list[@]} == 0)); then
    echo "svc: no $s test files found" >&2
    failed+=("$s")
    continue
  fi
  # A unit test that blocks is a bug, not a slow machine.
  timeout=180000
  [[ $s == unit ]] && timeout=30000
  start=$(date +%s%N)
  status=0
  run "$s" "$timeout" "${list[@]}" | tee "$log" || status=$?
  passed_total=$((passed_total + $(count pass)))
  failed_total=$((failed_total + $(count fail)))
  if ((${#alone[@]})); then
    ALONE=1 run "$s" "$timeout" "${alone[@]}" | tee "$log" || status=$?
    passed_total=$((passed_total + $(count pass)))
    failed_total=$((failed_total + $(count fail)))
    list+=("${alone[@]}")
  fi
  took=$((($(date +%s%N) - start) / 1000000))
  summary="$((took / 1000)).$(printf '%03d' $((took % 1000))) s, ${#list[@]} files$( ((status == 0)) || echo ', FAILED')"
  times+=("$s $summary")
  ((status == 0)) || failed+=("$s")
  echo "svc: $s suite: $summary"
done
if [[ $suite == all ]]; then
  (IFS=';' && echo "svc: suites: ${times[*]}" | sed 's/;/; /g')
fi
if ((${#failed[@]})); then
  echo "svc: failed suites: ${failed[*]}" >&2
fi
# One closing line over every suite (each runner's own closing lines count only its suite).
echo "tests: $passed_total passed, $failed_total failed"
((${#failed[@]} == 0))
