#!/usr/bin/python3
"""A stand-in MCP server (stdio, protocol 2024-11-05) for one of Las's twelve surfaces.

Usage: stand_in.py SURFACE [--misbehave | --spaced]

Stdlib only and self-contained, so that a release manifest binds every line of code the
child runs (the script's SHA-256 is the manifest's code digest). Each surface offers a few
plausible tools with deterministic answers; none of them reaches anything outside the
process. Tool-only: resources/list and prompts/list answer "Method not found".

Skarbiec's three tools list exactly the descriptions and input schemas Las pins
(trust/skarbiec_policy.cc, docs/POLICIES.md), and answer in its exact result envelopes.
`--misbehave` (for tests) makes Skarbiec answer outside them: capability_available adds a
field, capability_request adds something that looks like a redeemed credential.
`--spaced` (for tests) keeps Skarbiec's values but spells its answers its own way — spaces
around every separator, a key written with an escape — and sends a progress notification
first when the client asked for progress: what Las must not relay as the child wrote it.
"""
import json
import sys
import time

PROTOCOL = "2024-11-05"


def schema(properties=None, required=()):
    return {
        "type": "object",
        "properties": properties or {},
        "required": list(required),
        "additionalProperties": False,
    }


STRING = {"type": "string", "minLength": 1, "maxLength": 256}
INTEGER = {"type": "integer"}
# Skarbiec's bounded taxonomy value, as Las pins it.
TAXON = {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[a-z0-9][a-z0-9._:-]{0,63}$"}
MISBEHAVE = "--misbehave" in sys.argv[2:]
SPACED = "--spaced" in sys.argv[2:]
SEPARATORS = (" , ", " : ") if SPACED else (",", ":")


def envelope(value):
    return {"content": [{"type": "text", "text": json.dumps(value, separators=SEPARATORS)}]}


def capability_available(a):
    return envelope({"available": True, "note": "extra"} if MISBEHAVE else {"available": True})


def capability_request(a):
    answer = {"capability_id": "cap-0001", "expires_in_seconds": a["ttl_seconds"]}
    if MISBEHAVE:
        answer["token"] = "redeemed-credential-value"
    return envelope(answer)


def text(value):
    return {"content": [{"type": "text", "text": value}]}


# surface -> tool -> (description, input schema, handler(arguments) -> result)
SURFACES = {
    "weles": {
        "navigate": ("Open a URL in the sandboxed browser and return the page title.",
                     schema({"url": STRING}, ["url"]),
                     lambda a: text("Title of " + a["url"] + ": Example Domain")),
        "extract_text": ("Return the visible text of the current page.",
                         schema({"max_chars": INTEGER}),
                         lambda a: text("Example Domain. This domain is for use in examples."[: a.get("max_chars", 200)])),
        "screenshot": ("Describe a screenshot of the current page (stand-in: no pixels).",
                       schema({"selector": STRING}),
                       lambda a: text("screenshot of " + a.get("selector", "page") + ": 1280x720")),
    },
    "skarbiec": {
        "health": ("Report the capability broker's health.", schema(),
                   lambda a: envelope({"status": "ok"})),
        "capability_available": ("Tell whether a capability could be granted.",
                                 schema({"purpose": TAXON, "resource": TAXON, "target": TAXON},
                                        ["purpose", "resource", "target"]),
                                 capability_available),
        "capability_request": ("Request a one-use, short-lived capability; returns an opaque id.",
                               schema({"purpose": TAXON, "resource": TAXON, "target": TAXON,
                                       "ttl_seconds": {"type": "integer", "minimum": 1, "maximum": 60},
                                       "use_count": {"type": "integer", "minimum": 1, "maximum": 1},
                                       "delegation_depth": {"type": "integer", "minimum": 0, "maximum": 0}},
                                      ["purpose", "resource", "target", "ttl_seconds", "use_count",
                                       "delegation_depth"]),
                               capability_request),
    },
    "tama": {
        "list_hooks": ("List the installed hooks.", schema(),
                       lambda a: text("pre-commit, pre-push, post-merge")),
        "inspect_hook": ("Show one hook's definition.", schema({"name": STRING}, ["name"]),
                         lambda a: text("hook " + a["name"] + ": runs lint and tests")),
        "install_hook": ("Install a hook (write operation).", schema({"name": STRING, "script": STRING}, ["name", "script"]),
                         lambda a: text("installed " + a["name"])),
    },
    "stado": {
        "status": ("Compute cluster status.", schema(), lambda a: text("3 nodes up, 0 down")),
        "cost": ("Spend for a period.", schema({"period": STRING}, ["period"]),
                 lambda a: text("spend for " + a["period"] + ": 42.00 EUR")),
        "quota": ("Remaining quota of a pool.", schema({"pool": STRING}, ["pool"]),
                  lambda a: text("pool " + a["pool"] + ": 75% remaining")),
        "schedule": ("Schedule a job.", schema({"job": STRING, "at": STRING}, ["job", "at"]),
                     lambda a: text("scheduled " + a["job"] + " at " + a["at"])),
    },
    "lem": {
        "search": ("Search the research registry.", schema({"query": STRING}, ["query"]),
                   lambda a: text("2 records match '" + a["query"] + "': lem-17, lem-42")),
        "get_record": ("Fetch one research record.", schema({"id": STRING}, ["id"]),
                       lambda a: text("record " + a["id"] + ": Provenance of training data, 2026")),
        "provenance": ("Trace a record's provenance.", schema({"id": STRING}, ["id"]),
                       lambda a: text(a["id"] + " <- dataset ds-3 <- crawl 2026-10")),
    },
    "echo": {
        "echo": ("Echo the message back.", schema({"message": STRING}, ["message"]),
                 lambda a: text("Echo: " + a["message"])),
        "dashboard": ("Growth dashboard for a metric.", schema({"metric": STRING}, ["metric"]),
                      lambda a: text(a["metric"] + ": +12% week over week")),
        "content_stats": ("Content statistics for a channel.", schema({"channel": STRING}, ["channel"]),
                          lambda a: text(a["channel"] + ": 14 posts, 3.2k views")),
    },
    "most": {
        "health": ("Communications health.", schema(), lambda a: text("all channels healthy")),
        "diagnostics": ("Diagnostics for a channel.", schema({"channel": STRING}, ["channel"]),
                        lambda a: text(a["channel"] + ": latency 120 ms, 0 errors")),
    },
    "probierz": {
        "run_checks": ("Run quality checks on a platform.", schema({"platform": STRING}, ["platform"]),
                       lambda a: text("run r-7 on " + a["platform"] + ": 118 passed, 0 failed")),
        "report": ("Report of a check run.", schema({"run_id": STRING}, ["run_id"]),
                   lambda a: text("run " + a["run_id"] + ": all green")),
    },
    "byk": {
        "strategy_brief": ("A strategy brief on a topic.", schema({"topic": STRING}, ["topic"]),
                           lambda a: text("brief on " + a["topic"] + ": focus, then scale")),
        "priorities": ("Current founder priorities.", schema(),
                       lambda a: text("1. ship the gateway 2. sign releases 3. audit")),
    },
    "brama": {
        "detect": ("Detect available model backends.", schema(),
                   lambda a: text("2 backends: local-small, remote-large")),
        "list": ("List models behind the gateway.", schema(),
                 lambda a: text("local-small, remote-large")),
    },
    "warsztat": {
        "list_proposals": ("List repository change proposals.", schema(),
                           lambda a: text("p-1: tidy README")),
        "create_proposal": ("Propose a repository change.", schema({"title": STRING, "body": STRING}, ["title", "body"]),
                            lambda a: text("created proposal p-2: " + a["title"])),
        "apply_proposal": ("Apply a proposal to the repository (write operation).", schema({"id": STRING}, ["id"]),
                           lambda a: text("applied " + a["id"])),
    },
    "finance": {
        "finance_propose": ("Propose a payment for human approval.",
                            schema({"amount": STRING, "currency": STRING, "memo": STRING}, ["amount", "currency"]),
                            lambda a: text("proposal f-1: " + a["amount"] + " " + a["currency"])),
        "finance_status": ("Status of a proposal.", schema({"id": STRING}, ["id"]),
                           lambda a: text(a["id"] + ": awaiting approval")),
        "finance_cancel": ("Cancel a proposal.", schema({"id": STRING}, ["id"]),
                           lambda a: text(a["id"] + ": cancelled")),
    },
}


def respond(message_id, result=None, error=None):
    reply = {"jsonrpc": "2.0", "id": message_id}
    if error is not None:
        reply["error"] = error
    else:
        reply["result"] = result
    line = json.dumps(reply, separators=SEPARATORS)
    if SPACED:
        line = line.replace('"content"', '"\\u0063ontent"')
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def notify_progress(message):
    token = ((message.get("params") or {}).get("_meta") or {}).get("progressToken")
    if SPACED and message.get("method") == "tools/call" and token is not None:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress",
                                     "params": {"progressToken": token, "progress": 7}}) + "\n")


def handle(surface, tools, message):
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        return {"protocolVersion": PROTOCOL, "capabilities": {"tools": {}},
                "serverInfo": {"name": surface + "-stand-in", "version": "0.1.0"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [{"name": name, "description": d, "inputSchema": s}
                          for name, (d, s, _) in tools.items()]}
    if method == "tools/call":
        name = params.get("name")
        if name not in tools:
            raise LookupError("unknown tool")
        arguments = params.get("arguments") or {}
        if arguments.get("delay_ms"):
            time.sleep(arguments["delay_ms"] / 1000.0)
        try:
            return tools[name][2](arguments)
        except (KeyError, TypeError) as missing:
            return {"content": [{"type": "text", "text": "bad arguments: " + str(missing)}], "isError": True}
    raise NotImplementedError(method)


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in SURFACES or sys.argv[2:] not in ([], ["--misbehave"], ["--spaced"]):
        sys.stderr.write("usage: stand_in.py " + "|".join(sorted(SURFACES)) + " [--misbehave | --spaced]\n")
        return 2
    surface = sys.argv[1]
    tools = SURFACES[surface]
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            respond(None, error={"code": -32700, "message": "Parse error"})
            continue
        if "id" not in message:
            continue  # notification
        try:
            notify_progress(message)
            respond(message["id"], result=handle(surface, tools, message))
        except NotImplementedError:
            respond(message["id"], error={"code": -32601, "message": "Method not found"})
        except LookupError:
            respond(message["id"], error={"code": -32602, "message": "Unknown tool"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
