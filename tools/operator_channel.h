// The operator channel of a running server: how `las sources enable|disable`, `las grant`,
// `las revoke`, `las rules add|forget` and `las onboarding mark|reset|check` change a log
// that a server holds as its writer (docs/DAEMON.md, "The operator channel").
//
// A connection on the daemon's socket (same uid only: tools/unix_listener.h) whose first
// line is the operator hello, a JSON-RPC request
//   {"jsonrpc":"2.0","id":ID,"method":"las/operator","params":{}}
// becomes an operator connection instead of an MCP session: no SessionOpened, no MCP
// methods. The hello is answered {"operator":true,"sequence":HEAD}; then each request line
// is one of the fixed operator methods below, answered in order, one at a time:
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
// PlanOnboardingChange), appended synced with the operator as actor (empty agent and
// session), folded into the live projections (so the next tools/list and call see it),
// and answered {"first_sequence","last_sequence", ...} (grant.issue adds "selectors",
// grant.revoke "revoked", rules.add "selector", sources.* "changed"; a request that
// changes nothing appends nothing and is answered with both sequences 0). A refusal is a JSON-RPC error -32000
// whose data.status is the stable status code name ("not_found", "conflict",
// "invalid_argument", ...) and whose message is the validation's text (the peer is the
// same user as the server: the operator). Unknown methods: -32601; malformed params:
// -32602 (data.status "invalid_argument").
//
// Validation and append happen in one turn of the loop (the append is synchronous), so no
// other operator request or las__ mutation is decided between them. The loop does nothing
// else meanwhile: a batch of operator requests in one read holds every other client for
// one fsync each (probe DG2; docs/DAEMON.md).
//
// Threading: the server's loop thread only. The core and the output must outlive the
// session.
#pragma once

#include <string_view>

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
  // One request line (the hello included); its answer is written to the output.
  void OnLine(std::string_view line);
  // An over-long line: answered -32600 with a null id.
  void OnTooLong();

 private:
  ServerCore& core_;
  LineOutput& output_;
};

}  // namespace las::tools
