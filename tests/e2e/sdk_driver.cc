#include "tests/e2e/sdk_driver.h"

#include <filesystem>
#include <fstream>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las::testing {
namespace fs = std::filesystem;

namespace {
const std::string kE2eDir = std::string(LAS_SOURCE_DIR) + "/tests/e2e";
}

std::string NodeExecutable() {
  for (const char* candidate : {"/usr/local/bin/node", "/usr/bin/node"}) {
    if (fs::exists(candidate)) return fs::canonical(candidate).string();
  }
  return "";
}

std::string ServerEverythingScript() {
  return kE2eDir + "/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
}

std::string SdkUnavailableReason() {
  if (NodeExecutable().empty()) return "node is not installed";
  if (!fs::exists(kE2eDir + "/node_modules/@modelcontextprotocol/sdk")) {
    return "the pinned npm peers are missing: run scripts/setup.sh --with-node-peers";
  }
  return "";
}

SdkRun RunSdkClient(const nlohmann::json& script) {
  TempDir tmp;
  const std::string path = tmp.Sub("script.json");
  std::ofstream(path) << script.dump();
  CommandResult result = RunCommand({NodeExecutable(), kE2eDir + "/sdk_client.mjs", path});
  SdkRun run;
  run.exit_code = result.exit_code;
  run.err = result.err;
  for (const auto& line : Lines(result.out)) {
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
    if (parsed.is_discarded()) continue;
    if (parsed["step"] == "connect") {
      run.connect = parsed;
    } else {
      run.steps.push_back(parsed);
    }
  }
  return run;
}

}  // namespace las::testing
