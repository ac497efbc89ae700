#!/usr/bin/env bash
# Resident memory of `las serve` under steady calls (docs/PERFORMANCE.md, "Snapshots,
# restart and the catalog", session 22): what RocksDB's memtables hold until they flush
# shows here, on top of what a start needs.
#
#   bench/calls_rss.sh [BUILD_DIR] [CALLS]      (defaults: build/release, 65000)
#
# One `las serve` (Las's own tools only, a fresh log), driven over stdio with 16 small
# las__state_set calls in flight: VmRSS and VmHWM from /proc/PID/status every 13,000 calls.
set -euo pipefail
cd "$(dirname "$0")/.."
LAS=$(realpath "${1:-build/release}")/cli/las
CALLS=${2:-65000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf 'las: %s; load average: %s\n' "$LAS" "$(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$LAS" "$TMP" "$CALLS" <<'PY'
import json, os, subprocess, sys
las, tmp, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = dict(os.environ, LAS_AGENT_ID="root", HOME=tmp, XDG_RUNTIME_DIR=tmp, XDG_STATE_HOME=tmp)
for name in [n for n in env if n.startswith("LAS_RELEASE")]:
    del env[name]
server = subprocess.Popen([las, "serve", "--log", tmp + "/log"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
def send(lines):
    server.stdin.write("".join(line + "\n" for line in lines).encode())
    server.stdin.flush()
def answer():
    reply = json.loads(server.stdout.readline())
    if "error" in reply or reply["result"].get("isError"):
        sys.exit("las_calls_rss: a call failed: %s" % json.dumps(reply)[:300])
def status():
    fields = {}
    for line in open("/proc/%d/status" % server.pid):
        if line.startswith(("VmRSS", "VmHWM")):
            fields[line.split(":")[0]] = int(line.split()[1]) / 1024
    return fields
def call(n):
    return json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                       "params": {"name": "las__state_set",
                                  "arguments": {"key": "k%d" % (n % 1000), "value": n}}},
                      separators=(",", ":"))
send([json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                  "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                             "clientInfo": {"name": "calls-rss", "version": "1"}}})])
answer()
print("%8s %10s %10s" % ("calls", "VmRSS MiB", "VmHWM MiB"))
at = status()
print("%8d %10.1f %10.1f" % (0, at["VmRSS"], at["VmHWM"]))
sent = done = 0
while done < total:
    batch = [call(sent + i + 1) for i in range(min(16 - (sent - done), total - sent))]
    if batch:
        send(batch)
        sent += len(batch)
    answer()
    done += 1
    if done % 13000 == 0 or done == total:
        at = status()
        print("%8d %10.1f %10.1f" % (done, at["VmRSS"], at["VmHWM"]))
server.stdin.close()
server.wait(timeout=60)
PY
