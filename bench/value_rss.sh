#!/usr/bin/env bash
# Peak resident memory of `las serve` taking large state values and message bodies
# (docs/PERFORMANCE.md, "Large values"). A value may be 1 MiB of canonical JSON; as a tree
# of small elements it is ~100x that, so every copy of the tree shows here.
#
#   bench/value_rss.sh [BUILD_DIR]      (default: build/release)
#
# One `las serve` (Las's own tools only, a fresh log), driven over stdio: VmHWM from
# /proc/PID/status before anything, then after each step.
set -euo pipefail
cd "$(dirname "$0")/.."
LAS=$(realpath "${1:-build/release}")/cli/las
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf 'las: %s; load average: %s\n' "$LAS" "$(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$LAS" "$TMP" <<'PY'
import json, os, subprocess, sys
las, tmp = sys.argv[1], sys.argv[2]
env = dict(os.environ, LAS_AGENT_ID="root", HOME=tmp, XDG_RUNTIME_DIR=tmp, XDG_STATE_HOME=tmp)
for name in [n for n in env if n.startswith("LAS_RELEASE")]:
    del env[name]
server = subprocess.Popen([las, "serve", "--log", tmp + "/log"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
next_id = 0
def call(method, params):
    global next_id
    next_id += 1
    line = json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params},
                      separators=(",", ":"))
    server.stdin.write(line.encode() + b"\n")
    server.stdin.flush()
    answer = json.loads(server.stdout.readline())
    if "error" in answer or answer["result"].get("isError"):
        sys.exit("las_value_rss: %s failed: %s" % (method, json.dumps(answer)[:300]))
def peak_mib():
    for line in open("/proc/%d/status" % server.pid):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
call("initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                    "clientInfo": {"name": "value-rss", "version": "1"}})
print("%-52s %8s" % ("step", "VmHWM MiB"))
print("%-52s %8.1f" % ("initialized", peak_mib()))
small_elements = [0] * 499_990  # ~1 MB of canonical JSON: "[0,0,...]"
def tool(name, arguments, what):
    call("tools/call", {"name": name, "arguments": arguments})
    print("%-52s %8.1f" % (what, peak_mib()))
tool("las__state_set", {"scope": "blackboard", "key": "big", "value": small_elements},
     "state_set 1 MB of 500k numbers (new key)")
tool("las__state_set", {"scope": "blackboard", "key": "big", "value": small_elements},
     "state_set the same again (replace)")
tool("las__state_append", {"scope": "blackboard", "key": "big", "value": 1},
     "state_append one number to it")
tool("las__message_send", {"to": "root", "body": small_elements},
     "message_send a 1 MB body of 500k numbers")
server.stdin.close()
server.wait(timeout=60)
PY
