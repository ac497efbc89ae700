// `las serve`, `las daemon` and `las list`: the gateway over stdio or a socket, and its
// catalog.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "base/path_error.h"
#include "cli/number_flags.h"
#include "cli/path_flag.h"
#include "cli/commands.h"
#include "cli/environment_help.h"
#include "cli/exit_codes.h"
#include "cli/paths.h"
#include "cli/registry_flag.h"
#include "tools/daemon.h"
#include "tools/daemon_bridge.h"
#include "tools/daemon_socket.h"
#include "tools/file_exposure_notes.h"
#include "tools/grant_policy.h"
#include "tools/unstalled_stderr.h"
#include "tools/registry.h"
#include "tools/stdio_server.h"
#include "transport/child_process.h"
#include "trust/environment.h"
#include "cli/fail.h"

namespace las::cli {
namespace {

// A server's note on stderr. Notes name operator-given paths (the runtime directory, the
// log), which may hold line breaks or terminal escapes.
void PrintNote(const std::string& note) {
  std::fprintf(stderr, "las %s: %s\n", CommandWords(), EscapeAndShorten(note).c_str());
}

// Stdin as `las serve` reads it: a directory, or a descriptor open only for writing, fails
// every read, which the readers took for the client's end: exit 0 with nothing said (probe
// GB1). kInvalidArgument (exit 2) for those; a closed one reads as empty (cli/main.cc).
Status StandardInputReadable() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) == 0 && S_ISDIR(st.st_mode)) {
    return InvalidArgument("standard input is a directory: las serve reads MCP messages from it, "
                           "one JSON-RPC message per line");
  }
  const int flags = ::fcntl(STDIN_FILENO, F_GETFL);
  if (flags != -1 && (flags & O_ACCMODE) == O_WRONLY) {
    return InvalidArgument("standard input is open only for writing: las serve reads MCP "
                           "messages from it, one JSON-RPC message per line");
  }
  return Status::Ok();
}

struct GatewayFlags {
  std::string log_dir = DefaultLogDir();
  std::string registry_file;
  int64_t call_timeout_ms = 0;
  size_t max_calls_per_surface = 1024;
  uint64_t max_state_bytes_per_agent = tools::ServerOptions{}.max_state_bytes_per_agent;
  uint64_t max_open_messages_per_agent = tools::ServerOptions{}.max_open_messages_per_agent;
  int64_t start_timeout_ms = 30'000;
  int64_t restart_delay_ms = 1'000;
  std::string durability = "strict";
  bool json = false;
  uint64_t snapshot_every = 10000;
  std::string snapshot_key_file = DefaultSnapshotKeyFile();
  const CLI::Option* snapshot_key_flag = nullptr;  // set by AddSealFlags
  bool adopt_seal = false;
  bool embedded = false;
  bool bridge_only = false;
  int64_t daemon_wait_ms = 60'000;
  bool lazy = false;
  bool admin = false;
};

void AddCommonFlags(CLI::App& cmd, GatewayFlags& flags) {
  AddLogFlag(cmd, flags.log_dir);
  AddRegistryFlag(cmd, flags.registry_file);
  cmd.add_option("--start-timeout", flags.start_timeout_ms,
                 "Milliseconds a child has to start, initialize and list its tools before it is "
                 "left out; the catalog, and so the first client's initialize, waits at most this "
                 "long for the slowest child")
      ->capture_default_str()
      ->transform(TimeoutMs(1));
}

// Every command that writes the log as a server — `las list` too, which records the
// catalog (probe DP2: it sealed with the default key only, and its note named these flags).
void AddSealFlags(CLI::App& cmd, GatewayFlags& flags) {
  flags.snapshot_key_flag = cmd.add_option("--snapshot-key", flags.snapshot_key_file,
                 "File with the secret key that seals snapshots and the log's head, created "
                 "(0600) at start when missing; kept outside the log directory so that a "
                 "snapshot or log rewritten by anyone else is told. Snapshots and the seal "
                 "are off with --snapshot-key \"\" (the empty path as its own word: "
                 "--snapshot-key= is refused); a server's snapshots alone with "
                 "--snapshot-every 0")
      ->capture_default_str();
  cmd.add_flag("--adopt-seal", flags.adopt_seal,
               "Seal the log's head with this --snapshot-key though another key sealed it (a "
               "key rotation); without it, that seal stays and this server appends unsealed");
}

// A --snapshot-key the operator named that no file can be at — a directory, a FIFO, a path
// through a file — is a mistyped flag (exit 2, as for --log), not a reason to serve
// unsealed with a note (probe IZ2). A missing file is made; a key that is someone else's or
// open to others stays a note, as does anything wrong with the default path.
Status NamedKeyCanBeAFile(const GatewayFlags& flags) {
  if (flags.snapshot_key_flag == nullptr || flags.snapshot_key_flag->count() == 0 ||
      flags.snapshot_key_file.empty()) {
    return Status::Ok();
  }
  struct stat info {};
  if (::stat(flags.snapshot_key_file.c_str(), &info) == 0) {
    if (S_ISREG(info.st_mode)) return Status::Ok();
    return InvalidArgument("--snapshot-key: " + flags.snapshot_key_file +
                           " is not a regular file; name the key's file, or --snapshot-key \"\" "
                           "to serve without snapshots or a seal");
  }
  const Status error = PathErrorStatus(errno, "--snapshot-key: " + flags.snapshot_key_file);
  return error.code() == Code::kInvalidArgument ? error : Status::Ok();
}

// Resolves flags and the environment into server options; an error is printed.
std::optional<tools::ServerOptions> Resolve(const GatewayFlags& flags,
                                            int& exit_code) {
  tools::ServerOptions options;
  options.log_dir = flags.log_dir;
  options.environment = trust::EnvironmentFromProcess();
  options.call_timeout_ms = flags.call_timeout_ms;
  options.calls_in_flight_per_surface = flags.max_calls_per_surface;
  options.max_state_bytes_per_agent = flags.max_state_bytes_per_agent;
  options.max_open_messages_per_agent = flags.max_open_messages_per_agent;
  options.start_timeout_ms = flags.start_timeout_ms;
  options.restart_delay_ms = flags.restart_delay_ms;
  options.relaxed_durability = flags.durability == "relaxed";
  options.snapshot_every = flags.snapshot_every;
  options.snapshot_key_file = flags.snapshot_key_file;
  options.adopt_another_keys_seal = flags.adopt_seal;
  options.lazy = flags.lazy;
  options.admin = flags.admin;
  options.reap_adopted_orphans = true;  // every child of the las program is a spawned surface
  if (auto node = options.environment.find("LAS_NODE"); node != options.environment.end()) {
    options.node_executable = node->second;
  }
  // Every client that names no agent would be refused at initialize, for an id it never sent.
  // An empty one is refused too, not taken for unset (probe KC1): `LAS_AGENT_ID=$AGENT` with
  // AGENT unset in a host's configuration would make every client the default agent, which
  // holds the implicit root grant.
  if (auto agent = options.environment.find("LAS_AGENT_ID");
      agent != options.environment.end() && !tools::IsValidAgentId(agent->second)) {
    exit_code = Fail(InvalidArgument(
        "LAS_AGENT_ID: " + (agent->second.empty()
                                ? std::string("set but empty; unset it for the default agent, "
                                              "\"default\"")
                                : tools::AgentIdRefusal(agent->second))));
    return std::nullopt;
  }
  // An unknown value fails closed, as "none" (docs/GRANTS.md); a typo must not do so
  // without a word (probe AU7). The value itself is not repeated.
  if (tools::GrantPolicyFor(options.environment).default_grant_unrecognized) {
    PrintNote("LAS_DEFAULT_AGENT_GRANT is neither \"root\" nor \"none\": taken as \"none\" "
              "(the default agent holds no implicit root grant)");
  }
  if (!flags.registry_file.empty()) {
    auto registry = tools::LoadRegistry(flags.registry_file);
    if (!registry.ok()) {
      exit_code = Fail(registry.status());
      return std::nullopt;
    }
    options.registry = std::move(*registry);
    if (auto note = tools::RegistryFileNote(flags.registry_file)) PrintNote(*note);
  }
  if (Status key = NamedKeyCanBeAFile(flags); !key.ok()) {
    exit_code = Fail(key);
    return std::nullopt;
  }
  for (const std::string& note : tools::ServingFileNotes(options.environment)) PrintNote(note);
  return options;
}

std::string Value(const trust::Environment& environment, const char* name) {
  auto it = environment.find(name);
  return it == environment.end() ? std::string() : it->second;
}

int Report(const Status& status) { return status.ok() ? kExitOk : Fail(status); }

// The flags that configure a serving process (`las serve` embedded, `las daemon`).
void AddServingFlags(CLI::App* cmd, const std::shared_ptr<GatewayFlags>& flags) {
  cmd->add_option("--call-timeout", flags->call_timeout_ms,
                  "Milliseconds before a child call is answered with a generic timeout error "
                  "and left uncertain (default: no timeout)")
      ->transform(TimeoutMs());
  cmd->add_option("--max-calls-per-surface", flags->max_calls_per_surface,
                  "Calls of one surface in flight at once, every client's together; a call "
                  "beyond them is refused at once, recorded ToolCallDenied too-many-calls "
                  "(0: no bound)")
      ->capture_default_str()
      ->transform(WholeNumber(0, 1'000'000));
  cmd->add_option("--max-state-bytes-per-agent", flags->max_state_bytes_per_agent,
                  "The most private-state and blackboard data one agent may hold: the keys "
                  "whose current version it wrote, each counted as its key and value bytes "
                  "plus 128; a write past it is refused state-quota-exceeded (0: no bound)")
      ->capture_default_str()
      ->transform(WholeUint64());
  cmd->add_option("--max-open-messages-per-agent", flags->max_open_messages_per_agent,
                  "The most messages one agent's mailbox may hold open (not completed); a "
                  "message sent to an agent holding that many, or from a sender holding half "
                  "of them, is refused mailbox-full until it completes some (0: no bound)")
      ->capture_default_str()
      ->transform(WholeUint64());
  cmd->add_option("--restart-delay", flags->restart_delay_ms,
                  "Milliseconds before a surface whose child exited is started again, through "
                  "the same checks; doubled while it keeps stopping, up to a minute (0: never, "
                  "its tools fail until las restarts)")
      ->capture_default_str()
      ->transform(TimeoutMs());
  cmd->add_option("--durability", flags->durability,
                  "strict: every ToolCallRequested is fsynced before the child sees the call "
                  "(default); relaxed: fsynced within milliseconds (loses the last moments of "
                  "audit on power loss)")
      ->check(CLI::IsMember({"strict", "relaxed"}))
      ->capture_default_str();
  cmd->add_flag("--lazy", flags->lazy,
                "tools/list shows only las__search, las__describe, las__list_tools, "
                "las__call and las__onboarding (for clients that cap tools or pay for every schema); every call "
                "still passes the same checks");
  cmd->add_flag("--admin", flags->admin,
                "Serve the privileged las.admin tools (list/inspect/enable/disable sources, "
                "inspect events); never on by default");
  cmd->add_option("--snapshot-every", flags->snapshot_every,
                  "Snapshot the projections every N events (later when the state is large: "
                  "not before the events since the last snapshot are as big as it), so a "
                  "restart folds only the events after the newest snapshot (0: never)")
      ->capture_default_str()
      ->transform(WholeUint64());
  AddSealFlags(*cmd, *flags);
}

}  // namespace

void RegisterServe(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<GatewayFlags>();
  auto* cmd = app.add_subcommand(
      "serve",
      "Serve MCP (protocol 2024-11-05) on stdin/stdout: federate every admitted surface as "
      "surface__tool and record every decision in the log. When `las daemon` serves the same "
      "log, bridge stdin/stdout to it instead (its flags then apply)");
  cmd->footer(FederationEnvironmentHelp(/*sessions=*/true));
  AddCommonFlags(*cmd, *flags);
  AddServingFlags(cmd, flags);
  auto* embedded = cmd->add_flag("--embedded", flags->embedded,
                                 "Never bridge to a running `las daemon`: serve in this process "
                                 "(fails while a daemon holds the log)");
  auto* bridge_only =
      cmd->add_flag("--bridge-only", flags->bridge_only,
                    "Only ever bridge to the log's `las daemon`, never serve in this process: "
                    "with none answering (not started yet, federating, or killed and being "
                    "restarted) wait for one up to --daemon-wait, then exit 4. For clients of a "
                    "shared daemon, so that a client restarted after a daemon crash does not "
                    "take the log")
          ->excludes(embedded);
  cmd->add_option("--daemon-wait", flags->daemon_wait_ms,
                  "Milliseconds --bridge-only waits for the daemon to answer (longer than the "
                  "daemon's default --start-timeout, so that its federation fits)")
      ->capture_default_str()
      ->transform(TimeoutMs())
      ->needs(bridge_only);
  cmd->callback([cmd, flags, &exit_code] {
    tools::KeepStderrFromStalling();
    if (Status readable = StandardInputReadable(); !readable.ok()) {
      exit_code = Fail(readable);
      return;
    }
    auto options = Resolve(*flags, exit_code);
    if (!options) return;
    if (!flags->embedded) {
      const std::string xdg_runtime_dir = Value(options->environment, "XDG_RUNTIME_DIR");
      auto daemon = flags->bridge_only
                        ? tools::AwaitDaemonOf(options->log_dir, xdg_runtime_dir,
                                               std::chrono::milliseconds(flags->daemon_wait_ms),
                                               SystemMonotonicClock())
                        : tools::ConnectToDaemonOf(options->log_dir, xdg_runtime_dir);
      if (daemon.ok()) {
        // The daemon's catalog and policy apply to its sessions; only a narrowing carries
        // over: a default grant turned off here stays off (probe AX1).
        for (const char* catalog_setting : {"LAS_ONLY", "LAS_SKIP"}) {
          // A blank list is unset (docs/REGISTRY.md): nothing ignored (probe CO4).
          if (!tools::IsBlankList(Value(options->environment, catalog_setting))) {
            PrintNote(std::string(catalog_setting) +
                      " is ignored by a bridge: the daemon's catalog applies (set it for "
                      "`las daemon`)");
          }
        }
        // So are the serving flags given here (probe CO3): said, not silently dropped.
        std::string ignored;
        for (const CLI::Option* option : cmd->get_options()) {
          const std::string name = option->get_name();
          if (option->count() == 0 || name == "--log" || name == "--help" ||
              name == "--embedded" || name == "--bridge-only" || name == "--daemon-wait") {
            continue;
          }
          ignored += (ignored.empty() ? "" : ", ") + name;
        }
        if (!ignored.empty()) {
          PrintNote(ignored + (ignored.find(',') == std::string::npos ? " is" : " are") +
                    " ignored by a bridge: the daemon's flags apply (give them to `las daemon`)");
        }
        exit_code = Report(tools::RunBridge(
            std::move(*daemon), Value(options->environment, "LAS_AGENT_ID"),
            !tools::GrantPolicyFor(options->environment).default_agent_root, PrintNote));
        return;
      }
      if (flags->bridge_only) {
        exit_code = Fail(Status(daemon.status().code(),
                                "--bridge-only: " + daemon.status().message() +
                                    "; not serving embedded"));
        return;
      }
      // A daemon killed outright leaves its socket: this session then holds the log, with
      // this command's flags, and the daemon cannot start again until it ends (probe BM1).
      if (daemon.status().code() != Code::kNotFound || tools::FoundStaleSocket(daemon.status())) {
        std::fprintf(stderr, "las %s: not using the daemon socket (%s); serving embedded%s\n",
                     CommandWords(), Shown(daemon.status()).c_str(),
                     daemon.status().code() == Code::kNotFound
                         ? " with this command's flags unless the log is held (a daemon still "
                           "starting: exit 7); while this session holds it, a `las daemon` of "
                           "this log cannot start (--bridge-only waits for the daemon instead)"
                         : "");
      }
    }
    tools::StdioServerOptions stdio;
    stdio.operator_socket = true;
    stdio.xdg_runtime_dir = Value(options->environment, "XDG_RUNTIME_DIR");
    stdio.on_note = PrintNote;
    exit_code = Report(tools::RunStdioServer(*options, stdio));
  });
}

namespace {

// Writes `text` and a newline to `fd` whole; 0, or the errno of the write that failed.
int WriteLine(int fd, const std::string& text) {
  const std::string line = text + "\n";
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    written += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

// A daemon holds a descriptor per client connection (up to DaemonOptions::max_connections)
// besides its children's pipes, the operator socket's connections and the log's files;
// the common soft limit of 1024 would run out first, and then neither a new client nor
// the operator could connect, and the log could not open its next file (which stops it
// for good). The soft limit is raised toward the hard one; when the hard limit is too low,
// the connection cap comes down to fit under it (said on stderr). Returns the cap.
// Children get the limit back (transport::RaiseOpenFileSoftLimit).
size_t FitConnectionsToOpenFileLimit(size_t connections) {
  constexpr rlim_t kBesidesConnections = 256;
  const rlim_t wanted = static_cast<rlim_t>(connections) + kBesidesConnections;
  Result<rlim_t> now = transport::RaiseOpenFileSoftLimit(std::max<rlim_t>(wanted, 4096));
  if (!now.ok() || *now >= wanted) return connections;
  const rlim_t fits = *now > 2 * kBesidesConnections ? *now - kBesidesConnections : *now / 4;
  const size_t cap = std::max<size_t>(1, static_cast<size_t>(fits));
  std::fprintf(stderr,
               "las %s: the open-file limit (%llu) leaves room for %zu client connections, "
               "not %zu, and fewer as the log and the surfaces' children take descriptors "
               "(about 4 each); raise it (ulimit -n %llu) for more\n",
               CommandWords(),
               static_cast<unsigned long long>(*now), cap, connections,
               static_cast<unsigned long long>(wanted));
  return cap;
}

void RegisterDaemon(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<GatewayFlags>();
  auto* cmd = app.add_subcommand(
      "daemon",
      "Own the log and the children and serve many MCP clients on a Unix socket "
      "($XDG_RUNTIME_DIR/las/, else /tmp/las-UID/; same user only). `las serve --log` the same "
      "log bridges to it. Prints the socket path once listening; SIGTERM/SIGINT/SIGHUP: finish the "
      "calls in flight, end the children, remove the socket, exit 0 (docs/DAEMON.md)");
  cmd->footer(FederationEnvironmentHelp(/*sessions=*/true));
  AddCommonFlags(*cmd, *flags);
  AddServingFlags(cmd, flags);
  cmd->callback([cmd, flags, &exit_code] {
    tools::KeepStderrFromStalling();
    auto options = Resolve(*flags, exit_code);
    if (!options) return;
    // Many clients share the daemon: none may take more than a quarter of a surface's places.
    options->calls_in_flight_per_session =
        options->calls_in_flight_per_surface == 0 ? 0 : (options->calls_in_flight_per_surface + 3) / 4;
    tools::DaemonOptions daemon;
    daemon.xdg_runtime_dir = Value(options->environment, "XDG_RUNTIME_DIR");
    daemon.on_listening = [](const std::string& socket_path) {
      // Written past stdio, so that a stdout that refuses the line is told now, once, and
      // is no failure of the clean stop that may come hours later (probe AA5): the daemon
      // serves all the same, and the operator finds the socket path on stderr.
      if (const int error = WriteLine(STDOUT_FILENO, socket_path); error != 0) {
        std::fprintf(stderr,
                     "las %s: io: could not write the socket path to standard output (%s); "
                     "serving on %s all the same\n",
                     CommandWords(), std::strerror(error), EscapeForTerminal(socket_path).c_str());
      }
    };
    daemon.on_note = PrintNote;
    daemon.max_connections = FitConnectionsToOpenFileLimit(daemon.max_connections);
    exit_code = Report(tools::RunDaemon(*options, daemon));
  });
}

void RegisterList(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<GatewayFlags>();
  auto* cmd = app.add_subcommand(
      "list", "Run the same federation as `las serve`, print the catalog, and exit");
  cmd->footer(FederationEnvironmentHelp(/*sessions=*/false));
  AddCommonFlags(*cmd, *flags);
  AddSealFlags(*cmd, *flags);
  cmd->add_flag("--json", flags->json, "Full entries and each configured surface's state");
  cmd->callback([cmd, flags, &exit_code] {
    auto options = Resolve(*flags, exit_code);
    if (options) exit_code = Report(tools::RunList(*options, flags->json, PrintNote));
  });
}

}  // namespace las::cli
