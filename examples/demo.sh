#!/usr/bin/env bash
# Las's main job, end to end, as an operator and a client would do it:
#   1. a fresh demo key and trust store,
#   2. a release drafted from the twelve stand-in surfaces (examples/surfaces/stand_in.py)
#      and signed with `las release`,
#   3. `las check` of every admission rule,
#   4. `las grant`: the demo agent may call exactly four tools (any other agent: nothing),
#   5. the gateway (`las serve`) answering a scripted MCP session over stdio,
#   6. the audit: `las replay` verifies the hash chain and rebuilds every projection.
# Everything lives in $LAS_DEMO_DIR (default: $XDG_STATE_HOME/las/demo, else
# ~/.local/state/las/demo), made anew on each run — its snapshot key too — and only a
# directory the demo made is ever removed.
set -euo pipefail
cd "$(dirname "$0")/.."
LAS=${LAS:-$PWD/build/release/cli/las}
DEMO=${LAS_DEMO_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/las/demo}
SURFACES=(brama byk echo finance lem most probierz skarbiec stado tama warsztat weles)

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# Made anew, but only a directory this script made: LAS_DEMO_DIR=$HOME must not empty a home.
if [ -e "$DEMO" ] && [ -n "$(ls -A "$DEMO" 2>/dev/null)" ] && [ ! -e "$DEMO/.las-demo" ]; then
  printf 'demo: %s is not empty and not marked as a Las demo directory (%s); set LAS_DEMO_DIR to another path, or remove it\n' \
    "$DEMO" "$DEMO/.las-demo" >&2
  exit 2
fi
# Made here by this user, never adopted: `mkdir -p` took a directory another user made in
# the moment after the rm, and then ran their workspace's code (probe FZ2). Its parent must
# be one no one else can rename it out of (theirs, or open to others and not sticky).
# Group write counts only when the group holds someone else: Debian gives each user a group
# of their own and umask 002 (probe GA2), as base/path_exposure.h judges it.
group_holds_others() {
  local gid=$1 members
  [ "$gid" = "$(id -g)" ] || return 0
  members=$(getent group "$gid" | cut -d: -f4)
  [ -z "$members" ] || [ "$members" = "$(id -un)" ] || return 0
  getent passwd | awk -F: -v g="$gid" -v me="$(id -u)" '$4 == g && $3 != me { found = 1 } END { exit !found }'
}
PARENT=$(dirname "$DEMO")
(umask 077 && mkdir -p "$PARENT")
read -r parent_mode parent_owner parent_group < <(stat -L -c '%a %u %g' "$PARENT")
others_write=0
if (( 8#$parent_mode & 8#002 )); then others_write=1; fi
if (( 8#$parent_mode & 8#020 )) && group_holds_others "$parent_group"; then others_write=1; fi
if [ "$parent_owner" != "$(id -u)" ] && [ "$parent_owner" != 0 ] ||
   { [ "$others_write" = 1 ] && ! (( 8#$parent_mode & 8#1000 )); }; then
  printf 'demo: %s may be changed by other users (mode %s, owner uid %s): they could put their own demo directory in its place; set LAS_DEMO_DIR under a directory only you may write\n' \
    "$PARENT" "$parent_mode" "$parent_owner" >&2
  exit 2
fi
rm -rf "$DEMO"
if ! mkdir -m 700 "$DEMO"; then
  printf 'demo: could not make %s afresh (another process made it first?)\n' "$DEMO" >&2
  exit 2
fi
touch "$DEMO/.las-demo"
mkdir -m 700 "$DEMO/keys" "$DEMO/release" "$DEMO/workspace" "$DEMO/state" "$DEMO/policy" "$DEMO/config"
# The demo's own snapshot key and kept heads: a rerun's new log is not taken for this
# user's log "removed and made anew", and nothing of the demo is left in ~/.config/las.
export XDG_CONFIG_HOME="$DEMO/config"
cp examples/surfaces/stand_in.py "$DEMO/workspace/stand_in.py"
export LAS_WORKSPACE="$DEMO/workspace"
export LAS_RELEASE_MANIFEST="$DEMO/release/manifest.json"
export LAS_RELEASE_SIGNATURE="$DEMO/release/manifest.sig"
export LAS_TRUST_STORE="$DEMO/keys/trust.json"
export LAS_RELEASE_WATERMARK="$DEMO/state/watermark.json"
export SKARBIEC_MCP_AGENT_ID=demo-agent   # Skarbiec is federated: sessions must be this agent

# Local special-surface policies (docs/POLICIES.md), owner-only like the trust store.
# Skarbiec's taxonomy, and the Tama/Warsztat allowlists (here: the shipped defaults).
printf '%s' '{"schema_version":1,"purposes":["deploy","read-logs"],"resources":["github:repo"],"targets":["las","weles"]}' \
  >"$DEMO/policy/skarbiec.json"
printf '%s' '{"schema_version":1,"tama":["list_hooks","inspect_hook","get_hook","hook_status"],"warsztat":["list_proposals","get_proposal","create_proposal","proposal_status"]}' \
  >"$DEMO/policy/surfaces.json"
# Finance is served only with its complete local configuration: a proposal-only policy
# (written canonically, so sha256sum is its canonical SHA-256), a key and state path, and
# the exact digest of the code it runs.
printf '%s' '{"max_amount":"500.00","mode":"proposal-only"}' >"$DEMO/policy/finance.json"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$DEMO/policy/finance.key"
chmod 600 "$DEMO/policy/"*
export LAS_SKARBIEC_POLICY="$DEMO/policy/skarbiec.json"
export LAS_SURFACE_POLICY="$DEMO/policy/surfaces.json"
export LAS_FINANCE_POLICY="$DEMO/policy/finance.json"
export LAS_FINANCE_POLICY_SHA256=$(sha256sum <"$LAS_FINANCE_POLICY" | cut -d' ' -f1)
export LAS_FINANCE_STATE="$DEMO/state/finance"
export LAS_FINANCE_KEY="$DEMO/policy/finance.key"
export LAS_FINANCE_BINARY_SHA256=$(sha256sum <"$LAS_WORKSPACE/stand_in.py" | cut -d' ' -f1)

say "1. A demo signing key and a trust store that selects it"
"$LAS" release keygen --out-dir "$DEMO/keys" --trust-store "$LAS_TRUST_STORE"

say "2. Draft the twelve surfaces from their running children, then sign the release"
for surface in "${SURFACES[@]}"; do
  "$LAS" release draft --surface "$surface" --cwd "$LAS_WORKSPACE" -- /usr/bin/python3 "$LAS_WORKSPACE/stand_in.py" \
    "$surface" >/dev/null
  printf 'drafted %s\n' "$surface"
done
"$LAS" release sign --secret-key "$DEMO/keys/release.key" --sequence 1 --expires-in 1d

say "3. las check: signature, expiry, watermark, permissions, digests, live tools"
"$LAS" check | tail -n 4

say "4. Grants: demo-agent may call exactly these tools, at their signed definitions"
# `las list` federates once and records the catalog in the log; `las grant` then pins each
# tool's current definition digest (a changed tool is not covered until granted again).
printf 'recorded the catalog: %s tools\n' "$("$LAS" list --log "$DEMO/log" | wc -l)"
"$LAS" grant demo-agent --log "$DEMO/log" --tool weles__navigate --tool stado__quota \
  --tool lem__provenance --tool echo__echo >/dev/null
"$LAS" grants --log "$DEMO/log"

say "5. A scripted MCP session against las serve (one JSON-RPC message per line)"
session() {
  cat <<'JSON'
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"las-demo","version":"1"},"agentId":"demo-agent"}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weles__navigate","arguments":{"url":"https://example.org"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"stado__quota","arguments":{"pool":"gpu"}}}
{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"lem__provenance","arguments":{"id":"lem-42"}}}
{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo__echo","arguments":{"message":42}}}
{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"finance__finance_execute","arguments":{}}}
{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"skarbiec__capability_request","arguments":{"purpose":"deploy","resource":"github:repo","target":"las","ttl_seconds":61,"use_count":1,"delegation_depth":0}}}
{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"tama__install_hook","arguments":{"name":"x","script":"y"}}}
{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"most__health","arguments":{}}}
JSON
}
session | "$LAS" serve --log "$DEMO/log" | /usr/bin/python3 -c '
import json, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the demo without a traceback
for line in sys.stdin:
    message = json.loads(line)
    if "error" in message:
        print("id %s: error %s %s" % (message["id"], message["error"]["code"], message["error"]["message"]))
    elif "tools" in message["result"]:
        names = [tool["name"] for tool in message["result"]["tools"]]
        print("id %s: %d tools: %s ..." % (message["id"], len(names), ", ".join(names[:6])))
    elif "content" in message["result"]:
        print("id %s: %s" % (message["id"], message["result"]["content"][0]["text"]))
    else:
        print("id %s: %s" % (message["id"], json.dumps(message["result"])[:100]))
'

say "6. The audit: las replay verifies the chain and rebuilds the projections"
"$LAS" replay --log "$DEMO/log" --kind ToolCallRequested --kind ToolCallCompleted \
  --kind ToolCallDenied | /usr/bin/python3 -c '
import json, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
for line in sys.stdin:
    e = json.loads(line)
    p = e["payload"]
    print("#%-3d %-18s %s" % (e["seq"], e["kind"], p.get("surface", "") + " " + p.get("tool", "") +
          " " + p.get("outcome", "") + p.get("reason", "")))
'
printf '\nThe log is in %s; replay it any time with: XDG_CONFIG_HOME=%q %q replay --log %q\n' \
  "$DEMO/log" "$XDG_CONFIG_HOME" "$LAS" "$DEMO/log"
