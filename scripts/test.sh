#!/usr/bin/env bash
# The whole test suite in one command: set up, build (debug, warnings as errors), run CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-node-peers
cmake --preset debug >/dev/null
cmake --build --preset debug
ctest --preset debug
