#!/usr/bin/env bash
# Builds the services' image from the Containerfile with podman, on any machine (docs/operations.md
# "Image"):
#   scripts/image.sh            the image, tagged $SVC_IMAGE (default localhost/svc:latest)
#   scripts/image.sh --redis    also the Redis image the smoke test runs, $SVC_REDIS_IMAGE
#                               (default localhost/svc-redis:bookworm): Debian's redis-server
#
# The base: node:24-slim when a registry can be reached. Otherwise a stand-in made here once and
# kept (not rebuilt while it exists): Debian bookworm from the mirror apt is configured with
# (mmdebstrap, `podman import`), then Node 24 and npm from the npm registry and a user 1000
# (scripts/image/node-base.Containerfile, which names it: localhost/svc-node:24-<its hash>).
# `podman rmi localhost/svc-debian:bookworm localhost/svc-node:24-<hash>` makes them again.
#
# The build's npm and pnpm trust the machine's CA bundle ($SVC_BUILD_CA, default Debian's), for
# networks whose proxy intercepts TLS: the bundle and an .npmrc naming it are mounted into the RUN
# steps only (`podman build -v`), so neither is in any layer. Podman runs with
# scripts/image/containers.conf unless CONTAINERS_CONF names another. Missing tools (podman, buildah,
# runc, mmdebstrap) are installed by `scripts/setup.sh --image`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
say() { printf 'image: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

want_redis=0
[[ ${1:-} == --redis ]] && want_redis=1
image=${SVC_IMAGE:-localhost/svc:latest}
redis_image=${SVC_REDIS_IMAGE:-localhost/svc-redis:bookworm}
registry_node=docker.io/library/node:24-slim
registry_debian=docker.io/library/debian:bookworm-slim
local_debian=localhost/svc-debian:bookworm
# Named after its recipe, so a changed node-base.Containerfile makes a new one.
local_node=localhost/svc-node:24-$(sha256sum scripts/image/node-base.Containerfile | cut -c1-12)
# A pull that cannot reach a registry fails at once on DNS; this bounds one behind a silent firewall.
pull_timeout_s=120
export CONTAINERS_CONF=${CONTAINERS_CONF:-$root/scripts/image/containers.conf}

for tool in podman buildah runc mmdebstrap npm; do
  if ! command -v "$tool" >/dev/null; then
    say "$tool is missing: installing the container tools with scripts/setup.sh --image"
    ./scripts/setup.sh --image
    break
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seconds_since() { local ms=$((($(date +%s%N) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }
have_or_pull() {
  podman image exists "$1" && return 0
  timeout "$pull_timeout_s" podman pull -q "$1" >/dev/null 2>&1
}

# The apt sources this machine uses for Debian (mmdebstrap takes .list and .sources files as mirrors).
apt_sources() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] && grep -Eq '^[^#]*(URIs:|deb) .*/debian' "$f" && echo "$f"
  done
  return 0
}

debian_base() {
  if have_or_pull "$registry_debian"; then echo "$registry_debian" && return; fi
  if ! podman image exists "$local_debian"; then
    local sources
    mapfile -t sources < <(apt_sources)
    ((${#sources[@]})) || die "no registry, and no Debian apt source in /etc/apt to make a local base from"
    say "no registry: making $local_debian with mmdebstrap from ${sources[*]}"
    local start
    start=$(date +%s%N)
    mmdebstrap --quiet --variant=apt \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
      --dpkgopt='path-exclude=/usr/share/info/*' \
      bookworm "$work/rootfs.tar" "${sources[@]}" >&2 || die "mmdebstrap failed"
    podman import -q "$work/rootfs.tar" "$local_debian" >/dev/null
    rm -f "$work/rootfs.tar"
    say "made $local_debian in $(seconds_since "$start") s"
  fi
  echo "$local_debian"
}

node_base() {
  if have_or_pull "$registry_node"; then echo "$registry_node" && return; fi
  if ! podman image exists "$local_node"; then
    local debian arch start
    debian=$(debian_base)
    case $(uname -m) in
      x86_64) arch=x64 ;;
      aarch64 | arm64) arch=arm64 ;;
      *) die "no Node.js package for $(uname -m) on the npm registry" ;;
    esac
    start=$(date +%s%N)
    say "making $local_node: Node 24 (node-linux-$arch) and npm 11 from the npm registry on $debian"
    mkdir -p "$work/node-base"
    (cd "$work/node-base" &&
      npm pack --silent "node-linux-$arch@24" >/dev/null && mv node-linux-"$arch"-*.tgz node.tgz &&
      npm pack --silent npm@11 >/dev/null && mv npm-*.tgz npm.tgz) || die "npm pack of node-linux-$arch@24 or npm@11 failed"
    podman build -q -f scripts/image/node-base.Containerfile --build-arg DEBIAN_IMAGE="$debian" \
      -t "$local_node" "$work/node-base" >/dev/null || die "building $local_node failed"
    say "made $local_node in $(seconds_since "$start") s"
  fi
  echo "$local_node"
}

base=$(node_base)
mounts=()
ca=${SVC_BUILD_CA:-/etc/ssl/certs/ca-certificates.crt}
if [[ -f $ca ]]; then
  printf 'cafile=/run/svc-build/ca.pem\n' >"$work/npmrc"
  mounts=(-v "$ca:/run/svc-build/ca.pem:ro" -v "$work/npmrc:/root/.npmrc:ro")
fi
say "building $image from Containerfile on $base"
start=$(date +%s%N)
podman build -f Containerfile --build-arg NODE_IMAGE="$base" "${mounts[@]}" -t "$image" . >&2 ||
  die "podman build failed (the output above says at which step)"
took=$(seconds_since "$start")
size=$(podman image inspect --format '{{.Size}}' "$image")
say "built $image: $((size / 1000000)) MB, in $took s"

if ((want_redis)); then
  debian=$(debian_base)
  start=$(date +%s%N)
  podman build -q -f scripts/image/redis.Containerfile --build-arg DEBIAN_IMAGE="$debian" -t "$redis_image" scripts/image >/dev/null ||
    die "building $redis_image failed"
  say "built $redis_image on $debian in $(seconds_since "$start") s"
fi
