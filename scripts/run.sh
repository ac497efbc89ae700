#!/usr/bin/env bash
# Las's main job in one command: set up, build (release), then examples/demo.sh: sign a
# release for the twelve stand-in surfaces, serve a scripted MCP session through the
# gateway, and replay the audit log.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target las
exec examples/demo.sh "$@"
