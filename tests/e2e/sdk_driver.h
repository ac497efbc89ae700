// Runs tests/e2e/sdk_client.mjs — the official MCP TypeScript SDK client — against a
// server command, and returns its per-step JSON lines. The npm peers are installed by
// scripts/setup.sh --with-node-peers (the README's test command).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace las::testing {

struct SdkRun {
  int exit_code = -1;
  nlohmann::json connect;             // {"step":"connect","ok":...}
  std::vector<nlohmann::json> steps;  // one per step, in order
  std::string err;                    // the server's and node's stderr
};

// Empty when node and the pinned peers are present; otherwise why not (tests skip).
std::string SdkUnavailableReason();

// `script` is the driver's script object (command, args, env, steps); see sdk_client.mjs.
SdkRun RunSdkClient(const nlohmann::json& script);

// Absolute paths of the peers.
std::string NodeExecutable();
std::string ServerEverythingScript();

}  // namespace las::testing
