#!/usr/bin/env bash
# Installs what building and testing Las needs on Debian 12, then stops. Idempotent: it
# installs only the packages that are missing. Called by scripts/run.sh and scripts/test.sh.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  librocksdb-dev libflatbuffers-dev flatbuffers-compiler libsodium-dev nlohmann-json3-dev
  libboost-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev libvalijson-dev
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
