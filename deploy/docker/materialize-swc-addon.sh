#!/bin/sh
# Build-time step (deps stage of deploy/docker/Dockerfile), run from the directory holding node_modules.
#
# @swc/core ships its Linux x64/arm64 addon as a compressed "carrier" that, on first load, writes the real
# addon to a per-user cache ($XDG_CACHE_HOME or ~/.cache, else a fallback under TMPDIR) and refuses cache
# directories whose parents other users can write without the sticky bit. In the Kubernetes pods the root
# filesystem is read-only and /tmp is an emptyDir (mode 0777, no sticky bit), so every location is rejected
# and the apps die at start with ERR_SWC_NATIVE_CACHE.
#
# Here the carrier is loaded once (it verifies the payload's BLAKE3 digest and names the result by its
# SHA-512), the result is checked against that name, and the carrier is replaced by the plain addon, which
# then loads like any native module: no cache, no writes, any user id.
set -eu

carriers=$(grep -l swc_native_carrier node_modules/@swc/core-*/*.node 2>/dev/null || true)
if [ -z "$carriers" ]; then
  echo "materialize-swc-addon: no SWC carrier installed, nothing to do"
  exit 0
fi
if [ "$(echo "$carriers" | wc -l)" -ne 1 ]; then
  echo "materialize-swc-addon: expected one platform package of @swc/core, found: $carriers" >&2
  exit 1
fi

cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
XDG_CACHE_HOME="$cache" node -e "require('@swc/core')"

set -- "$cache"/swc-native-*/v1/*.node
if [ "$#" -ne 1 ] || [ ! -f "$1" ]; then
  echo "materialize-swc-addon: expected one materialized addon in the cache, found: $*" >&2
  exit 1
fi
raw=$1
if [ "$(basename "$raw" .node)" != "$(sha512sum "$raw" | cut -d' ' -f1)" ]; then
  echo "materialize-swc-addon: $raw does not match its SHA-512 name" >&2
  exit 1
fi
install -m 0644 "$raw" "$carriers"
echo "materialize-swc-addon: $carriers <- $(basename "$raw") ($(wc -c < "$carriers") bytes)"

# The plain addon must now load with no writable cache at all.
XDG_CACHE_HOME=/nonexistent HOME=/nonexistent TMPDIR=/nonexistent \
  node -e "require('@swc/core').transformSync('const a: number = 1', { jsc: { parser: { syntax: 'typescript' } } })"
echo "materialize-swc-addon: @swc/core loads without a cache"
