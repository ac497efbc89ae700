#!/usr/bin/python3
"""A stdio MCP child whose calls wait on a gate file, for tests that must act while a call
is provably in flight (no timing involved).

Tools:
  wait {"gate": PATH}  creates PATH + ".started", then answers "released" once PATH exists
  echo {"text": T, "times": N}  answers T repeated N times (default 1) at once
It declares only tools and never answers resources/list or prompts/list. With
`--bulk-tools N` it also lists N tools bulk0... with 100 KiB descriptions (large catalogs);
with `--stubborn` it ignores SIGTERM and outlives its stdin: only SIGKILL ends it (a child
that outlives its grace period).
Each tools/call runs in its own thread, so calls overlap. Stdlib only.
"""
import json
import os
import signal
import sys
import threading
import time

LOCK = threading.Lock()
TOOLS = [
    {"name": "wait", "description": "Wait until a gate file exists.",
     "inputSchema": {"type": "object", "properties": {"gate": {"type": "string"}},
                     "required": ["gate"], "additionalProperties": False}},
    {"name": "echo", "description": "Echo a text.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"},
                                                      "times": {"type": "integer", "minimum": 1}},
                     "additionalProperties": False}},
]


if "--bulk-tools" in sys.argv:
    for i in range(int(sys.argv[sys.argv.index("--bulk-tools") + 1])):
        TOOLS.append({"name": "bulk%d" % i, "description": "d" * (100 * 1024),
                      "inputSchema": {"type": "object"}})


def send(obj):
    with LOCK:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def text(value):
    return {"content": [{"type": "text", "text": value}]}


def call(rid, params):
    args = params.get("arguments") or {}
    if params.get("name") == "wait":
        gate = args["gate"]
        with open(gate + ".started", "w"):
            pass
        while not os.path.exists(gate):
            time.sleep(0.01)
        send({"jsonrpc": "2.0", "id": rid, "result": text("released")})
    else:
        send({"jsonrpc": "2.0", "id": rid,
              "result": text(args.get("text", "") * args.get("times", 1))})


def main():
    stubborn = "--stubborn" in sys.argv
    if stubborn:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for raw in sys.stdin:
        msg = json.loads(raw)
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                "serverInfo": {"name": "gate_child", "version": "1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            threading.Thread(target=call, args=(rid, msg.get("params") or {}), daemon=True).start()
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
        elif method in ("resources/list", "prompts/list"):
            pass  # declared no such capability: a client that asks anyway waits in vain
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
    while stubborn:
        time.sleep(1)


if __name__ == "__main__":
    main()
