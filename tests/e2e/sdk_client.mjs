// Drives an MCP server over stdio with the official TypeScript SDK client, for Las's
// end-to-end tests and benchmarks.
//
//   node sdk_client.mjs SCRIPT.json
//
// SCRIPT: {"command": "/abs/las", "args": [...], "env": {...}, "clientName": "...",
//          "steps": [{"op": "listTools"}, {"op": "callTool", "name": "...", "arguments": {...}},
//                    {"op": "callTool", "name": "...", "argumentsText": "JSON text"},
//                    {"op": "ping"}, {"op": "request", "method": "...", "params": {...}},
//                    {"op": "listResources"}, {"op": "readResource", "uri": "..."},
//                    {"op": "listPrompts"}, {"op": "getPrompt", "name": "...", "arguments": {...}},
//                    {"op": "parallelCalls", "name": "...", "arguments": {...}, "count": 8},
//                    {"op": "concurrentCalls", "calls": [{"name": "...", "arguments": {...}}, ...]},
//                    {"op": "callToolWithProgress", "name": "...", "arguments": {...}},
//                    {"op": "meet", "dir": "/abs/dir", "name": "...", "count": 2}]}
// concurrentCalls sends every call at once, in order, and waits for all of them: its result is
// one {"ok": true, "result": ...} or {"ok": false, "error": ...} per call.
// callToolWithProgress's result is {"result": ..., "progress": [every progress notification]}.
// meet is a barrier between clients run at once: it leaves DIR/NAME.<pid> and waits (30 s at
// most) until `count` clients have left one there.
// Prints one JSON line per step: {"step": i, "ok": true, "result": ...} or
// {"step": i, "ok": false, "error": {"code": ..., "message": ...}}. Exits 0 when every step ran
// (a step's own failure is data, not a crash); exits 1 when the connection itself fails.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";

const script = JSON.parse(readFileSync(process.argv[2], "utf8"));
// The SDK hands the server only the variables given (and a few of its own): the test
// suite's config home (tests/CMakeLists.txt) goes too, unless the script sets another.
const inherited = process.env.XDG_CONFIG_HOME ? { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME } : {};
const transport = new StdioClientTransport({
  command: script.command,
  args: script.args ?? [],
  env: { ...inherited, ...(script.env ?? {}) },
  stderr: "inherit",
});
const client = new Client({ name: script.clientName ?? "las-e2e", version: "1.0.0" },
                          { capabilities: {} });

function errorOf(e) {
  return { code: e?.code ?? null, message: String(e?.message ?? e), data: e?.data ?? null };
}

// A callTool step's arguments: "argumentsText" (JSON text, parsed here) when given, for what
// the script's own JSON writer cannot hold (a lone surrogate); else "arguments".
function argumentsOf(step) {
  return step.argumentsText !== undefined ? JSON.parse(step.argumentsText) : (step.arguments ?? {});
}

async function run(step) {
  switch (step.op) {
    case "listTools": return client.listTools();
    case "callTool": return client.callTool({ name: step.name, arguments: argumentsOf(step) });
    case "callToolWithProgress": {
      const progress = [];
      const result = await client.callTool({ name: step.name, arguments: step.arguments ?? {} },
                                           undefined, { onprogress: (p) => progress.push(p) });
      return { result, progress };
    }
    case "ping": return client.ping();
    case "listResources": return client.listResources(step.params ?? {});
    case "readResource": return client.readResource({ uri: step.uri });
    case "listPrompts": return client.listPrompts(step.params ?? {});
    case "getPrompt": return client.getPrompt({ name: step.name, arguments: step.arguments });
    case "request": return client.request({ method: step.method, params: step.params }, ResultSchema);
    case "parallelCalls": {
      const calls = [];
      for (let i = 0; i < step.count; ++i) {
        calls.push(client.callTool({ name: step.name, arguments: step.arguments ?? {} }));
      }
      return Promise.all(calls);
    }
    case "concurrentCalls": {
      const settled = await Promise.allSettled(step.calls.map(
          (call) => client.callTool({ name: call.name, arguments: call.arguments ?? {} })));
      return settled.map((s) => s.status === "fulfilled" ? { ok: true, result: s.value }
                                                         : { ok: false, error: errorOf(s.reason) });
    }
    // Waits (30 s at most) until the process whose pid an earlier step's tool answered with
    // is gone: Node has no way to be told, so it looks every few milliseconds.
    case "awaitProcessGone": {
      const pid = Number(results[step.pidOfStep].content[0].text);
      const deadline = Date.now() + 30000;
      for (;;) {
        try {
          process.kill(pid, 0);
        } catch (e) {
          if (e.code === "ESRCH") return { gone: pid };
          throw e;
        }
        if (Date.now() > deadline) throw new Error(`process ${pid} is still there`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    case "meet": {
      writeFileSync(`${step.dir}/${step.name}.${process.pid}`, "");
      const deadline = Date.now() + 30000;
      for (;;) {
        const met = readdirSync(step.dir).filter((f) => f.startsWith(`${step.name}.`)).length;
        if (met >= step.count) return { met };
        if (Date.now() > deadline) throw new Error(`meet ${step.name}: ${met} of ${step.count}`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
    default: throw new Error(`unknown op ${step.op}`);
  }
}

try {
  await client.connect(transport);
  console.log(JSON.stringify({ step: "connect", ok: true,
                               server: client.getServerVersion() ?? null }));
} catch (e) {
  console.log(JSON.stringify({ step: "connect", ok: false, error: errorOf(e) }));
  process.exit(1);
}
const results = [];  // each step's result (awaitProcessGone reads them)
for (const [i, step] of (script.steps ?? []).entries()) {
  try {
    results[i] = await run(step);
    console.log(JSON.stringify({ step: i, ok: true, result: results[i] }));
  } catch (e) {
    console.log(JSON.stringify({ step: i, ok: false, error: errorOf(e) }));
  }
}
await client.close();
