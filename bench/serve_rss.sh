#!/usr/bin/env bash
# Resident memory of `las serve` on a large log with the twelve example surfaces federated
# (docs/PERFORMANCE.md, issue 5). Children are excluded: VmRSS/VmHWM are the server's own
# /proc/PID/status after it answered tools/list (all twelve stand-ins spawned and admitted).
#
#   bench/serve_rss.sh [BUILD_DIR] [EVENTS]      (defaults: build/release 1000000)
#
# Runs examples/demo.sh once (demo key, signed release of the twelve stand-ins, policies) in
# a temporary directory, writes an EVENTS-event log of tool calls with
# `las_restart_bench build`, then serves it twice: the first start folds the whole log (and
# takes a snapshot at the head), the second restores that snapshot.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build/release}
EVENTS=${2:-1000000}
LAS=$PWD/$BUILD/cli/las
BENCH=$PWD/$BUILD/bench/las_restart_bench
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export LAS_DEMO_DIR=$TMP/demo
LAS="$LAS" examples/demo.sh >"$TMP/demo.out" 2>&1 || { cat "$TMP/demo.out"; exit 1; }
DEMO=$LAS_DEMO_DIR
export LAS_WORKSPACE="$DEMO/workspace"
export LAS_RELEASE_MANIFEST="$DEMO/release/manifest.json"
export LAS_RELEASE_SIGNATURE="$DEMO/release/manifest.sig"
export LAS_TRUST_STORE="$DEMO/keys/trust.json"
export LAS_RELEASE_WATERMARK="$DEMO/state/watermark.json"
export SKARBIEC_MCP_AGENT_ID=demo-agent
export LAS_SKARBIEC_POLICY="$DEMO/policy/skarbiec.json"
export LAS_SURFACE_POLICY="$DEMO/policy/surfaces.json"
export LAS_FINANCE_POLICY="$DEMO/policy/finance.json"
export LAS_FINANCE_POLICY_SHA256=$(sha256sum <"$LAS_FINANCE_POLICY" | cut -d' ' -f1)
export LAS_FINANCE_STATE="$DEMO/state/finance"
export LAS_FINANCE_KEY="$DEMO/policy/finance.key"
export LAS_FINANCE_BINARY_SHA256=$(sha256sum <"$LAS_WORKSPACE/stand_in.py" | cut -d' ' -f1)

"$BENCH" build "$TMP/log" "$EVENTS"
printf 'log: %s events of tool calls; load average: %s\n' "$EVENTS" "$(cut -d' ' -f1-3 /proc/loadavg)"
for run in "no snapshot" "snapshot at head"; do
  /usr/bin/python3 - "$LAS" "$TMP/log" "$run" <<'PY'
import json, subprocess, sys, time
las, log, label = sys.argv[1:4]
start = time.monotonic()
p = subprocess.Popen([las, "serve", "--log", log], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, text=True)
def send(m): p.stdin.write(json.dumps(m) + "\n"); p.stdin.flush()
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2024-11-05",
      "capabilities": {}, "clientInfo": {"name": "rss", "version": "1"}, "agentId": "demo-agent"}})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
tools = None
for line in p.stdout:
    m = json.loads(line)
    if m.get("id") == 2:
        tools = len(m["result"]["tools"]); break
ready = time.monotonic() - start
status = dict(l.split(":", 1) for l in open("/proc/%d/status" % p.pid))
children = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
p.stdin.close(); p.wait()
print("%-17s tools/list after %6.0f ms: %d tools, %d children; VmRSS %s, VmHWM %s (server only)" %
      (label, ready * 1000, tools, len(children), status["VmRSS"].strip(), status["VmHWM"].strip()))
PY
done
