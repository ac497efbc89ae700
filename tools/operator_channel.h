// The operator channel of a running server: how `las sources enable|disable`, `las grant`,
// `las revoke`, `las rules add|forget` and `las onboarding mark|reset|check` change a log
// that a server holds as its writer (docs/DAEMON.md, "The operator channel").
//
// A connection on the daemon's socket (same uid only: tools/unix_listener.h) whose first
// line is the operator hello, a JSON-RPC request
//   {"jsonrpc":"2.0","id":ID,"method":"las/operator","params":{}}
// becomes an operator connection instead of an MCP session: no SessionOpened, no MCP
// methods. The hello is answered {"operator":true,"sequence":HEAD}; then each request line
// is one of the fixed operator methods below, decided one at a time and answered in order:
//   las/sources.enable     {"id"}
//   las/sources.disable    {"id","reason"}
//   las/grant.issue        {"grant_id","agent_id","all","tools":[{"name","digest"?}]}
//   las/grant.revoke       {"grant_id"}
//   las/rules.add          {"rule_id","agent_id","tool":{"name","digest"?}}
//   las/rules.forget       {"rule_id"}
//   las/onboarding.change  {"action":"mark"|"reset"|"check","step",
//                           "results":[{"step","passed","reason","detail"}] (check)}
// Each is validated against the server's live projections (caught up first) by the same
// library function the CLI's direct path uses (tools/grant_admin.h Plan*,
// tools/source_events.h PlanSourceToggle, tools/onboarding_journey.h
// PlanOnboardingChange), appended with the operator as actor (empty agent and
// session), folded into the live projections (so the next tools/list and call see it),
// and answered {"first_sequence","last_sequence", ...} (grant.issue adds "selectors",
// grant.revoke "revoked", rules.add "selector", sources.* "changed"; a request that
// changes nothing appends nothing and is answered with both sequences 0). A refusal is a JSON-RPC error -32000
// whose data.status is the stable status code name ("not_found", "conflict",
// "invalid_argument", ...) and whose message is the validation's text (the peer is the
// same user as the server: the operator). Unknown methods: -32601; malformed params:
// -32602 (data.status "invalid_argument").
//
// Each request first has the loop appender write what calls and las__ tools decided before
// it (LoopAppender::WriteQueued), so that it is decided on, and logged after, all of that
// (probe DL1). Validation and the write happen in one turn of the loop, so no other
// operator request or las__ mutation is decided between them; the write has no fsync, so
// the next request sees the change at once. Every answer that reflects the live state — a
// change, no change, a refusal, the hello's sequence — waits until what it reflects is on
// disk (LoopAppender::AfterDurable; probe DL3), by a sync off the loop that every change
// written meanwhile shares: a batch costs the loop no fsync (probe DG2: 1,000 changes held
// every client 3.1 s, one fsync each). Answers go out in the order of the requests. A crash
// before a change's sync loses it unanswered; a call that relied on it synced it with its
// own record, as the log's writes reach the disk in order. A sync that fails is answered
// as such, saying that the change may or may not be recorded.
//
// Threading: the server's loop thread only. The core and the output must outlive the
// session.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "base/status.h"

namespace las::tools {

class LineOutput;
class ServerCore;

inline constexpr std::string_view kOperatorHello = "las/operator";

// An operator-only socket at its connection limit writes this line as it closes a new
// connection, before reading any of it: the client may go to another socket, knowing that
// nothing was done.
inline constexpr std::string_view kOperatorBusy = "operator-busy";
inline constexpr std::string_view kOperatorBusyLine =
    R"({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"too many operator )"
    R"(connections: nothing was read","data":{"status":"locked","reason":"operator-busy"}}})"
    "\n";

// Whether `line` is the operator hello (a request, with an id, of method las/operator).
bool IsOperatorHello(std::string_view line);

class OperatorSession {
 public:
  OperatorSession(ServerCore& core, LineOutput& output) : core_(core), output_(output) {}
  ~OperatorSession() { *alive_ = false; }
  OperatorSession(const OperatorSession&) = delete;
  OperatorSession& operator=(const OperatorSession&) = delete;

  // One request line (the hello included); its answer is written to the output, once the
  // change it makes is on disk.
  void OnLine(std::string_view line);
  // An over-long line: answered -32600 with a null id.
  void OnTooLong();
  // Runs `settled` once every request read so far is answered (at once when it is).
  void WhenSettled(std::function<void()> settled);
  // The bytes of answers decided but not yet written (waiting for a sync, or behind one).
  size_t HeldAnswerBytes() const { return held_bytes_; }
  // Runs `read` once held answers were written (at once when none is held).
  void ReadWhenReleased(std::function<void()> read);

 private:
  struct Held {
    uint64_t serial = 0;
    std::string answer;
    bool ready = false;
  };
  // Writes `answer` now, or after the answers held before it.
  void Emit(std::string answer);
  // Holds `answer` (to request `id`) until every event up to `sequence` is on disk; a
  // failed sync answers a refusal instead, saying whether a change (`changed`) was made.
  void EmitWhenDurable(std::string answer, const nlohmann::json& id, uint64_t sequence,
                       bool changed);
  // Held answer `serial` may go out: as it is, or replaced by `refusal` when not empty.
  void Settle(uint64_t serial, std::string refusal);
  // Writes the ready answers at the front; runs settled_ once none is held.
  void Release();

  ServerCore& core_;
  LineOutput& output_;
  std::deque<Held> held_;
  size_t held_bytes_ = 0;
  uint64_t next_serial_ = 0;
  std::function<void()> settled_;
  std::function<void()> released_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace las::tools
