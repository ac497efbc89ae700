#!/usr/bin/env bash
# Las's main job in one command: set up, build (release), and run the demo against the
# default log ($XDG_STATE_HOME/las/log, else ~/.local/state/las/log).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target las
exec build/release/cli/las demo "$@"
