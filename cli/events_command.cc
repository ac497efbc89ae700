// `las events tail [-n N] [-f] [--json]`: the last events of a log, and with -f every
// later one as it becomes durable. Reads as a follower (log/log_reader.h): never blocks a
// running server. -f polls CatchUp() every 100 ms and ends cleanly (exit 0) on SIGINT or
// SIGTERM.
#include <signal.h>
#include <poll.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "base/printable_text.h"
#include "cli/number_flags.h"
#include "cli/path_flag.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/paths.h"
#include "cli/stdout_check.h"
#include "log/envelope.h"
#include "log/event_json.h"
#include "log/log_reader.h"
#include "cli/fail.h"

namespace las::cli {
namespace {

volatile sig_atomic_t g_stop = 0;

void OnStopSignal(int) { g_stop = 1; }

struct TailFlags {
  std::string log_dir = DefaultLogDir();
  uint64_t count = 10;
  bool follow = false;
  bool json = false;
};

// An event's AGENT column as printed: escaped for the terminal (an agent id is printable
// text, but a log is input too), "-" for none.
std::string AgentCell(const log::StoredEvent& event) {
  const auto* agent = log::EnvelopeOf(event).agent_id();
  return agent == nullptr || agent->size() == 0 ? "-" : EscapeForTerminal(agent->string_view());
}

// One human line: sequence, time, kind, agent (padded to `agent_width`), the payload as
// compact JSON. Escaped for the terminal: JSON escapes control characters but not
// bidirectional controls (U+202E).
void PrintHuman(const std::string& event_json, const std::string& agent_cell,
                size_t agent_width) {
  const auto event = nlohmann::json::parse(event_json, nullptr, false);
  if (!event.is_object()) return;
  const std::string payload =
      event.contains("payload")
          ? EscapeForTerminal(
                DumpJson(event["payload"]))
          : "{}";
  // A time RFC 3339 cannot write is null in the JSON (log/event_json.h).
  const std::string time = event["time"].is_string() ? event["time"].get<std::string>() : "-";
  const std::string padding(agent_width - std::min(agent_width, DisplayWidth(agent_cell)), ' ');
  std::printf("%8llu  %-27s  %-24s %s%s  %s\n",
              static_cast<unsigned long long>(event.value("seq", uint64_t{0})), time.c_str(),
              event.value("kind", "").c_str(), agent_cell.c_str(), padding.c_str(), payload.c_str());
}

// The widest AGENT cell of the events from `from` on, at least the header's.
Result<size_t> WidestAgentFrom(log::LogReader& reader, uint64_t from) {
  auto cursor = reader.Read(from);
  if (!cursor.ok()) return cursor.status();
  size_t widest = std::string_view("AGENT").size();
  while (true) {
    auto more = (*cursor)->Next();
    if (!more.ok()) return more.status();
    if (!*more) break;
    widest = std::max(widest, DisplayWidth(AgentCell((*cursor)->current())));
  }
  return widest;
}

// Prints every event from `from`; returns the next sequence to read, or an error. A later
// event with a wider agent widens the column from its line on. `printed_last` is the hash
// of the last event printed (empty before the first): each event printed must link to it,
// whatever became of the log between two reads (rewritten in place, say).
Result<uint64_t> PrintFrom(log::LogReader& reader, uint64_t from, bool json,
                           size_t& agent_width, std::optional<log::Hash>& printed_last) {
  auto cursor = reader.Read(from);
  if (!cursor.ok()) return cursor.status();
  uint64_t next = from;
  while (g_stop == 0) {  // a stop ends it between two events: the lines printed are whole
    auto more = (*cursor)->Next();
    if (!more.ok()) return more.status();
    if (!*more) break;
    const log::StoredEvent& event = (*cursor)->current();
    const auto* prev = log::EnvelopeOf(event).prev_hash();
    if (printed_last &&
        std::memcmp(prev->bytes()->data(), printed_last->data(), printed_last->size()) != 0) {
      return Corruption("event " + std::to_string(event.sequence) +
                        " does not follow the last event printed: the log changed under the tail");
    }
    printed_last = event.hash;
    const std::string line = log::EventToJson(event);
    if (json) {
      std::printf("%s\n", line.c_str());
    } else {
      const std::string agent = AgentCell(event);
      agent_width = std::max(agent_width, DisplayWidth(agent));
      PrintHuman(line, agent, agent_width);
    }
    next = event.sequence + 1;
  }
  if (!StdoutDelivered()) return IoError("");  // told on stderr already
  return next;
}

int Tail(const TailFlags& flags) {
  auto fail = [](const Status& status) {
    return StdoutFailureReported() ? ExitCodeFor(status) : Fail(status);
  };
  // Caught before the first event is printed (probe IA1: a stop during a long backlog
  // killed it mid-line, exit 130). Restarted writes keep stdio's lines whole; the wait
  // below is a poll, which a signal ends whatever SA_RESTART says.
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  auto reader = log::LogReader::Open(flags.log_dir);
  if (!reader.ok()) return fail(reader.status());
  auto head = (*reader)->head();
  if (!head.ok()) return fail(head.status());
  const uint64_t last = head->sequence;
  const uint64_t from = flags.count == 0        ? last + 1
                        : last >= flags.count ? last - flags.count + 1
                                              : 1;
  size_t agent_width = 0;
  if (!flags.json) {
    // Aligned: the AGENT column as wide as the widest agent among the events shown.
    auto widest = WidestAgentFrom(**reader, from);
    if (!widest.ok()) return fail(widest.status());
    agent_width = *widest;
    std::printf("%8s  %-27s  %-24s %-*s  %s\n", "SEQ", "TIME", "KIND",
                static_cast<int>(agent_width), "AGENT", "PAYLOAD");
  }
  std::optional<log::Hash> printed_last;
  auto next = PrintFrom(**reader, from, flags.json, agent_width, printed_last);
  if (!next.ok()) return fail(next.status());
  if (!flags.follow) return kExitOk;

  uint64_t position = *next;
  while (!g_stop) {
    // Waits 100 ms for new events, watching stdout: a pipe whose reader went away (`| head`)
    // ends the tail now, not at the next event of a quiet log (probe IA2).
    pollfd out{STDOUT_FILENO, 0, 0};
    if (::poll(&out, 1, 100) > 0 && (out.revents & (POLLERR | POLLHUP)) != 0) {
      return fail(IoError("standard output's reader went away"));
    }
    if (g_stop) break;
    if (Status caught = (*reader)->CatchUp(); !caught.ok()) return fail(caught);
    auto advanced = PrintFrom(**reader, position, flags.json, agent_width, printed_last);
    if (!advanced.ok()) return fail(advanced.status());
    position = *advanced;
  }
  return kExitOk;
}

}  // namespace

void RegisterEvents(CLI::App& app, int& exit_code) {
  auto* events = app.add_subcommand("events", "The log's events, live");
  events->require_subcommand(1);
  auto flags = std::make_shared<TailFlags>();
  auto* tail = events->add_subcommand(
      "tail", "The last N events; with -f, every later event as it is written (read-only; "
              "works while a server holds the log; SIGINT/SIGTERM end it, exit 0)");
  AddLogFlag(*tail, flags->log_dir);
  tail->add_option("-n,--lines", flags->count, "How many of the last events")
      ->transform(WholeUint64())
      ->capture_default_str();
  tail->add_flag("-f,--follow", flags->follow, "Keep printing new events");
  tail->add_flag("--json", flags->json, "One JSON object per line (log/FORMAT.md §JSON)");
  tail->callback([flags, &exit_code] { exit_code = Tail(*flags); });
}

}  // namespace las::cli
