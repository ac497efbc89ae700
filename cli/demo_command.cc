// `las demo`: the README's main job until the gateway lands — append one plausible MCP
// session (open, calls, a denial, close) to the log, then replay the whole log.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/paths.h"
#include "cli/replay_command.h"
#include "log/event_builder.h"
#include "log/event_log.h"

namespace las::cli {
namespace {

std::vector<log::EventDraft> DemoSession(const std::string& session) {
  const std::string agent = "demo-agent";
  std::vector<log::EventDraft> drafts;
  {
    log::EventBuilder b;
    drafts.push_back(b.Finish(
        fb::CreateSessionOpenedDirect(b.fbb(), "2024-11-05", "las-demo", "0.1.0", "stdio"),
        agent, session));
  }
  const char* calls[][3] = {{"weles", "navigate", R"({"url":"file:///tmp/index.html"})"},
                            {"stado", "quota", R"({"pool":"default"})"},
                            {"lem", "search", R"({"query":"provenance"})"}};
  int n = 0;
  for (const auto& [surface, tool, args] : calls) {
    const std::string call_id = session + "-call-" + std::to_string(++n);
    log::EventBuilder req;
    drafts.push_back(req.Finish(
        fb::CreateToolCallRequestedDirect(req.fbb(), call_id.c_str(), surface, tool, "",
                                          args, std::char_traits<char>::length(args), false,
                                          std::to_string(n).c_str()),
        agent, session));
    log::EventBuilder done;
    drafts.push_back(done.Finish(
        fb::CreateToolCallCompletedDirect(done.fbb(), call_id.c_str(), fb::CallOutcome::Ok,
                                          R"({"content":[{"type":"text","text":"ok"}]})", 41,
                                          false, 250 * n, ""),
        agent, session));
  }
  {
    log::EventBuilder b;
    const std::string call_id = session + "-call-denied";
    drafts.push_back(b.Finish(fb::CreateToolCallDeniedDirect(b.fbb(), call_id.c_str(), "finance",
                                                             "finance_execute", "not-allowlisted"),
                              agent, session));
  }
  {
    log::EventBuilder b;
    drafts.push_back(b.Finish(fb::CreateSessionClosedDirect(b.fbb(), "eof"), agent, session));
  }
  return drafts;
}

int RunDemo(const std::string& log_dir) {
  {
    auto log = log::EventLog::Open(log_dir);
    if (!log.ok()) {
      std::fprintf(stderr, "las demo: %s\n", log.status().ToString().c_str());
      return ExitCodeFor(log.status());
    }
    const std::string session = "demo-" + std::to_string((*log)->head().sequence + 1);
    auto range = (*log)->Append(DemoSession(session));
    if (!range.ok()) {
      std::fprintf(stderr, "las demo: %s\n", range.status().ToString().c_str());
      return ExitCodeFor(range.status());
    }
    std::fprintf(stderr, "las demo: appended events %llu..%llu to %s; replaying the log:\n",
                 static_cast<unsigned long long>(range->first),
                 static_cast<unsigned long long>(range->last), log_dir.c_str());
  }
  ReplayOptions replay;
  replay.log_dir = log_dir;
  return RunReplay(replay);
}

}  // namespace

void RegisterDemo(CLI::App& app, int& exit_code) {
  auto log_dir = std::make_shared<std::string>(DefaultLogDir());
  auto* cmd = app.add_subcommand(
      "demo", "Append a sample MCP session to the log, then replay and verify the whole log");
  cmd->add_option("--log", *log_dir, "Log directory")->capture_default_str();
  cmd->callback([log_dir, &exit_code] { exit_code = RunDemo(*log_dir); });
}

}  // namespace las::cli
