#!/usr/bin/env bash
# Installs what building and testing Las needs on Debian 12, then stops. Idempotent: it
# installs only the packages that are missing. Called by scripts/run.sh and scripts/test.sh.
#   --with-node-peers   also install the pinned npm peers of the end-to-end tests
#                       (tests/e2e/package-lock.json: the MCP SDK client, server-everything,
#                       mcporter) — needs Node.js 20 or later and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
with_node_peers=0
[ "${1:-}" = "--with-node-peers" ] && with_node_peers=1

packages=(
  build-essential cmake ninja-build pkg-config
  librocksdb-dev libflatbuffers-dev flatbuffers-compiler libsodium-dev libssl-dev nlohmann-json3-dev
  libboost-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev libvalijson-dev libre2-dev
  json-schema-test-suite python3 util-linux
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

if ((with_node_peers)); then
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "setup: installing nodejs and npm" >&2
    sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq nodejs npm >/dev/null
  fi
  # npm ci only when the installed tree was not made from this very lock file.
  stamp=tests/e2e/node_modules/.las-installed-from-lock
  if ! cmp -s tests/e2e/package-lock.json "$stamp" 2>/dev/null; then
    echo "setup: installing the pinned npm peers (tests/e2e)" >&2
    (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp tests/e2e/package-lock.json "$stamp"
  fi
fi
