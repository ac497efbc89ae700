// Gateway: the EndpointBackend that routes a client's tools/call to its owning surface,
// recording every decision.
//
// One call, in order: resolve `surface__tool` in the catalog (unknown: ToolCallDenied
// "unknown-tool") -> the call guards (source state, grants, special policies; a refusal
// is a ToolCallDenied with the guard's reason) -> Las's own tools go to their handler
// after their arguments validate; a child's tool continues: argument policy: credential templates (a model-supplied value for a
// templated argument is refused, ToolCallDenied) -> the signed input schema (a refusal is
// ToolCallDenied with its detail; a large argument is checked off the loop, see
// GatewayOptions::offload_validation_bytes) -> ToolCallRequested, durably synced
// BEFORE the child sees the call -> the child gets the call under its original name ->
// result policy (a JSON object within max_result_bytes, then every guard's OnResult; a
// refusal there is outcome Refused with the guard's reason) -> ToolCallCompleted written
// -> reply (after a failed write: "Tool call failed", so a result a client got is always in
// the log). ToolCallCompleted is appended with deferred durability: it is on disk with the
// next synced event or within milliseconds (log/event_log.h); until then a crash leaves
// the call "requested", i.e. uncertain — never wrong. A call the child had when it timed out,
// was cancelled, died or was ended is completed uncertain too (outcome TimedOut, the
// transport's error name as its code): it may have acted. Las never retries a call.
//
// tools/list lists the catalog's tools that every guard's Listed() accepts (disabled
// sources, `--lazy`), served from a ToolsListCache (tools/tools_list_cache.h): per agent,
// rebuilt from precomputed entries when the catalog or a guard's ListingGeneration changes.
//
// resources/list, resources/read, prompts/list and prompts/get serve Las's own docs (source
// las.docs, tools/docs_mcp.h) only, and nothing while builtins' DocsEnabled() says no (no
// builtins: always served). Children's resources and prompts are not passed through.
// These reads are not recorded in the log.
//
// Errors to the client are generic JSON-RPC errors; child diagnostics never reach it.
// Threading: everything on the io_context's thread, log appends included
// (tools/loop_appender.h: the appends of one loop turn share one write and one fsync) —
// but one step: a child tool's arguments over offload_validation_bytes get their argument
// policy (credentials, then the schema) from run_off_loop — one check at a time, the
// sessions taking turns (tools/argument_check_queue.h) — and the call goes on from the
// verdict back on the loop: the guards decide again (a grant revoked or a source disabled
// meanwhile stops it), then as an inline check would have. Meanwhile the loop serves every
// other session; the call is in flight (calls_in_flight(), and for its endpoint until its
// answer).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "log/event_log.h"
#include "tools/builtin_tools.h"
#include "tools/call_guard.h"
#include "tools/credentials.h"
#include "tools/federation.h"
#include "tools/grant_policy.h"
#include "tools/held_answers.h"
#include "tools/loop_appender.h"
#include "tools/mcp_endpoint.h"
#include "tools/tools_list_cache.h"
#include "transport/mcp_client.h"

namespace las::trust {
class ArgumentSchema;
class Verdict;
}

namespace las::tools {

class ArgumentCheckQueue;
class HandlesInCreation;
struct CredentialInjection;  // a templated tool's credentials for one call (gateway.cc)

// JSON-RPC error codes the gateway answers with (besides the standard ones).
inline constexpr int kCallFailed = -32603;     // "Tool call failed"
inline constexpr int kCallTimedOut = -32001;   // "Tool call timed out"
inline constexpr int kCallRefused = -32602;    // policy refused the call's arguments

// A child's result that carries a credential Las injects into a call of that surface
// (tools/credentials.h EchoesCredential): refused, not answered and not recorded.
inline constexpr std::string_view kReasonCredentialInResult = "credential-in-result";

struct GatewayOptions {
  int64_t call_timeout_ms = 0;  // 0: no timeout (the default, as the seed says)
  // A child's call that finds this many calls of its surface in flight (taken, not yet
  // answered, timed out or cancelled; every session's together) is refused at once
  // (ToolCallDenied "too-many-calls"): a child that takes calls and answers none would
  // otherwise keep an entry for each, without bound, and crowd out every other agent's
  // calls to it. A cancelled call frees its place though the child may work on: MCP never
  // says when a child drops it. 0: no bound.
  size_t calls_in_flight_per_surface = 1024;
  // Of those, one session's (ToolCallDenied "too-many-session-calls" beyond): in a daemon,
  // one client must not take every place — its calls stay when it disconnects, and with
  // no call timeout they stay for as long as the child keeps them (probe CS4). 0: no bound.
  size_t calls_in_flight_per_session = 0;
  // kSynced (strict, the default): ToolCallRequested is on disk before the child sees the
  // call. kDeferred (relaxed, opt-in): it is written but fsynced within milliseconds, for
  // users who accept losing the last moments of audit on power loss.
  log::Durability request_durability = log::Durability::kSynced;
  // A result up to this is read whole (its shape, credentials); a child's answer is
  // never longer.
  size_t max_result_bytes = transport::kMaxChildLineBytes;
  size_t recorded_bytes = 4096;  // arguments/results kept in the log per call
  // A child's result larger than this becomes a handle owned by the calling agent
  // (HandleCreated, synced with ToolCallCompleted); the client gets a small result naming
  // it and reads the rest with las__handle_read. 0: never (tools/handle_refs.h).
  size_t handle_result_bytes = 64 * 1024;
  // The server's handles stored or on their way to the log: a large result its agent was
  // given before, or is being given by another call, is named again, not stored again
  // (probe AJ1). Not owned. Null (tests without live projections): each is stored.
  HandlesInCreation* handles = nullptr;
  const MonotonicClock* clock = &SystemMonotonicClock();
  std::function<std::string()> new_call_id;  // injected randomness
  // Local rules every call passes, in order (tools/call_guard.h). Not owned; they must
  // outlive the gateway.
  std::vector<CallGuard*> guards;
  // Handlers of Las's own tools. Not owned; may be null (then no builtin answers).
  const BuiltinTools* builtins = nullptr;
  // A child tool's arguments longer than this (bytes, credentials injected) are checked
  // against its schema by run_off_loop instead of on the loop: up to 1 MiB against some
  // schemas takes seconds, and in `las daemon` the loop serves every agent. Smaller ones
  // are checked inline, where they cost less than the hand-off to another thread and back
  // would. Las's own tools are always checked inline (flat schemas: one pass). 0, or no
  // run_off_loop: every check inline. A child's result longer than this is read (parsed,
  // scanned for credentials) by run_off_loop too, through the same queue, where it waits
  // its turn but never counts toward checks_waiting_* (it holds nothing more than the
  // loop holds, and its call cannot be refused any more).
  size_t offload_validation_bytes = 64 * 1024;
  // And a smaller argument whose check could make more subschema evaluations than this
  // (trust::ValidationCostBound: values in the text times the schema's cost per value) is
  // checked there too: a schema that costs thousands per value made 2 KB of arguments
  // hold the loop for 18 s (probe BY1). ~0.4-4 us each; simple schemas cost 1 or 2 per
  // value, so for them the byte bound decides.
  uint64_t offload_validation_evaluations = 50'000;
  // The checks off the loop run one at a time, taken from the sessions in turn
  // (tools/argument_check_queue.h); a session with this many waiting, or a server with
  // checks_waiting_in_all waiting, gets its next large call refused at once (ToolCallDenied
  // "too-many-checks"): each waiting check holds a copy of up to 1 MiB of arguments. A call
  // timeout counts the wait and the check; a call cancelled while it waits is never checked.
  size_t checks_waiting_per_session = 4;
  size_t checks_waiting_in_all = 64;
  // Runs a job on another thread (tools/worker_thread.h). The gateway's jobs own what they
  // read and post their verdict back to the appender's loop. The runner must stay callable
  // while the gateway lives; a job it drops leaves its call unanswered (only for a server
  // going away), and a verdict that comes back after the gateway went is ignored.
  std::function<void(std::function<void()> job)> run_off_loop;
};

class Gateway final : public EndpointBackend {
 public:
  Gateway(LoopAppender& appender, Federation& federation, GatewayOptions options);
  ~Gateway() override;

  void OnSessionOpened(const SessionInfo& session) override;
  // Recorded ToolCallDenied, answered once written (Refuse).
  void RefuseCall(const SessionInfo& session, const std::string& request_id_json,
                  const std::string& name, std::string_view reason, ToolCallReply refusal,
                  std::function<void(ToolCallReply)> done) override;
  // Records SessionRefused (not synced: no answer waits for it).
  void OnSessionRefused(const SessionInfo& attempted, std::string_view reason) override;
  std::string ListTools(const SessionInfo& session) override;
  // A child's call passes `progress` on (transport::CallOptions::on_progress) unless a guard
  // says its surface's progress is not relayed (CallGuard::RelaysProgress); a las__ tool
  // gets it in BuiltinCall (las__call hands it to the call it makes; the others report none).
  void CallTool(const SessionInfo& session, const std::string& request_id_json,
                const std::string& name, const std::string& arguments_json,
                ProgressSink progress, std::function<void(ToolCallReply)> done) override;
  // A child's call: the child is told (notifications/cancelled) and the call recorded
  // uncertain ("cancelled"); before it reached the child, it is not sent and recorded
  // failed ("cancelled"); while its arguments are still being checked off the loop (it has
  // no ToolCallRequested yet), it is not requested and recorded ToolCallDenied
  // ("cancelled") once the check is back — or denied with the schema's refusal, if that
  // was the verdict. A las__ tool runs to its end. The answer goes to `done` as usual.
  void CancelCall(const SessionInfo& session, const std::string& request_id_json) override;
  std::string ListResources(const SessionInfo& session) override;
  std::optional<std::string> ReadResource(const SessionInfo& session,
                                          const std::string& uri) override;
  std::string ListPrompts(const SessionInfo& session) override;
  std::optional<std::string> GetPrompt(const SessionInfo& session, const std::string& name,
                                       const std::string& arguments_json) override;

  // Records SessionClosed (synced); `done` on the loop.
  void CloseSession(const SessionInfo& session, std::string_view reason,
                    std::function<void()> done);
  // Children's calls not yet answered: being checked off the loop, being requested, or
  // at the child; and refusals whose ToolCallDenied is still being written.
  size_t calls_in_flight() const { return in_flight_; }
  // Answers of Las's own tools decided and waiting for the log, per session: its input's
  // flow control counts them (tools/held_answers.h).
  HeldAnswers& held_answers() { return held_answers_; }
  // The server is going away: every call whose arguments wait for or undergo their check
  // off the loop is answered now ("Tool call failed") and recorded ToolCallDenied
  // "shutdown"; a check already running finishes on its thread and is dropped.
  void EndChecks();

 private:
  void CallBuiltin(const SessionInfo& session, const std::string& request_id_json,
                   const std::string& call_id, const CatalogTool& tool,
                   const std::string& arguments_json, ProgressSink progress,
                   std::function<void(ToolCallReply)> done);
  std::optional<Refusal> CheckResult(const SessionInfo& session, const std::string& surface,
                                     const std::string& tool_name, std::string& result_json);
  bool DocsEnabled() const;
  // What a refusal records: ToolCallDenied for the client's request `request_id_json`
  // (JSON text).
  struct Denial {
    std::string call_id;
    std::string request_id_json;
    std::string surface;
    std::string tool;
    std::string_view reason;
    std::string_view detail;
  };
  // Records `denial`, then answers `reply` through `answer` once it is written: a refusal
  // the client saw is in the log (probe BG5); after a failed write, "Tool call failed".
  // Counted in calls_in_flight() until answered.
  void Refuse(const SessionInfo& session, const Denial& denial, ToolCallReply reply,
              std::function<void(ToolCallReply)> answer);
  // A child's call after its arguments' check: the check's verdict decides whether it is
  // denied or requested; after its ToolCallRequested was written: send it, then Complete().
  struct ChildCall;
  // The call id a new call is recorded under: GatewayOptions::new_call_id's, else the
  // client's request id.
  std::string NewCallId(const std::string& request_id_json) const;
  // Refuse() for a child's call, which ends with it: its place is freed at once.
  void RefuseChildCall(ChildCall& call, std::string_view reason, ToolCallReply reply,
                  std::string_view detail = {});
  void CheckOffLoop(std::shared_ptr<ChildCall> call,
                    std::shared_ptr<const trust::ArgumentSchema> schema,
                    std::shared_ptr<const CredentialInjection> injection);
  // The guards' verdict on a call before it is logged (tools/call_guard.h): the first
  // refusal's reason, answered with the text of the last concealing guard that refuses too.
  struct GuardRefusal {
    std::string reason;
    ToolCallReply reply;
    std::string detail;  // the log's
  };
  std::optional<GuardRefusal> RefusalBeforeCall(const SessionInfo& session,
                                                const CatalogTool& tool,
                                                std::string_view client_arguments) const;
  // False when a guard now refuses the call (it is then denied and answered).
  bool RecheckGuards(const std::shared_ptr<ChildCall>& call, std::string_view client_arguments);
  // Why a call ends while its check waits or runs.
  enum class CheckEnd { kTimeout, kCancelled, kShutdown };
  // Ends a call whose check is waiting or running: denied, and answered for `why`.
  void EndDuringCheck(ChildCall& call, CheckEnd why);
  // With a call timeout: `expire` runs on the call at its deadline, unless it was answered
  // first or the call's timer is cancelled (the phase it guards ended in time).
  void ArmDeadline(const std::shared_ptr<ChildCall>& call, std::function<void(ChildCall&)> expire);
  // `by_schema` false: `valid` is the credential templates' refusal.
  void AfterCheck(std::shared_ptr<ChildCall> call, const trust::Verdict& valid, bool by_schema);
  void SendToChild(std::shared_ptr<ChildCall> call);
  // A child's answer: read (off the loop when large, GatewayOptions::run_off_loop), then
  // Settle()d: refused, or recorded and answered.
  void Complete(std::shared_ptr<ChildCall> call, transport::CallResult result);
  struct ResultScan;
  void Settle(std::shared_ptr<ChildCall> call, transport::CallResult result,
              const ResultScan& scan, int64_t micros);
  void Finish(ChildCall& call, ToolCallReply reply);
  // Finish() but the answer: the call's place is freed; returns whom to answer.
  std::function<void(ToolCallReply)> Release(ChildCall& call);
  // The credential values a result of `surface` must not carry (resolved and spelled once):
  // its own surface's, and every other surface's of the release, served or not
  // (CrossSurfaceCredentialValues) — a child can hand back another's, a token that surface
  // cached in a file it can read (probes BD1, BE1).
  const CredentialSpellings& CredentialsOf(const std::string& surface);

  LoopAppender& appender_;
  Federation& federation_;
  GatewayOptions options_;
  ToolsListCache tools_list_;
  size_t in_flight_ = 0;
  // Children's calls in flight per surface, for calls_in_flight_per_surface (no entry: none).
  std::map<std::string, size_t, std::less<>> surface_calls_;
  // And per session and surface, for calls_in_flight_per_session (no entry: none).
  std::map<std::pair<std::string, std::string>, size_t> session_calls_;
  // Children's calls in flight by (session id, the client's request id), for CancelCall. A
  // multimap: a client may reuse an id in flight, and a cancellation of that id must reach
  // every call under it.
  using CallKey = std::pair<std::string, std::string>;  // session id, transport::RequestIdKey
  static CallKey KeyOf(const SessionInfo& session, std::string_view request_id_json);
  std::multimap<CallKey, std::shared_ptr<ChildCall>> child_calls_;
  // Las's own cancellable tools' calls in flight, alike: what a cancellation of each ends.
  std::multimap<CallKey, std::shared_ptr<BuiltinCancel>> builtin_calls_;
  // Removes the entry of `calls` under `key` that holds `call` (a key may hold several).
  template <typename Call>
  static void EraseCall(std::multimap<CallKey, std::shared_ptr<Call>>& calls, const CallKey& key,
                        const Call* call) {
    auto [first, last] = calls.equal_range(key);
    for (auto it = first; it != last; ++it) {
      if (it->second.get() == call) {
        calls.erase(it);
        return;
      }
    }
  }
  std::map<std::string, CredentialSpellings> surface_credentials_;  // CredentialsOf
  GrantPolicy grant_policy_;  // Las's environment's, for what SessionOpened records
  // With run_off_loop. A verdict that comes back after the gateway went is dropped (its
  // loop may run on after the gateway is gone, e.g. in tests).
  std::unique_ptr<ArgumentCheckQueue> checks_;
  HeldAnswers held_answers_;
};

}  // namespace las::tools
