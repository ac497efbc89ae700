// McpEndpoint: the MCP server side of one client session (protocol 2024-11-05), without
// I/O: feed it the client's lines, it writes response lines through a callback.
//
// Protocol rules it enforces: `initialize` exactly once and before anything else but
// `ping`, which MCP allows first (other requests fail with -32600 until then, a second
// `initialize` fails too); `notifications/
// initialized` accepted; `ping`, `tools/list` (params optional), `tools/call`,
// `resources/list`, `resources/templates/list` (always empty) and `prompts/list` (params
// optional; each is one page, so a `cursor` is -32602 "Invalid cursor"), `resources/read`
// {uri} and `prompts/get` {name, arguments?} (an unknown uri is MCP's -32002 "Resource not
// found", an unknown name -32602 "Unknown prompt"; `initialize` advertises `tools`,
// `resources` and `prompts`); unknown methods -32601, malformed JSON -32700, invalid requests -32600, bad params -32602;
// notifications never get a response; responses from the client are ignored. Each answer
// carries the client's own id byte for byte. Many tools/call may be in flight; their
// answers go out as each completes. A tools/call with `_meta.progressToken` (a string or a
// number) gets `notifications/progress` {progressToken, progress, total?} while it runs, as
// the backend reports it, until its answer or its cancellation.
//
// The session's agentId is bound at `initialize` (params.agentId, else params._meta.agentId,
// else the configured default). When `required_agent_id` is set (Skarbiec is active) it
// must be exactly that (another is refused -32602 and reported to the backend, once per
// endpoint: a client retrying cannot grow the log). A later request whose
// params._meta.agentId names another agent is refused (-32602): an agent id can never be
// replaced within a session.
//
// Errors sent to the client are generic JSON-RPC messages or static text; nothing a child
// sent is echoed in an error, nor anything the client sent but the keys of its own
// arguments where an argument refusal names them (ToolCallReply::error_detail).
//
// Threading: not thread-safe; call everything on one thread (the gateway's loop). The
// backend may complete a tool call later on that same thread.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace las::tools {

struct SessionInfo {
  std::string session_id;
  std::string agent_id;
  std::string client_name;
  std::string client_version;
  std::string protocol_version;  // what the client asked for
  std::string transport;         // how the client reached Las: "stdio", "daemon"
  // The client gave up the default agent's implicit root grant for this session
  // (EndpointOptions::waive_implicit_root; tools/grant_policy.h).
  bool implicit_root_waived = false;
};

// A finished tools/call: a result object (raw JSON text) or a JSON-RPC error.
struct ToolCallReply {
  std::string result_json;  // set on success
  int error_code = 0;       // non-zero on failure
  std::string_view error_message;  // static text only
  // A Las tool's refusal under policy (a delegation wider than held, a revocation of
  // another's grant): its stable reason, which the gateway records as ToolCallDenied.
  std::string_view refusal;
  // JSON text for the error's `data`, or empty: only what Las built from the signed schema
  // and the client's own request (an argument refusal's pointers and keywords), never a
  // child's text.
  std::string error_data;
  // The call ended because its client cancelled it (not sent, told to stop, withdrawn from
  // its check): MCP wants no response, and the endpoint sends none. A cancelled call that
  // finished anyway — its child had answered first, a las__ tool ran to its end — is
  // answered, as its record says it happened (probe CJ1).
  bool cancelled = false;
  // Appended to the message after ": ": an argument refusal's pointers and keywords, as in
  // error_data's detail (bounded), since most clients show the message alone (probe IJ2).
  // Never a child's text, never a value.
  std::string error_detail;
  static ToolCallReply Error(int code, std::string_view message) {
    return {{}, code, message, {}, {}, false, {}};
  }
  static ToolCallReply Cancelled(int code, std::string_view message) {
    return {{}, code, message, {}, {}, true, {}};
  }
  // A std::string is no static text: the answer may be written after it is gone (a refusal
  // is answered once its record is written; probe BL1 read freed memory so).
  template <typename Text>
    requires std::same_as<std::remove_cvref_t<Text>, std::string>
  static ToolCallReply Error(int code, Text&& message) = delete;
  template <typename Text>
    requires std::same_as<std::remove_cvref_t<Text>, std::string>
  static ToolCallReply Cancelled(int code, Text&& message) = delete;
  static ToolCallReply Result(std::string json) {
    return {std::move(json), 0, {}, {}, {}, false, {}};
  }
};

// A call's progress as the child reported it (numbers only; see transport::CallProgress).
struct ToolCallProgress {
  double progress = 0;
  std::optional<double> total;
};
// Where a call's progress goes: set when the client asked for it (`_meta.progressToken`),
// empty otherwise. Call it on the endpoint's thread, only before the call's `done`.
using ProgressSink = std::function<void(const ToolCallProgress&)>;

// What the endpoint asks of the gateway behind it.
class EndpointBackend {
 public:
  virtual ~EndpointBackend() = default;
  virtual void OnSessionOpened(const SessionInfo& session) = 0;
  // A local policy refused the session `attempted` would have been (its session_id empty)
  // for `reason`. The default records nothing.
  virtual void OnSessionRefused(const SessionInfo& /*attempted*/, std::string_view /*reason*/) {}
  // The `tools/list` result object as JSON text.
  virtual std::string ListTools(const SessionInfo& session) = 0;
  // Runs a call; `done` must be called exactly once, on the endpoint's thread.
  virtual void CallTool(const SessionInfo& session, const std::string& request_id_json,
                        const std::string& name, const std::string& arguments_json,
                        ProgressSink progress, std::function<void(ToolCallReply)> done) = 0;
  // A `tools/call` the endpoint refuses before it reaches CallTool: `reason`
  // "agent-id-change" (it named another agent than the session's) or "params-member-twice";
  // `name` is the tool it named ("" when its params name one twice). `refusal` is the
  // answer; `done` must be called once, as for CallTool (a backend that records the refusal
  // answers once it is recorded). The default records nothing and answers at once.
  virtual void RefuseCall(const SessionInfo& /*session*/, const std::string& /*request_id_json*/,
                          const std::string& /*name*/, std::string_view /*reason*/,
                          ToolCallReply refusal, std::function<void(ToolCallReply)> done) {
    done(std::move(refusal));
  }
  // The client cancelled the call `request_id_json` (notifications/cancelled) while it was
  // in flight; `done` is still called once. The default lets it run to its end.
  virtual void CancelCall(const SessionInfo& /*session*/, const std::string& /*request_id_json*/) {}
  // MCP resources and prompts, answered at once. The defaults serve none: empty lists,
  // and nullopt (the endpoint answers -32602) for any uri or name.
  // The `resources/list` result object as JSON text: {"resources":[...]}.
  virtual std::string ListResources(const SessionInfo& /*session*/) {
    return R"({"resources":[]})";
  }
  // The `resources/read` result object for `uri` ({"contents":[...]}), or nullopt.
  virtual std::optional<std::string> ReadResource(const SessionInfo& /*session*/,
                                                  const std::string& /*uri*/) {
    return std::nullopt;
  }
  // The `prompts/list` result object as JSON text: {"prompts":[...]}.
  virtual std::string ListPrompts(const SessionInfo& /*session*/) { return R"({"prompts":[]})"; }
  // The `prompts/get` result object for `name` ({"description", "messages"}), or nullopt.
  // `arguments_json` is the client's arguments object ("{}" when none).
  virtual std::optional<std::string> GetPrompt(const SessionInfo& /*session*/,
                                               const std::string& /*name*/,
                                               const std::string& /*arguments_json*/) {
    return std::nullopt;
  }
};

// A request id, as JSON text: every answer repeats it, a tools/call records it, and a
// list page's 64 KiB (tools/page_budget.h) keeps room for it. A request with a longer one
// is not run and not answered (docs/CLI.md).
inline constexpr size_t kMaxRequestIdBytes = 256;
// A batch line (which Las refuses element by element) is read this many elements deep; the
// rest get no answer.
inline constexpr size_t kMaxBatchElementsRead = 1000;

struct EndpointOptions {
  std::string default_agent_id = "default";           // LAS_AGENT_ID, else "default"
  // A session here never holds the default agent's implicit root grant, whatever the
  // server's LAS_DEFAULT_AGENT_GRANT: a bridge's hello asked so (a client may only ever
  // narrow what it holds).
  bool waive_implicit_root = false;
  // When set, only this agent may open a session (SKARBIEC_MCP_AGENT_ID while Skarbiec is
  // active); another's initialize is refused -32602 and, once per endpoint, reported to
  // the backend with required_agent_reason.
  std::optional<std::string> required_agent_id;
  std::string required_agent_reason;
  std::string server_version = "0.1.0";
  size_t max_line_bytes = 4 * 1024 * 1024;
  size_t max_depth = 64;
  std::function<std::string()> new_session_id;        // injected randomness
  std::string transport = "stdio";                    // recorded in SessionOpened
};

struct ParamsView;  // tools/mcp_endpoint.cc

class McpEndpoint {
 public:
  using WriteLine = std::function<void(std::string line)>;
  McpEndpoint(EndpointOptions options, EndpointBackend& backend, WriteLine write);

  // One line from the client, without its '\n'.
  void OnLine(std::string_view line);
  // The transport cut an over-long line; `prefix` is its first bytes. Answered with -32600
  // when an id can be read from the prefix (a byte order mark first ignored); else, once
  // the line has ended, from `tail`, its last bytes, where a client that writes its id
  // last (the TypeScript SDK) put it; else dropped.
  void OnOversizedLine(std::string_view prefix);
  void OnOversizedLineEnd(std::string_view tail);

  // Whether OnLine, under `options`, would run `line` or answer it: a request, or a line
  // that is no valid message (a batch's element too) but shows an id to be refused by —
  // not a notification, a response, or a line with no readable id. OwesAnswerForOversized
  // likewise for a line cut at `prefix`, whose `tail` (its last bytes, "" when it has not
  // ended) may give the id (OnOversizedLineEnd).
  static bool OwesAnswer(std::string_view line, const EndpointOptions& options);
  static bool OwesAnswerForOversized(std::string_view prefix, std::string_view tail,
                                     const EndpointOptions& options);

  bool initialized() const { return session_.has_value(); }
  const std::optional<SessionInfo>& session() const { return session_; }
  // tools/call requests whose answer has not been written yet.
  size_t in_flight() const { return in_flight_; }
  // Of those, the ones whose answer the client is owed: not cancelled (MCP: a cancelled
  // request gets no response).
  size_t answers_owed() const { return in_flight_ - cancelled_in_flight_; }
  // Called whenever in_flight() drops to zero.
  void set_on_idle(std::function<void()> on_idle) { on_idle_ = std::move(on_idle); }
  // Progress notifications are dropped while this says the output is behind (they are
  // optional; answers never are). Unset: never behind.
  void set_output_congested(std::function<bool()> congested) {
    output_congested_ = std::move(congested);
  }

 private:
  void HandleRequest(const std::string& id, const std::string& method, const std::string& params);
  // A line that is a JSON array (a JSON-RPC batch): each request in it refused by its id.
  void RefuseBatch(std::string_view line);
  void Initialize(const std::string& id, const std::string& params);
  void CallTool(const std::string& id, const ParamsView& params);
  // A tools/call in flight under `id`: counted until `answer` is called (once), which
  // writes its response unless the call was cancelled.
  struct TrackedCall {
    std::string key;  // rpc::RequestIdKey(id)
    uint64_t ticket = 0;
    std::function<void(ToolCallReply)> answer;
  };
  TrackedCall Track(const std::string& id);
  // Refuses request `id` with -32602 `message` (static text); a tools/call naming tool
  // `name` goes to EndpointBackend::RefuseCall for `reason`, and is answered from there.
  void RefuseInvalidParams(const std::string& id, std::string_view method,
                           const std::string& name, std::string_view reason,
                           std::string_view message);
  // Where the progress of call `ticket` under id `key` goes: nowhere unless
  // params._meta.progressToken is set, and nowhere once the call is cancelled.
  ProgressSink ProgressTo(const std::string& key, uint64_t ticket, const ParamsView& params);
  void OnCancelled(const std::string& params);
  void ReadResource(const std::string& id, const std::string& params);
  void GetPrompt(const std::string& id, const std::string& params);

  EndpointOptions options_;
  EndpointBackend& backend_;
  WriteLine write_;
  std::optional<SessionInfo> session_;
  bool refusal_reported_ = false;  // OnSessionRefused, once
  bool oversized_answered_ = false;  // the last over-long line's id was read from its prefix
  size_t in_flight_ = 0;
  // tools/call requests in flight by transport::RequestIdKey (a client may reuse an id), and
  // which of them the client cancelled: a cancelled call's answer is not written (MCP: the
  // receiver does not respond). Each call has a ticket, in arrival order; a cancel covers
  // the calls under its id that arrived before it, not a request that reuses the id later.
  struct CallsOfId {
    size_t count = 0;
    size_t cancelled = 0;  // of `count`
    uint64_t latest_ticket = 0;
    uint64_t cancelled_through = 0;  // tickets up to this one are cancelled
  };
  std::map<std::string, CallsOfId> calls_;
  uint64_t next_ticket_ = 1;
  size_t cancelled_in_flight_ = 0;
  std::function<void()> on_idle_;
  std::function<bool()> output_congested_;
};

}  // namespace las::tools
