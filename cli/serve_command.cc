// `las serve` and `las list`: the gateway over stdio, and its catalog.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/paths.h"
#include "tools/stdio_server.h"
#include "trust/environment.h"

namespace las::cli {
namespace {

struct GatewayFlags {
  std::string log_dir = DefaultLogDir();
  std::string registry_file;
  int64_t call_timeout_ms = 0;
  std::string durability = "strict";
  bool json = false;
};

void AddCommonFlags(CLI::App& cmd, GatewayFlags& flags) {
  cmd.add_option("--log", flags.log_dir, "Log directory")->capture_default_str();
  cmd.add_option("--registry", flags.registry_file,
                 "Surface registry file (docs/REGISTRY.md); default: the twelve known surfaces");
}

// Resolves flags and the environment into server options; an error is printed.
std::optional<tools::ServerOptions> Resolve(const char* verb, const GatewayFlags& flags,
                                            int& exit_code) {
  tools::ServerOptions options;
  options.log_dir = flags.log_dir;
  options.environment = trust::EnvironmentFromProcess();
  options.call_timeout_ms = flags.call_timeout_ms;
  options.relaxed_durability = flags.durability == "relaxed";
  if (auto node = options.environment.find("LAS_NODE"); node != options.environment.end()) {
    options.node_executable = node->second;
  }
  if (!flags.registry_file.empty()) {
    auto registry = tools::LoadRegistry(flags.registry_file);
    if (!registry.ok()) {
      std::fprintf(stderr, "las %s: %s\n", verb, registry.status().ToString().c_str());
      exit_code = ExitCodeFor(registry.status());
      return std::nullopt;
    }
    options.registry = std::move(*registry);
  }
  return options;
}

int Report(const char* verb, const Status& status) {
  if (status.ok()) return kExitOk;
  std::fprintf(stderr, "las %s: %s\n", verb, status.ToString().c_str());
  return ExitCodeFor(status);
}

}  // namespace

void RegisterServe(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<GatewayFlags>();
  auto* cmd = app.add_subcommand(
      "serve",
      "Serve MCP (protocol 2024-11-05) on stdin/stdout: federate every admitted surface as "
      "surface__tool and record every decision in the log");
  AddCommonFlags(*cmd, *flags);
  cmd->add_option("--call-timeout", flags->call_timeout_ms,
                  "Milliseconds before a child call is answered with a generic timeout error "
                  "and left uncertain (default: no timeout)");
  cmd->add_option("--durability", flags->durability,
                  "strict: every ToolCallRequested is fsynced before the child sees the call "
                  "(default); relaxed: fsynced within milliseconds (loses the last moments of "
                  "audit on power loss)")
      ->check(CLI::IsMember({"strict", "relaxed"}))
      ->capture_default_str();
  cmd->callback([flags, &exit_code] {
    auto options = Resolve("serve", *flags, exit_code);
    if (options) exit_code = Report("serve", tools::RunStdioServer(*options));
  });
}

void RegisterList(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<GatewayFlags>();
  auto* cmd = app.add_subcommand(
      "list", "Run the same federation as `las serve`, print the catalog, and exit");
  AddCommonFlags(*cmd, *flags);
  cmd->add_flag("--json", flags->json, "Full entries and each configured surface's state");
  cmd->callback([flags, &exit_code] {
    auto options = Resolve("list", *flags, exit_code);
    if (options) exit_code = Report("list", tools::RunList(*options, flags->json));
  });
}

}  // namespace las::cli
