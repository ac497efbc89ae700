#include "tests/e2e/e2e_fixture.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/e2e/raw_client.h"
#include "tests/support/run_command.h"
#include "tools/daemon_client.h"
#include "tools/daemon_socket.h"
#include "tools/line_write_queue.h"

namespace las::testing {

using nlohmann::json;

std::string LasExecutable() { return LAS_EXECUTABLE; }
std::string StandInScript() {
  return std::string(LAS_SOURCE_DIR) + "/examples/surfaces/stand_in.py";
}
std::string TestChildScript() {
  return std::string(LAS_SOURCE_DIR) + "/tests/transport/children/mcp_child.py";
}

std::string AddStandIns(SignedRelease& release, const std::vector<std::string>& surfaces) {
  const std::string stand_in = release.CopyIntoWorkspace(StandInScript(), "stand_in.py");
  for (const auto& surface : surfaces) {
    release.AddSurface(surface, {"/usr/bin/python3", stand_in, surface});
  }
  return stand_in;
}

void AddTestChild(SignedRelease& release, const std::string& surface) {
  const std::string child = release.CopyIntoWorkspace(TestChildScript(), "mcp_child.py");
  release.AddSurface(surface, {"/usr/bin/python3", child});
}

void AddGateChild(SignedRelease& release, const std::string& surface) {
  const std::string gate = release.CopyIntoWorkspace(
      std::string(LAS_SOURCE_DIR) + "/tests/e2e/gate_child.py", "gate_child.py");
  release.AddSurface(surface, {"/usr/bin/python3", gate});
}

std::string MakePrivateDir(const std::string& dir) {
  std::filesystem::create_directory(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::replace);
  return dir;
}

void AddVariantOf(SignedRelease& release, const std::string& like, const std::string& name,
                  const std::vector<std::string>& extra_argv) {
  const trust::SurfaceBinding* original = release.manifest().FindSurface(like);
  ASSERT_NE(original, nullptr) << like << " is not drafted";
  trust::SurfaceBinding variant = *original;
  variant.name = name;
  variant.argv.insert(variant.argv.end(), extra_argv.begin(), extra_argv.end());
  release.AddBinding(std::move(variant));
}

json CallStep(const std::string& name, json arguments) {
  return {{"op", "callTool"}, {"name", name}, {"arguments", std::move(arguments)}};
}

std::string StepText(const json& step) {
  return step["result"]["content"][0]["text"].get<std::string>();
}

std::set<std::string> ListedNames(const json& step) {
  std::set<std::string> names;
  for (const auto& tool : step["result"]["tools"]) names.insert(tool["name"]);
  return names;
}

json EnvObject(const std::vector<std::string>& entries, json base) {
  for (const auto& entry : entries) {
    const auto eq = entry.find('=');
    base[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return base;
}

json ServeScript(const std::string& log, const std::string& registry, const json& env,
                 const json& steps, const std::vector<std::string>& extra_args) {
  json args = {"serve", "--log", log};
  if (!registry.empty()) {
    args.push_back("--registry");
    args.push_back(registry);
  }
  for (const auto& a : extra_args) args.push_back(a);
  return {{"command", LAS_EXECUTABLE}, {"args", args}, {"env", env}, {"steps", steps}};
}

SdkRun RunServe(const std::string& log, const std::string& registry, const json& env,
                const json& steps, const std::vector<std::string>& extra_args) {
  return RunSdkClient(ServeScript(log, registry, env, steps, extra_args));
}

std::vector<std::string> LasArgvWithEnv(const std::vector<std::string>& env,
                                        const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/env"};
  argv.insert(argv.end(), env.begin(), env.end());
  argv.push_back(LAS_EXECUTABLE);
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::vector<json> ReplayEvents(const std::string& log, const std::vector<std::string>& filter) {
  std::vector<std::string> argv = {LAS_EXECUTABLE, "replay", "--log", log};
  argv.insert(argv.end(), filter.begin(), filter.end());
  auto result = RunCommand(argv);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::vector<json> events;
  for (const auto& line : Lines(result.out)) events.push_back(json::parse(line));
  return events;
}

EverythingRelease ReleaseServerEverything(const TempDir& tmp) {
  ::chmod(tmp.path().c_str(), 0700);
  EverythingRelease release;
  release.workspace =
      std::filesystem::canonical(std::string(LAS_SOURCE_DIR) + "/tests/e2e").string();
  release.env = {
      "LAS_WORKSPACE=" + release.workspace,
      "LAS_NODE=" + NodeExecutable(),
      "LAS_RELEASE_MANIFEST=" + tmp.Sub("release.json"),
      "LAS_RELEASE_SIGNATURE=" + tmp.Sub("release.sig"),
      "LAS_TRUST_STORE=" + tmp.Sub("trust.json"),
      "LAS_RELEASE_WATERMARK=" + tmp.Sub("watermark.json"),
  };
  auto las = [&](std::vector<std::string> args) {
    args.insert(args.begin(), LAS_EXECUTABLE);
    return RunCommand(args, release.env);
  };
  auto keygen = las({"release", "keygen", "--out-dir", tmp.Sub("keys"), "--trust-store",
                     tmp.Sub("trust.json")});
  EXPECT_EQ(keygen.exit_code, 0) << keygen.err;
  auto draft = las({"release", "draft", "--surface", "everything", "--cwd", release.workspace,
                    "--", NodeExecutable(), ServerEverythingScript(), "stdio"});
  EXPECT_EQ(draft.exit_code, 0) << draft.err;
  auto sign = las({"release", "sign", "--secret-key", tmp.Sub("keys/release.key"), "--sequence",
                   "1", "--expires-in", "1d"});
  EXPECT_EQ(sign.exit_code, 0) << sign.err;
  release.registry_path = tmp.Sub("registry.json");
  std::ofstream(release.registry_path)
      << R"({"schema_version":1,"surfaces":[{"name":"everything"}]})";
  return release;
}

int AwaitGoalOrStall(const std::atomic<int>& progress, int goal) {
  return static_cast<int>(AwaitGoalOrStall([&progress] { return int64_t{progress.load()}; }, goal));
}

int64_t AwaitGoalOrStall(const std::function<int64_t()>& progress, int64_t goal) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int64_t last = -1;
  auto still_since = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < deadline && progress() < goal) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const int64_t now = progress();
    if (now != last) {
      last = now;
      still_since = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - still_since > std::chrono::milliseconds(500)) {
      break;
    }
  }
  return progress();
}

int64_t PeakResidentBytes(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return -1;
}

HeldAnswerBurst PrepareHeldAnswerBurst(const std::function<void(const std::string&)>& send,
                                       const std::function<std::optional<std::string>()>& read,
                                       int marks) {
  // Quotes: escaped in the handle's content, and again in each answer's two copies.
  const nlohmann::json big = {{"key", "big"}, {"value", std::string(400000, '"')}};
  send(tools::ToolCallRequestLine(1, "las__state_set", big.dump()));
  if (!read()) {
    ADD_FAILURE() << "no answer to the state set";
    return {};
  }
  send(tools::ToolCallRequestLine(2, "las__state_get", R"({"key":"big"})"));
  const auto got = read();
  const nlohmann::json answer = nlohmann::json::parse(got.value_or("{}"), nullptr, false);
  const nlohmann::json handle =
      answer.is_object() ? answer["result"]["structuredContent"]["record"].value("handle", nlohmann::json())
                         : nlohmann::json();
  if (!handle.is_object()) {
    ADD_FAILURE() << "no handle: " << got.value_or("").substr(0, 300);
    return {};
  }
  const std::string span =
      nlohmann::json{{"handle_id", handle["handle_id"]}, {"offset", 0}, {"length", 65536}}.dump();
  send(tools::ToolCallRequestLine(3, "las__handle_read", span));
  const size_t answer_bytes = read().value_or("").size();
  if (answer_bytes < 100000) {
    ADD_FAILURE() << "a handle_read answer of " << answer_bytes << " bytes";
    return {};
  }
  const int reads = static_cast<int>(marks * tools::kPauseReadingAboveBytes / answer_bytes) + 1;
  HeldAnswerBurst burst;
  burst.lines = tools::ToolCallRequestLine(4, "las__state_set", R"({"key":"tick","value":1})");
  burst.ids.insert(4);
  for (int i = 0; i < reads; ++i) {
    burst.lines += "\n" + tools::ToolCallRequestLine(5 + i, "las__handle_read", span);
    burst.ids.insert(5 + i);
  }
  EXPECT_LT(burst.lines.size(), 64u * 1024) << "one read's worth";
  return burst;
}

bool AwaitAnswers(const std::function<std::optional<std::string>()>& read,
                  const std::set<int>& expected) {
  std::set<int> answered;
  while (answered.size() < expected.size()) {
    const auto line = read();
    if (!line) {
      ADD_FAILURE() << "answers missing after " << answered.size() << " of " << expected.size();
      return false;
    }
    const nlohmann::json answer = nlohmann::json::parse(*line, nullptr, false);
    if (!answer.is_object() || !answer.contains("result")) {
      ADD_FAILURE() << line->substr(0, 300);
      return false;
    }
    answered.insert(answer.value("id", -1));
  }
  EXPECT_EQ(answered, expected);
  return answered == expected;
}

std::vector<std::string> StalledSyncEnvironment(const std::string& stall_file) {
  return {std::string("LD_PRELOAD=") + LAS_STALL_SYNC_SHIM, "LAS_TEST_STALL_SYNC_FILE=" + stall_file};
}

UniqueFd FloodOperatorSocketUnread(const std::string& operator_path, int requests) {
  auto fd = tools::ConnectToDaemon(operator_path);
  EXPECT_TRUE(fd.ok()) << fd.status().ToString();
  if (!fd.ok()) return UniqueFd();
  std::string lines = std::string(kOperatorHello) + "\n";
  for (int id = 1; id <= requests; ++id) {
    lines += R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"las/nope"})" "\n";
  }
  // Blocking writes: the server reads on (its backlog limit is far above these answers).
  for (size_t sent = 0; sent < lines.size();) {
    const ssize_t n = ::send(fd->get(), lines.data() + sent, lines.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      ADD_FAILURE() << "the server stopped reading the operator requests";
      break;
    }
    sent += static_cast<size_t>(n);
  }
  return std::move(*fd);
}

}  // namespace las::testing
