// The stdio MCP server: `las serve` (and `las list`) as a library call.
//
// Serve: opens the log as its writer, federates (tools/federation.h), then serves one MCP
// session on stdin/stdout — one JSON-RPC message per line each way, nothing else ever on
// stdout. On stdin EOF it waits for in-flight calls to settle, records SessionClosed,
// ends every child (process group) and reaps it, and returns 0.
//
// Threading: one Boost.Asio io_context thread runs everything, stdin and stdout included
// when they are pipes or sockets (tools/stdio_lines.h); the log's own threads make appends
// durable and post their completions back to the loop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "tools/server_options.h"

namespace las::tools {

// Serves until stdin ends. Ok on a clean end; an error when the log cannot be opened or
// written (the caller reports it).
Status RunStdioServer(const ServerOptions& options);

// Federates, prints the catalog on stdout (names, or with `json` the full entries plus
// each configured surface's state), ends the children.
Status RunList(const ServerOptions& options, bool json);

}  // namespace las::tools
