#!/usr/bin/python3
"""A small MCP server over stdio for transport tests (stdlib only).

Options:
  --exit-at-start N    exit with status N before reading anything
  --exit-at-start-while PATH   exit with status 4 before reading anything while PATH exists
                       (checked after the sleeps below)
  --sleep-at-start S   sleep S seconds before reading anything (a child stuck in its start)
  --meet-at-start DIR:N  write DIR/<pid>, then wait until DIR holds N entries (at most 60 s)
                       before reading anything: children that meet started together
  --sleep-at-start-while PATH  if PATH exists: write PATH.asleep, then sleep until PATH is
                               removed (at most 987 s)
                       before reading anything
  --page-size N        tools/list pages of N tools (nextCursor pagination)
  --cursor-padding N   each nextCursor carries N more bytes after its page number
  --cursor-loop 1      with --page-size: the second page's nextCursor is the first page's
  --repeat-tools-key 1 tools/list answers with the "tools" member twice
  --silent 1           read requests but never answer any
  --flood-stderr-mb N  write N MiB of stderr lines from a thread while serving;
                       the last stderr line is "flood-done"
  --protocol-version V initialize answers protocolVersion V ("none": no such member)
  --list-delay-ms N    wait N ms before answering each tools/list page
  --title TEXT         every tool lists "title": TEXT (unsigned text)
  --extra-tool NAME    list one more tool, NAME (not in any release)
  --extra-tool-description TEXT  that tool's description
  (the TEXT and NAME of --title, --extra-tool* and --prompt-description written "rev:" +
  reversed text are read reversed: so a credential's value reaches the child's listing without being on the
  command line, which a release signs and the log records)
  --lookahead-tool NAME  list one more tool, NAME, whose schema's pattern has a look-ahead
                       after its start (signed as listed; Las cannot compile it)
  --short-key-tool NAME  list one more tool, NAME, whose schema allows an "api_key" of at
                       most 4 characters (a credential template of a longer value fails it)
  --untyped-tool NAME  list one more tool, NAME, whose schema has no root "type" (valid JSON
                       Schema; MCP clients want "type": "object"); it answers as echo does
  --string-root-tool NAME  list one more tool, NAME, whose schema's root is {"type": "string"}
  --boolean-property-tool NAME  list one more tool, NAME, answering as echo, whose schema's
                       properties "any" and "never" are the boolean schemas true and false
  --exit-at-resources-list 1   declare resources, and exit with status 6 when asked to list them
  --declare-resources-prompts 1  declare resources and prompts, and answer their lists -32601
  --prompt-description TEXT  declare prompts, and list two: "kept" (described "plain") and
                       "described" (described TEXT)
  --fail-tools-list 1  answer tools/list with a JSON-RPC error
  --exit-after-list-once PATH  if PATH does not exist: create it, and exit with status 5
                       0.3 s after answering tools/list (a child that dies just after its
                       admission); once PATH exists, serve as usual
Tools: echo, add, slow, crash, garbage, huge, huge_noid, hang, error, stray, long_stderr,
sleeper (starts /bin/sleep 1000 in the same process group; answers with its pid),
escapee (starts /bin/sleep `seconds` in a new session, out of the group — without its
environment with "clean_env", holding this child's stdin and stdout with "keep_pipes" —
answers with its pid), cr_result (a result with CR bytes between its tokens), two_verdicts (a result with
"isError" twice), malformed_answer (an answer with our id and "result" twice), ping_flood (sends `n` pings with
ids of `id_kib` KiB and stops reading its stdin for `ms` ms before it answers),
close_stdin (closes its stdin, answers, and lives on, reading nothing, for at most 60 s),
close_stdout (closes its stdout without answering and lives on, for at most 60 s),
stop_reading (answers, then reads nothing more from its stdin while the file `path` exists,
at most 60 s), received (answers with a JSON list of [method, id] for every line it has read;
for notifications/cancelled the id is the requestId), odd_answer (answers its call in the
`shape` given: "bom" a UTF-8 byte order mark before the line, "float_id" the id as N.0,
"exp_id" the id as a mantissa and exponent (1.2e1 for 12), "half_id" the id as N.5 followed
by the real answer, "batch" the answer inside a one-element array, "bad_version_float_id"
jsonrpc "1.0" and the id as N.0, "string_id" / "string_float_id" the id as "N" / "N.0"),
then wrapped as `wrap` says: "bom" behind a byte order mark, "batch" in a one-element
array, "broken" with a member holding a lone surrogate escape (no valid JSON), "broken_batch"
in an array beside an element holding one.
echo with "twin": true answers its text as \\u escapes in the first of two "text" keys.
Each tools/call runs in its own thread, so calls overlap.
"""
import json
import os
import subprocess
import sys
import threading
import time

OUT_LOCK = threading.Lock()


def send_bytes(data):
    with OUT_LOCK:
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.buffer.flush()


def send(obj):
    send_bytes(json.dumps(obj).encode())


def text_result(text):
    return {"content": [{"type": "text", "text": text}]}


TOOL_NAMES = ["echo", "add", "slow", "crash", "garbage", "huge", "huge_noid", "hang",
              "error", "stray", "long_stderr", "sleeper", "escapee", "cr_result", "ping_flood", "two_verdicts",
              "malformed_answer", "progress", "stop_reading", "received", "odd_answer",
              "close_stdout", "close_stdin"]  # and, unlisted, raw_line
RECEIVED = []  # [method, id] of every line read, in order
RAW_LINE = [b""]  # the bytes of the line last read
TOOLS = [{"name": n, "description": "test tool " + n,
          "inputSchema": {"type": "object"}} for n in TOOL_NAMES]


UNTYPED = set()  # --untyped-tool and --boolean-property-tool names: they answer as echo


def handle_call(rid, params):
    name = params.get("name")
    if name in UNTYPED:
        name = "echo"
    args = params.get("arguments") or {}
    raw_id = json.dumps(rid).encode()
    if name == "echo" and args.get("twin"):
        # The text \u-escaped in the first of two "text" keys: a reader keeping the last
        # one sees only "ok".
        escaped = "".join("\\u%04x" % ord(c) for c in args.get("text", ""))
        send_bytes(b'{"jsonrpc":"2.0","id":' + raw_id +
                   b',"result":{"content":[{"type":"text","text":"' + escaped.encode() +
                   b'","text":"ok"}]}}')
    elif name == "echo" and "result" in args:  # the result as given, whatever its shape
        send({"jsonrpc": "2.0", "id": rid, "result": args["result"]})
    elif name == "echo":
        send({"jsonrpc": "2.0", "id": rid, "result": text_result(args.get("text", ""))})
    elif name == "add":
        send({"jsonrpc": "2.0", "id": rid, "result": text_result(str(args["a"] + args["b"]))})
    elif name == "slow":
        time.sleep(args.get("ms", 100) / 1000.0)
        send({"jsonrpc": "2.0", "id": rid, "result": text_result(args.get("text", ""))})
    elif name == "crash":
        with OUT_LOCK:
            if args.get("signal"):  # dies of this signal, as a segfault or an abort would
                os.kill(os.getpid(), int(args["signal"]))
                time.sleep(60)
            os._exit(3)
    elif name == "garbage":
        send_bytes(b"this is not json")
        send_bytes(b'{"jsonrpc":"2.0","id":')
        send_bytes(b'\xff\xfe{}')
        send_bytes(b"[1,2,3]")
        send_bytes(b"")
        send({"jsonrpc": "2.0", "id": rid, "result": text_result("after garbage")})
    elif name == "huge":
        # A line of {"mib": N} MiB (default 20: over Las's 16 MiB bound) with the id first.
        mib = args.get("mib", 20)
        send_bytes(b'{"jsonrpc":"2.0","id":' + raw_id + b',"result":{"content":[{"type":"text","text":"'
                   + b"x" * (mib * 1024 * 1024) + b'"}]}}')
    elif name == "huge_noid" and args.get("as_request"):
        # A 20 MiB request of the child's own whose id equals the call's — last after its
        # method (default), first ({"order": "id_first"}), or last after the bulk of its
        # params, its method after them ({"order": "params_first"}); then the real answer.
        method = b'"method":"sampling/createMessage"'
        params = b'"params":{"text":"' + b"x" * (20 * 1024 * 1024) + b'"}'
        id_member = b'"id":' + raw_id
        members = {"id_first": [id_member, method, params],
                   "params_first": [params, method, id_member]}.get(
                       args.get("order"), [method, params, id_member])
        send_bytes(b'{"jsonrpc":"2.0",' + b",".join(members) + b'}')
        send({"jsonrpc": "2.0", "id": rid, "result": text_result("after request")})
    elif name == "huge_noid":
        # 20 MiB line with the id last ({"id_last": true}) or not at all (then no answer).
        tail = b',"id":' + raw_id if args.get("id_last") else b''
        send_bytes(b'{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"'
                   + b"x" * (20 * 1024 * 1024) + b'"}]}' + tail + b'}')
    elif name == "hang":
        return
    elif name == "error":
        send({"jsonrpc": "2.0", "id": rid,
              "error": {"code": -32000, "message": "CHILD-CONTROLLED secret text"}})
    elif name == "stray":
        send({"jsonrpc": "2.0", "id": 987654321, "result": {}})
        send({"jsonrpc": "2.0", "id": "x" + str(rid), "result": {}})
        send({"jsonrpc": "2.0", "id": rid, "result": text_result("after stray")})
    elif name == "long_stderr":
        sys.stderr.write("y" * 10000 + "\nshort line\n")
        sys.stderr.flush()
        send({"jsonrpc": "2.0", "id": rid, "result": text_result("done")})
    elif name == "sleeper":
        p = subprocess.Popen(["/bin/sleep", "1000"])
        send({"jsonrpc": "2.0", "id": rid, "result": text_result(str(p.pid))})
    elif name == "escapee":
        held = args.get("keep_pipes")  # the grandchild holds this child's stdin and stdout
        p = subprocess.Popen(["/bin/sleep", str(args.get("seconds", 1000))], start_new_session=True,
                             stdin=None if held else subprocess.DEVNULL,
                             stdout=None if held else subprocess.DEVNULL,
                             env={} if args.get("clean_env") else None)
        send({"jsonrpc": "2.0", "id": rid, "result": text_result(str(p.pid))})
    elif name == "odd_answer":
        shape = args.get("shape")
        digits = str(rid)
        ids = {"float_id": digits + ".0", "bad_version_float_id": digits + ".0",
               "exp_id": digits[0] + "." + (digits[1:] or "0") + "e" + str(len(digits) - 1),
               "half_id": digits + ".5", "string_id": '"' + digits + '"',
               "string_float_id": '"' + digits + '.0"'}
        answer = b'{"jsonrpc":"2.0","id":' + ids.get(shape, digits).encode() + \
            b',"result":{"content":[{"type":"text","text":"odd"}]}}'
        if shape == "bom":
            answer = b"\xef\xbb\xbf" + answer
        elif shape == "batch":
            answer = b"[" + answer + b"]"
        elif shape == "bad_version_float_id":
            answer = answer.replace(b'"2.0"', b'"1.0"')
        elif shape == "with_method":  # an answer that also names a method (probe HN1)
            answer = answer[:-1] + b',"method":"sampling/createMessage"}'
        elif shape == "method_first":
            answer = b'{"method":"notifications/message","params":{},' + answer[1:]
        wrap = args.get("wrap")
        if wrap == "bom":
            answer = b"\xef\xbb\xbf" + answer
        elif wrap == "batch":
            answer = b"[" + answer + b"]"
        elif wrap == "broken":
            answer = answer[:-1] + b',"x":"\\ud800"}'
        elif wrap == "broken_batch":
            answer = b"[" + answer + b',{"x":"\\ud800"}]'
        send_bytes(answer)
        if shape == "half_id":
            send({"jsonrpc": "2.0", "id": rid, "result": text_result("after half")})
    elif name == "raw_line":  # this call's own line, as read
        send({"jsonrpc": "2.0", "id": rid, "result": text_result(RAW_LINE[0].decode("utf-8"))})
    elif name == "received":
        send({"jsonrpc": "2.0", "id": rid, "result": text_result(json.dumps(RECEIVED))})
    elif name == "malformed_answer":  # our id, but not one valid answer
        send_bytes(b'{"jsonrpc":"2.0","id":' + raw_id + b',"result":{},"result":{"content":[]}}')
    elif name == "two_verdicts":
        send_bytes(b'{"jsonrpc":"2.0","id":' + raw_id +
                   b',"result":{"isError":true,"isError":false,"content":[]}}')
    elif name == "cr_result":
        send_bytes(b'{"jsonrpc":"2.0","id":' + raw_id +
                   b',"result":{"content":[{"type":"text","text":"a\\r"}],\r"x":\r1}}')
    elif name == "progress":
        # Each of args.notices is the raw params text of one notifications/progress, with
        # TOKEN standing for the call's _meta.progressToken; the answer names that token,
        # args.ms after the last notice (the SDK client drops a notice that reaches it in
        # the same read as the answer).
        token = json.dumps((params.get("_meta") or {}).get("progressToken"))
        for notice in args.get("notices", []):
            send_bytes(('{"jsonrpc":"2.0","method":"notifications/progress","params":' +
                        notice.replace("TOKEN", token) + '}').encode())
        time.sleep(args.get("ms", 0) / 1000.0)
        send({"jsonrpc": "2.0", "id": rid, "result": text_result(token)})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no such tool"}})


def flood(mib):
    line = "e" * 1023 + "\n"
    for _ in range(mib * 1024):
        sys.stderr.write(line)
    sys.stderr.write("flood-done\n")
    sys.stderr.flush()


def main():
    argv = sys.argv[1:]
    opts = {}
    i = 0
    while i < len(argv):
        opts[argv[i]] = argv[i + 1]
        i += 2
    if "--exit-at-start" in opts:
        sys.exit(int(opts["--exit-at-start"]))
    if "--sleep-at-start" in opts:
        time.sleep(float(opts["--sleep-at-start"]))
    if "--meet-at-start" in opts:
        place, count = opts["--meet-at-start"].rsplit(":", 1)
        open(os.path.join(place, str(os.getpid())), "w").close()
        give_up = time.monotonic() + 60
        while len(os.listdir(place)) < int(count) and time.monotonic() < give_up:
            time.sleep(0.02)
    if "--sleep-at-start-while" in opts and os.path.exists(opts["--sleep-at-start-while"]):
        with open(opts["--sleep-at-start-while"] + ".asleep", "a") as marker:
            marker.write("%d\n" % os.getpid())
        give_up = time.monotonic() + 987
        while os.path.exists(opts["--sleep-at-start-while"]) and time.monotonic() < give_up:
            time.sleep(0.02)
    if "--exit-at-start-while" in opts and os.path.exists(opts["--exit-at-start-while"]):
        sys.exit(4)
    page = int(opts.get("--page-size", "0"))
    def option_text(opt):
        value = opts[opt]
        return value[4:][::-1] if value.startswith("rev:") else value
    if "--title" in opts:
        for tool in TOOLS:
            tool["title"] = option_text("--title")
    if "--extra-tool" in opts:
        TOOLS.append({"name": option_text("--extra-tool"), "inputSchema": {"type": "object"}})
        if "--extra-tool-description" in opts:
            TOOLS[-1]["description"] = option_text("--extra-tool-description")
    if "--lookahead-tool" in opts:
        TOOLS.append({"name": opts["--lookahead-tool"], "inputSchema": {
            "type": "object", "properties": {"a": {"type": "string", "pattern": "^a(?=a)"}}}})
    if "--short-key-tool" in opts:
        TOOLS.append({"name": opts["--short-key-tool"], "inputSchema": {
            "type": "object", "properties": {"api_key": {"type": "string", "maxLength": 4}}}})
    if "--untyped-tool" in opts:
        UNTYPED.add(opts["--untyped-tool"])
        TOOLS.append({"name": opts["--untyped-tool"], "inputSchema": {
            "properties": {"text": {"type": "string"}}, "required": ["text"]}})
    if "--boolean-property-tool" in opts:
        UNTYPED.add(opts["--boolean-property-tool"])
        TOOLS.append({"name": opts["--boolean-property-tool"], "inputSchema": {
            "type": "object", "properties": {"text": {"type": "string"}, "any": True, "never": False},
            "required": ["text"]}})
    if "--string-root-tool" in opts:
        TOOLS.append({"name": opts["--string-root-tool"], "inputSchema": {"type": "string"}})
    if "--flood-stderr-mb" in opts:
        threading.Thread(target=flood, args=(int(opts["--flood-stderr-mb"]),), daemon=True).start()

    for raw in sys.stdin.buffer:
        if "--silent" in opts:
            continue
        RAW_LINE[0] = raw
        msg = json.loads(raw)
        method = msg.get("method")
        rid = msg.get("id")
        if method == "notifications/cancelled":
            RECEIVED.append([method, (msg.get("params") or {}).get("requestId")])
        else:
            RECEIVED.append([method, rid])
        if method == "initialize":
            assert msg["params"]["protocolVersion"] == "2024-11-05"
            result = {"protocolVersion": opts.get("--protocol-version", "2024-11-05"),
                      "capabilities": {"tools": {}}, "serverInfo": {"name": "mcp_child", "version": "1"}}
            if "--exit-at-resources-list" in opts:
                result["capabilities"]["resources"] = {}
            if "--declare-resources-prompts" in opts:  # then answers their lists -32601
                result["capabilities"]["resources"] = {}
                result["capabilities"]["prompts"] = {}
            if "--prompt-description" in opts:
                result["capabilities"]["prompts"] = {}
            if result["protocolVersion"] == "none":
                del result["protocolVersion"]
            send({"jsonrpc": "2.0", "id": rid, "result": result})
        elif method == "resources/list" and "--exit-at-resources-list" in opts:
            sys.exit(6)
        elif method == "prompts/list" and "--prompt-description" in opts:
            send({"jsonrpc": "2.0", "id": rid, "result": {"prompts": [
                {"name": "kept", "description": "plain"},
                {"name": "described", "description": option_text("--prompt-description")}]}})
        elif method == "tools/list" and "--fail-tools-list" in opts:
            send({"jsonrpc": "2.0", "id": rid,
                  "error": {"code": -32603, "message": "Internal error"}})
        elif method == "tools/list":
            time.sleep(int(opts.get("--list-delay-ms", "0")) / 1000.0)
            start = int((msg.get("params") or {}).get("cursor", "0").split(".")[0])
            end = start + page if page else len(TOOLS)
            result = {"tools": TOOLS[start:end]}
            if end < len(TOOLS):
                padding = int(opts.get("--cursor-padding", "0"))
                result["nextCursor"] = str(end) + ("." + "x" * padding if padding else "")
                if "--cursor-loop" in opts and start == page:
                    result["nextCursor"] = str(page)
            if "--repeat-tools-key" in opts:  # two "tools" members: readers disagree
                send_bytes(('{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"tools":%s}}' % (
                    json.dumps(rid), json.dumps(TOOLS))).encode())
                continue
            send({"jsonrpc": "2.0", "id": rid, "result": result})
            once = opts.get("--exit-after-list-once")
            if once and not os.path.exists(once):
                open(once, "w").close()
                threading.Timer(0.3, lambda: os._exit(5)).start()
        elif method == "tools/call" and (msg.get("params") or {}).get("name") == "ping_flood":
            # Inline, so that nothing reads stdin meanwhile.
            args = msg["params"].get("arguments") or {}
            pad = "p" * (args.get("id_kib", 1) * 1024)
            for i in range(args.get("n", 1)):
                send({"jsonrpc": "2.0", "id": "%s-%d" % (pad, i), "method": "ping"})
            time.sleep(args.get("ms", 0) / 1000.0)
            send({"jsonrpc": "2.0", "id": rid, "result": text_result("flooded")})
        elif method == "tools/call" and (msg.get("params") or {}).get("name") == "close_stdout":
            with OUT_LOCK:
                os.close(1)
            time.sleep(60)
            return
        elif method == "tools/call" and (msg.get("params") or {}).get("name") == "close_stdin":
            # Inline: closes its stdin (a request written to it from now on fails, EPIPE,
            # with nothing of it read), then answers, and lives on for at most 60 s.
            os.close(0)
            send({"jsonrpc": "2.0", "id": rid, "result": text_result("closed")})
            time.sleep(60)
            return
        elif method == "tools/call" and (msg.get("params") or {}).get("name") == "stop_reading":
            # Inline, so that nothing reads stdin until the file is gone.
            path = ((msg["params"].get("arguments") or {}).get("path")) or ""
            send({"jsonrpc": "2.0", "id": rid, "result": text_result("stopped")})
            give_up = time.monotonic() + 60
            while os.path.exists(path) and time.monotonic() < give_up:
                time.sleep(0.01)
        elif method == "tools/call":
            threading.Thread(target=handle_call, args=(rid, msg.get("params") or {}),
                             daemon=True).start()
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
        elif rid is None:
            pass  # notifications
        elif method is None:
            pass  # answers to our pings
        else:
            send({"jsonrpc": "2.0", "id": rid,
                  "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()
