#include "tools/gateway.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <algorithm>
#include <chrono>
#include <iterator>
#include <string_view>

#include "tools/argument_check_queue.h"
#include "tools/builtin_tools.h"
#include "tools/credentials.h"
#include "tools/decision_events.h"
#include "tools/docs_mcp.h"
#include "tools/handle_refs.h"
#include "tools/handles_in_creation.h"
#include "tools/refusal_detail.h"
#include "tools/result_shape.h"
#include "transport/json_text.h"
#include "transport/jsonrpc.h"
#include "transport/mcp_client.h"
#include "trust/argument_schema.h"
#include "trust/canonical_json.h"
#include "trust/credential_injection.h"

namespace las::tools {
namespace {

Actor ActorOf(const SessionInfo& session) { return {session.agent_id, session.session_id}; }

// "Tool call failed" in place of `reply`, whose record could not be written: still withheld
// when it answers a call its client cancelled (probe CN1).
ToolCallReply FailedInstead(const ToolCallReply& reply) {
  return reply.cancelled ? ToolCallReply::Cancelled(kCallFailed, "Tool call failed")
                         : ToolCallReply::Error(kCallFailed, "Tool call failed");
}

// A call refused because its surface is not running (stopped, starting again, expired): the
// child never had it — told apart, in Las's own words, from a call that failed at the child
// (probe FN5: both were "Tool call failed"). Whether it will run again is the operator's to
// read on stderr (probe FO2: "it may be starting again" was said of a surface that never would).
ToolCallReply SurfaceUnavailable() {
  return ToolCallReply::Error(kCallFailed, "Tool unavailable: its surface is not running");
}

// The child answered the call, and Las did not relay the answer (refused: not one object,
// unreadable to clients, carrying a credential; or malformed): said in Las's words, never
// the child's, so that a client tells "the tool ran" from "the tool failed" and does not
// retry a call that may have acted (probe JV2: both were "Tool call failed").
ToolCallReply AnswerNotRelayed() {
  return ToolCallReply::Error(kCallFailed,
                              "Tool call failed: the tool answered, but Las did not relay its answer");
}

// The client's answer to arguments their schema refuses: the generic message, and where
// they failed — pointers and keywords from the signed schema and the client's own keys,
// never a value (trust/argument_schema.h) — so a model can fix its call: in the error's
// `data`, and after the message, bounded (most clients show the message alone: probe IJ2).
ToolCallReply SchemaRefusal(const trust::Verdict& verdict) {
  ToolCallReply reply = ToolCallReply::Error(
      kCallRefused, verdict.reason() == trust::Reason::kArgumentsInvalid
                        ? "Arguments are not one strict JSON object within Las's bounds"
                        : "Arguments do not match the tool's input schema");
  reply.error_data = "{\"detail\":" + transport::QuoteJsonString(verdict.detail()) + "}";
  reply.error_detail = RefusalDetailForMessage(verdict.detail());
  return reply;
}

// What a child tool's argument policy decided.
struct PolicyVerdict {
  trust::Verdict verdict;
  bool by_schema = true;  // false: the credential templates refused the arguments
};

}  // namespace

// What reading a child's result found: its shape and whether it carries a credential.
struct Gateway::ResultScan {
  ResultShape shape;
  bool echoes_credential = false;
  static ResultScan Of(std::string_view result, const CredentialSpellings& credentials) {
    ResultScan scan;
    scan.shape = ShapeOf(result);
    scan.echoes_credential = scan.shape.object && credentials.EchoedIn(result);
    return scan;
  }
};

// A templated tool's credential templates and the values they name, resolved on the loop
// when the call is made; shared by a check off the loop. Tools without templates have none.
struct CredentialInjection {
  trust::ToolBinding binding;
  std::map<std::string, std::string> credentials;
};

namespace {

// Argument policy, on the loop or off it: Las's credentials into their templated arguments
// (a model-supplied value for one is refused), then the signed schema on the result, so a
// templated argument the schema requires is satisfied by Las, never by the model. The
// byte limit counts the client's text only. `arguments` becomes what the child is sent.
PolicyVerdict ApplyArgumentPolicy(const trust::ArgumentSchema& schema,
                                  const CredentialInjection* injection, std::string& arguments) {
  const size_t client_bytes = arguments.size();
  std::vector<std::string> filled;
  if (injection != nullptr) {
    filled = trust::FilledArguments(injection->binding);
    const auto& credentials = injection->credentials;
    auto injected = trust::InjectCredentials(
        arguments, injection->binding,
        [&credentials](std::string_view name) -> std::optional<std::string> {
          auto it = credentials.find(std::string(name));
          if (it == credentials.end()) return std::nullopt;
          return it->second;
        });
    if (!injected.ok()) return {injected.verdict(), false};
    arguments = std::move(*injected);
  }
  return {trust::ValidateInjectedArguments(schema, arguments, client_bytes, filled), true};
}

// Whether a child's progress numbers, as the client would get them, carry a credential.
bool ProgressEchoesCredential(const transport::CallProgress& progress,
                              const CredentialSpellings& credentials) {
  if (credentials.empty()) return false;
  std::string numbers;
  for (const std::optional<double>& number : {std::optional<double>(progress.progress), progress.total}) {
    if (!number) continue;
    auto text = trust::FormatJcsNumber(*number);
    numbers += (numbers.empty() ? "[" : ",") + (text.ok() ? *text : std::string("0"));
  }
  return credentials.EchoedIn(numbers + "]");
}

}  // namespace

// A child's call from its schema check to its answer. Everything is copied out of the
// catalog: the call may outlive the CatalogTool it was made from (it waits for a check off
// the loop, for its ToolCallRequested, for the child).
struct Gateway::ChildCall {
  SessionInfo session;
  std::string request_id_json;  // the client's
  CallKey key;                  // in child_calls_, computed once
  std::string call_id;
  std::string surface;
  std::string tool;
  std::string definition_sha256;
  BoundedText recorded_arguments;  // the model's arguments, bounded, for ToolCallRequested
  // The client's text; once the argument policy passed, with Las's credentials injected
  // (never recorded).
  std::string arguments;
  // The client's own text while a check off the loop runs on a copy with credentials: the
  // guards see it again after the check.
  std::string client_arguments;
  ProgressSink progress;  // empty: the client asked for none
  std::function<void(ToolCallReply)> done;
  int64_t started_nanos = 0;
  int64_t deadline_nanos = 0;      // with a call timeout; 0: none
  bool cancelled = false;          // by the client, at any point before its answer
  bool finished = false;           // answered (Finish)
  // While its arguments wait for or undergo their check off the loop.
  ArgumentCheckQueue::Id check_id = 0;
  // The call timeout while Las holds the call before sending it: during its check off the
  // loop, then while its ToolCallRequested is recorded (the child's client times it after).
  std::unique_ptr<boost::asio::steady_timer> deadline_timer;
  // While the call is at the child: from its sending until its answer (Complete).
  transport::McpClient* child = nullptr;
  int64_t child_request_id = 0;
};

Gateway::Gateway(LoopAppender& appender, Federation& federation, GatewayOptions options)
    : appender_(appender),
      federation_(federation),
      options_(std::move(options)),
      grant_policy_(GrantPolicyFor(federation_.environment())),
      held_answers_([&io = appender_.io()](std::function<void()> task) {
        boost::asio::post(io, std::move(task));
      }) {
  if (options_.run_off_loop && options_.offload_validation_bytes != 0) {
    checks_ = std::make_unique<ArgumentCheckQueue>(
        options_.run_off_loop,
        [&io = appender_.io()](std::function<void()> back) { boost::asio::post(io, std::move(back)); },
        options_.checks_waiting_per_session, options_.checks_waiting_in_all);
  }
}

Gateway::~Gateway() {
  // A timer's handler must not reach a gateway that is gone.
  for (const auto& [key, call] : child_calls_) {
    if (call->deadline_timer) call->deadline_timer->cancel();
  }
}

void Gateway::OnSessionOpened(const SessionInfo& session) {
  const bool implicit_root =
      grant_policy_.ImplicitRoot(session.agent_id, session.implicit_root_waived);
  appender_.Append({SessionOpenedEvent(ActorOf(session), session.protocol_version,
                                      session.client_name, session.client_version,
                                      session.transport.empty() ? "stdio" : session.transport,
                                      implicit_root)},
                   log::Durability::kDeferred, [](Result<log::AppendedRange>) {});
}

void Gateway::RefuseCall(const SessionInfo& session, const std::string& request_id_json,
                         const std::string& name, std::string_view reason, ToolCallReply refusal,
                         std::function<void(ToolCallReply)> done) {
  const size_t split = name.find(kNameSeparator);
  const std::string surface = split == std::string::npos ? "" : name.substr(0, split);
  const std::string tool =
      split == std::string::npos ? name : name.substr(split + kNameSeparator.size());
  Refuse(session,
         {NewCallId(request_id_json), request_id_json,
          Bound(surface, kMaxRecordedToolNameBytes).text,
          Bound(tool, kMaxRecordedToolNameBytes).text, reason, {}},
         std::move(refusal), std::move(done));
}

std::string Gateway::NewCallId(const std::string& request_id_json) const {
  return options_.new_call_id ? options_.new_call_id() : request_id_json;
}

void Gateway::OnSessionRefused(const SessionInfo& attempted, std::string_view reason) {
  appender_.Append({SessionRefusedEvent(Actor{attempted.agent_id, ""}, reason,
                                        attempted.protocol_version, attempted.client_name,
                                        attempted.client_version, attempted.transport)},
                   log::Durability::kDeferred, [](Result<log::AppendedRange>) {});
}

std::string Gateway::ListTools(const SessionInfo& session) {
  return tools_list_.Get(federation_.catalog(), options_.guards, session);
}

bool Gateway::DocsEnabled() const {
  return options_.builtins == nullptr || options_.builtins->DocsEnabled();
}

std::string Gateway::ListResources(const SessionInfo&) {
  return DocsResourcesListJson(DocsEnabled());
}

std::optional<std::string> Gateway::ReadResource(const SessionInfo&, const std::string& uri) {
  return DocsResourceReadJson(DocsEnabled(), uri);
}

std::string Gateway::ListPrompts(const SessionInfo&) { return DocsPromptsListJson(DocsEnabled()); }

std::optional<std::string> Gateway::GetPrompt(const SessionInfo&, const std::string& name,
                                              const std::string&) {
  return DocsPromptGetJson(DocsEnabled(), name);
}

void Gateway::Refuse(const SessionInfo& session, const Denial& denial, ToolCallReply reply,
                     std::function<void(ToolCallReply)> answer) {
  ++in_flight_;
  // Written, not synced: the next sync covers it, as a completion's.
  appender_.Append({ToolCallDeniedEvent(ActorOf(session), denial.call_id, denial.surface,
                                        denial.tool, denial.reason, denial.detail,
                                        denial.request_id_json)},
                   log::Durability::kDeferred,
                   [this, reply = std::move(reply),
                    answer = std::move(answer)](Result<log::AppendedRange> stored) mutable {
                     --in_flight_;
                     answer(stored.ok() ? std::move(reply) : FailedInstead(reply));
                   });
}

void Gateway::RefuseChildCall(ChildCall& call, std::string_view reason, ToolCallReply reply,
                         std::string_view detail) {
  Refuse(call.session,
         {call.call_id, call.request_id_json, call.surface, call.tool, reason, detail},
         std::move(reply), Release(call));
}

void Gateway::CallTool(const SessionInfo& session, const std::string& request_id_json,
                       const std::string& name, const std::string& arguments_json,
                       ProgressSink progress, std::function<void(ToolCallReply)> answer) {
  // Open until answered: the appender syncs inline only for a lone open call.
  appender_.OpenCall();
  auto done = [this, answer = std::move(answer)](ToolCallReply reply) {
    appender_.CloseCall();
    answer(std::move(reply));
  };
  // The log refuses every append since a write failed, and the live projections may hold
  // that write's events: a read would show what no log holds (probe N1). Nothing can be
  // recorded either.
  if (!appender_.failure().ok()) {
    done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
    return;
  }
  const std::string call_id = NewCallId(request_id_json);
  const CatalogTool* tool = federation_.catalog().Find(name);
  if (tool == nullptr) {
    // A signed tool a local policy kept out of the catalog is denied with that policy's
    // reason (docs/POLICIES.md); the client sees the same "Unknown tool".
    if (auto left_out = federation_.LeftOutReason(name)) {
      const size_t split = name.find(kNameSeparator);
      Refuse(session,
             {call_id, request_id_json, name.substr(0, split),
              name.substr(split + kNameSeparator.size()), *left_out, {}},
             ToolCallReply::Error(kCallRefused, "Unknown tool"), std::move(done));
    } else {
      Refuse(session,
             {call_id, request_id_json, "", Bound(name, kMaxRecordedToolNameBytes).text,
              "unknown-tool", {}},
             ToolCallReply::Error(kCallRefused, "Unknown tool"), std::move(done));
    }
    return;
  }
  if (auto refusal = RefusalBeforeCall(session, *tool, arguments_json)) {
    Refuse(session,
           {call_id, request_id_json, tool->surface, tool->tool, refusal->reason, refusal->detail},
           std::move(refusal->reply), std::move(done));
    return;
  }
  if (tool->builtin) {
    CallBuiltin(session, request_id_json, call_id, *tool, arguments_json, std::move(progress),
                std::move(done));
    return;
  }
  transport::McpClient* client = federation_.ServingClientFor(tool->surface);
  if (client == nullptr) {  // stopped (its child exited; a restart may bring it back)
    Refuse(session,
           {call_id, request_id_json, tool->surface, tool->tool, "surface-unavailable", {}},
           SurfaceUnavailable(), std::move(done));
    return;
  }
  const auto taken = surface_calls_.find(tool->surface);
  if (options_.calls_in_flight_per_surface != 0 && taken != surface_calls_.end() &&
      taken->second >= options_.calls_in_flight_per_surface) {
    // Which bound, and how large: the operator's to raise (probe IS3: the record said neither).
    const std::string detail = "the surface's places for calls in flight (" +
                               std::to_string(options_.calls_in_flight_per_surface) +
                               ", every session's together: --max-calls-per-surface) are taken";
    Refuse(session, {call_id, request_id_json, tool->surface, tool->tool, "too-many-calls", detail},
           ToolCallReply::Error(kCallFailed,
                                "Too many calls in flight for this tool's surface; retry later"),
           std::move(done));
    return;
  }
  if (const auto mine = session_calls_.find({session.session_id, tool->surface});
      options_.calls_in_flight_per_session != 0 && mine != session_calls_.end() &&
      mine->second >= options_.calls_in_flight_per_session) {
    const std::string detail = "this session's places for calls in flight on the surface (" +
                               std::to_string(options_.calls_in_flight_per_session) +
                               ": a quarter of --max-calls-per-surface) are taken";
    Refuse(session,
           {call_id, request_id_json, tool->surface, tool->tool, "too-many-session-calls", detail},
           ToolCallReply::Error(kCallFailed, "Too many of this session's calls in flight for "
                                             "this tool's surface; retry later"),
           std::move(done));
    return;
  }

  // Argument policy. The log records the model's arguments, never the injected secrets.
  // Its byte limit is the client's, checked before anything is copied or queued.
  if (trust::Verdict size = trust::CheckArgumentsSize(*tool->schema, arguments_json.size());
      !size.ok()) {
    Refuse(session,
           {call_id, request_id_json, tool->surface, tool->tool, size.reason_name(), size.detail()},
           SchemaRefusal(size), std::move(done));
    return;
  }
  auto call = std::make_shared<ChildCall>();
  call->session = session;
  call->request_id_json = request_id_json;
  call->call_id = call_id;
  call->surface = tool->surface;
  call->tool = tool->tool;
  call->definition_sha256 = tool->definition_sha256;
  call->recorded_arguments = Bound(arguments_json, options_.recorded_bytes);
  call->arguments = arguments_json;
  if (std::all_of(options_.guards.begin(), options_.guards.end(),
                  [&](const CallGuard* guard) { return guard->RelaysProgress(*tool); })) {
    call->progress = std::move(progress);
  }
  call->done = std::move(done);
  if (options_.call_timeout_ms > 0) {
    call->deadline_nanos = options_.clock->NowNanos() + options_.call_timeout_ms * 1'000'000;
  }
  ++in_flight_;
  ++surface_calls_[call->surface];
  ++session_calls_[{session.session_id, call->surface}];
  call->key = KeyOf(session, request_id_json);
  child_calls_.emplace(call->key, call);

  std::shared_ptr<CredentialInjection> injection;
  if (!tool->credential_templates.empty()) {
    injection = std::make_shared<CredentialInjection>();
    injection->binding.name = tool->tool;
    injection->binding.credential_templates = tool->credential_templates;
    const trust::CredentialResolver resolve = EnvironmentCredentials(federation_.environment());
    for (const auto& [argument, credential] : tool->credential_templates) {
      if (auto value = resolve(credential)) {
        injection->credentials.emplace(credential, std::move(*value));
      }
    }
  }
  // A large or costly argument is checked off the loop: against some schemas that takes
  // seconds, and the loop serves every session (see GatewayOptions::offload_validation_*).
  if (checks_ && (call->arguments.size() > options_.offload_validation_bytes ||
                  trust::ValidationCostBound(*tool->schema, call->arguments) >
                      options_.offload_validation_evaluations)) {
    CheckOffLoop(std::move(call), tool->schema, std::move(injection));
    return;
  }
  const PolicyVerdict verdict =
      ApplyArgumentPolicy(*tool->schema, injection.get(), call->arguments);
  AfterCheck(std::move(call), verdict.verdict, verdict.by_schema);
}

void Gateway::CheckOffLoop(std::shared_ptr<ChildCall> call,
                           std::shared_ptr<const trust::ArgumentSchema> schema,
                           std::shared_ptr<const CredentialInjection> injection) {
  // The check owns what it reads — the immutable schema (ValidateArguments may run on it
  // from any thread, trust/argument_schema.h), a copy of the arguments and the credential
  // values — and its verdict is handed back on the loop through `outcome`.
  struct Outcome {
    std::string arguments;
    PolicyVerdict verdict;
  };
  auto outcome = std::make_shared<Outcome>();
  if (injection) call->client_arguments = call->arguments;
  outcome->arguments = std::move(call->arguments);
  ArgumentCheckQueue::Check check;
  check.run = [outcome, schema = std::move(schema), injection = std::move(injection)] {
    outcome->verdict = ApplyArgumentPolicy(*schema, injection.get(), outcome->arguments);
  };
  check.done = [this, call, outcome] {
    call->check_id = 0;
    if (call->deadline_timer) call->deadline_timer->cancel();
    if (call->finished) return;  // timed out, or the server went on without it
    // Without templates the checked text is the client's own.
    const bool injected = !call->client_arguments.empty();
    if (!RecheckGuards(call, injected ? call->client_arguments : outcome->arguments)) return;
    call->client_arguments = {};
    call->arguments = std::move(outcome->arguments);
    AfterCheck(call, outcome->verdict.verdict, outcome->verdict.by_schema);
  };
  call->check_id = checks_->Add(call->session.session_id, std::move(check));
  if (call->check_id == 0) {
    RefuseChildCall(*call, "too-many-checks",
               ToolCallReply::Error(kCallFailed, "Too many large calls waiting; retry later"));
    return;
  }
  ArmDeadline(call, [this](ChildCall& late) { EndDuringCheck(late, CheckEnd::kTimeout); });
}

void Gateway::ArmDeadline(const std::shared_ptr<ChildCall>& call,
                          std::function<void(ChildCall&)> expire) {
  if (call->deadline_nanos == 0) return;
  if (!call->deadline_timer) {
    call->deadline_timer = std::make_unique<boost::asio::steady_timer>(appender_.io());
  }
  call->deadline_timer->expires_after(
      std::chrono::nanoseconds(call->deadline_nanos - options_.clock->NowNanos()));
  call->deadline_timer->async_wait([weak = std::weak_ptr<ChildCall>(call), expire = std::move(expire)](
                                       const boost::system::error_code& error) {
    if (error) return;  // cancelled: the phase ended in time (or the gateway went)
    if (auto late = weak.lock(); late && !late->finished) expire(*late);
  });
}

// After a check off the loop: what the guards decided before it (grants, sources, special
// policies) may have changed meanwhile — an operator's revoke or disable must stop a call
// that has not been requested yet, as it would have stopped one checked inline.
bool Gateway::RecheckGuards(const std::shared_ptr<ChildCall>& call,
                            std::string_view client_arguments) {
  const CatalogTool* tool = federation_.catalog().Find(QualifiedName(call->surface, call->tool));
  if (tool == nullptr) {
    RefuseChildCall(*call, "surface-unavailable", SurfaceUnavailable());
    return false;
  }
  if (auto refusal = RefusalBeforeCall(call->session, *tool, client_arguments)) {
    RefuseChildCall(*call, refusal->reason, std::move(refusal->reply), refusal->detail);
    return false;
  }
  return true;
}

std::optional<Gateway::GuardRefusal> Gateway::RefusalBeforeCall(
    const SessionInfo& session, const CatalogTool& tool,
    std::string_view client_arguments) const {
  const auto& guards = options_.guards;
  for (auto first = guards.begin(); first != guards.end(); ++first) {
    auto refusal = (*first)->BeforeCall(session, tool, client_arguments);
    if (!refusal) continue;
    GuardRefusal out{std::move(refusal->reason),
                     ToolCallReply::Error(refusal->error_code, refusal->message),
                     std::move(refusal->detail)};
    for (auto later = std::next(first); later != guards.end(); ++later) {
      if (!(*later)->ConcealsEarlierRefusals()) continue;
      if (auto concealing = (*later)->BeforeCall(session, tool, client_arguments)) {
        out.reply = ToolCallReply::Error(concealing->error_code, concealing->message);
      }
    }
    return out;
  }
  return std::nullopt;
}

void Gateway::EndDuringCheck(ChildCall& call, CheckEnd why) {
  if (call.finished || call.check_id == 0) return;
  (void)checks_->Withdraw(call.check_id);  // a running check goes on; its verdict is dropped
  call.check_id = 0;
  const auto [reason, reply] = [why]() -> std::pair<std::string_view, ToolCallReply> {
    switch (why) {
      case CheckEnd::kTimeout:
        return {"timeout", ToolCallReply::Error(kCallTimedOut, "Tool call timed out")};
      case CheckEnd::kCancelled:
        return {"cancelled", ToolCallReply::Cancelled(kCallFailed, "Tool call cancelled")};
      case CheckEnd::kShutdown:
        break;
    }
    return {"shutdown", ToolCallReply::Error(kCallFailed, "Tool call failed")};
  }();
  RefuseChildCall(call, reason, reply);
}

void Gateway::EndChecks() {
  std::vector<std::shared_ptr<ChildCall>> checking;
  for (const auto& [key, call] : child_calls_) {
    if (call->check_id != 0) checking.push_back(call);
  }
  for (const auto& call : checking) EndDuringCheck(*call, CheckEnd::kShutdown);
}

void Gateway::AfterCheck(std::shared_ptr<ChildCall> call, const trust::Verdict& valid,
                         bool by_schema) {
  if (!valid.ok() && !by_schema) {
    RefuseChildCall(*call, valid.reason_name(),
               ToolCallReply::Error(kCallRefused, "Arguments refused by policy"));
    return;
  }
  if (!valid.ok()) {
    RefuseChildCall(*call, valid.reason_name(), SchemaRefusal(valid), valid.detail());
    return;
  }
  // Cancelled while its arguments were checked off the loop: never requested, so denied,
  // not completed (see CancelCall).
  if (call->cancelled) {
    RefuseChildCall(*call, "cancelled", ToolCallReply::Cancelled(kCallFailed, "Tool call cancelled"));
    return;
  }
  // The surface may have stopped while the check ran off the loop.
  if (federation_.ServingClientFor(call->surface) == nullptr) {
    RefuseChildCall(*call, "surface-unavailable", SurfaceUnavailable());
    return;
  }
  auto requested = ToolCallRequestedEvent(ActorOf(call->session), call->call_id, call->surface,
                                          call->tool, call->definition_sha256,
                                          call->recorded_arguments, call->request_id_json);
  call->recorded_arguments = {};
  // A disk that stalls must not hold the answer past the call's deadline: the call is
  // answered then, and SendToChild records it not sent once its request is written.
  // One the client cancelled meanwhile gets no answer (probe GO1: it got the timeout).
  ArmDeadline(call, [this](ChildCall& late) {
    Finish(late, late.cancelled ? ToolCallReply::Cancelled(kCallFailed, "Tool call cancelled")
                                : ToolCallReply::Error(kCallTimedOut, "Tool call timed out"));
  });
  appender_.Append({std::move(requested)}, options_.request_durability,
                   [this, call = std::move(call)](Result<log::AppendedRange> appended) mutable {
                     if (call->deadline_timer) call->deadline_timer->cancel();
                     if (!appended.ok()) {
                       if (!call->finished) {
                         Finish(*call, ToolCallReply::Error(kCallFailed, "Tool call failed"));
                       }
                       return;
                     }
                     SendToChild(std::move(call));
                   });
}

void Gateway::SendToChild(std::shared_ptr<ChildCall> call) {
  const int64_t now = options_.clock->NowNanos();
  // Out of time while its request was being recorded (a slow disk; probe Y1, as a call
  // whose check ran out of time; answered already if its deadline timer could fire),
  // cancelled, or its surface stopped before the child saw it: not sent, so it did not
  // happen.
  const bool out_of_time =
      call->finished || (call->deadline_nanos != 0 && now >= call->deadline_nanos);
  transport::McpClient* child = out_of_time ? nullptr : federation_.ServingClientFor(call->surface);
  if (child == nullptr || call->cancelled) {
    const char* reason = call->cancelled ? "cancelled"
                         : out_of_time   ? "timeout"
                                         : "surface-unavailable";
    appender_.Append({ToolCallCompletedEvent(ActorOf(call->session), call->call_id,
                                             fb::CallOutcome::Failed, BoundedText{}, 0, reason)},
                     log::Durability::kDeferred, [](Result<log::AppendedRange>) {});
    if (call->finished) return;
    Finish(*call, call->cancelled ? ToolCallReply::Cancelled(kCallFailed, "Tool call cancelled")
                  : out_of_time   ? ToolCallReply::Error(kCallTimedOut, "Tool call timed out")
                                  : SurfaceUnavailable());
    return;
  }
  call->started_nanos = now;
  transport::CallOptions call_options;
  if (call->deadline_nanos != 0) {
    // What is left of the call's timeout (its check and its request took the rest).
    call_options.timeout = std::max(std::chrono::milliseconds(1),
                                    std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::nanoseconds(call->deadline_nanos - call->started_nanos)));
  }
  if (call->progress) {
    call_options.on_progress = [this, call](const transport::CallProgress& progress) {
      if (call->cancelled) return;
      // The numbers are the child's: it may spell an injected secret as one.
      if (ProgressEchoesCredential(progress, CredentialsOf(call->surface))) return;
      call->progress(ToolCallProgress{progress.progress, progress.total});
    };
  }
  const std::string tool_name = call->tool;
  const std::string arguments = std::move(call->arguments);
  call->child = child;
  call->child_request_id =
      child->CallTool(tool_name, arguments, call_options, [this, call](transport::CallResult result) mutable {
        Complete(std::move(call), std::move(result));
      });
}

Gateway::CallKey Gateway::KeyOf(const SessionInfo& session, std::string_view request_id_json) {
  return {session.session_id, transport::RequestIdKey(request_id_json)};
}

void Gateway::CancelCall(const SessionInfo& session, const std::string& request_id_json) {
  // Las's own: each ends as its handler said (BuiltinCancel); most cannot be ended early.
  std::vector<std::shared_ptr<BuiltinCancel>> builtins;
  const CallKey key = KeyOf(session, request_id_json);
  auto [own_first, own_last] = builtin_calls_.equal_range(key);
  for (auto it = own_first; it != own_last; ++it) builtins.push_back(it->second);
  for (const auto& cancel : builtins) cancel->Cancel();
  // None: answered already, or not a child's call.
  auto [first, last] = child_calls_.equal_range(key);
  std::vector<std::shared_ptr<ChildCall>> calls;
  for (auto it = first; it != last; ++it) calls.push_back(it->second);
  for (const auto& call : calls) {
    if (call->cancelled) continue;
    call->cancelled = true;
    if (call->child != nullptr && call->child_request_id != 0) {
      (void)call->child->Cancel(call->child_request_id, "cancelled by the client");
    } else if (call->check_id != 0 && call->check_id != checks_->running()) {
      EndDuringCheck(*call, CheckEnd::kCancelled);  // still waiting for its check: it never runs
    }
  }
}

void Gateway::Complete(std::shared_ptr<ChildCall> call, transport::CallResult result) {
  // The child is done with the call: nothing more goes to its client, which a restart of
  // the surface may retire and destroy while the result is read off the loop — a client's
  // cancel then reached the freed client (probe CB1).
  call->child = nullptr;
  call->child_request_id = 0;
  const int64_t micros = (options_.clock->NowNanos() - call->started_nanos) / 1000;
  const bool scanned_whole = result.ok() && result.result.size() <= options_.max_result_bytes;
  if (checks_ && scanned_whole && result.result.size() > options_.offload_validation_bytes) {
    // A large result is read off the loop, as a large argument is checked: parsing and
    // scanning 1 MiB for credentials takes ~10 ms, and more for deeper JSON
    // (docs/PERFORMANCE.md, "Credential scan"), which every session would wait out.
    struct Scanned {
      transport::CallResult result;
      ResultScan scan;
    };
    auto scanned = std::make_shared<Scanned>();
    scanned->result = std::move(result);
    ArgumentCheckQueue::Check check;
    check.bounded = false;  // the call was made: its result is read, never refused for this
    check.run = [scanned, credentials = CredentialsOf(call->surface)] {
      scanned->scan = ResultScan::Of(scanned->result.result, credentials);
    };
    check.done = [this, call, scanned, micros] {
      Settle(call, std::move(scanned->result), scanned->scan, micros);
    };
    checks_->Add(call->session.session_id, std::move(check));
    return;
  }
  const ResultScan scan =
      scanned_whole ? ResultScan::Of(result.result, CredentialsOf(call->surface)) : ResultScan{};
  Settle(std::move(call), std::move(result), scan, micros);
}

void Gateway::Settle(std::shared_ptr<ChildCall> call, transport::CallResult result,
                     const ResultScan& scan, int64_t micros) {
  const Actor actor = ActorOf(call->session);
  ToolCallReply reply;
  std::optional<ResultHandle> handle;
  fb::CallOutcome outcome = fb::CallOutcome::Ok;
  std::string error_code;
  const ResultShape& shape = scan.shape;
  std::optional<Refusal> refusal;
  if (shape.object) refusal = CheckResult(call->session, call->surface, call->tool, result.result);
  if (!refusal && scan.echoes_credential) {
    refusal = Refusal{std::string(kReasonCredentialInResult), kCallFailed, "Tool call failed"};
  }
  // What was wrong with an answer not relayed, for the operator (probe HN6: the record said
  // only result-refused or malformed_response).
  std::string detail;
  if (!refusal && shape.object && !shape.readable) {  // no client could read it (probe CU4)
    refusal = Refusal{"result-malformed", kCallFailed, "Tool call failed"};
    detail = shape.why;
  }
  if (refusal) {
    outcome = fb::CallOutcome::Refused;
    error_code = refusal->reason;
    reply = AnswerNotRelayed();
  } else if (shape.object) {
    reply = ToolCallReply::Result(result.result);
    if (shape.tool_error) outcome = fb::CallOutcome::ToolError;
    // A large result becomes a handle its agent reads back (tools/handle_refs.h); the
    // client gets a small result.
    if (options_.handle_result_bytes != 0 && result.result.size() > options_.handle_result_bytes) {
      handle = MakeResultHandle(actor, result.result, shape.tool_error);
      reply = ToolCallReply::Result(handle->reply_json);
    }
  } else if (result.ok()) {
    outcome = fb::CallOutcome::Refused;
    error_code = "result-refused";
    detail = shape.why;
    reply = AnswerNotRelayed();
  } else if (result.error == transport::CallError::kTimeout) {
    // Never written to the child (withdrawn from its queue): it did not happen.
    outcome = result.never_sent ? fb::CallOutcome::Failed : fb::CallOutcome::TimedOut;
    error_code = "timeout";
    reply = ToolCallReply::Error(kCallTimedOut, "Tool call timed out");
  } else if (result.error == transport::CallError::kCancelled ||
             result.error == transport::CallError::kChildExited ||
             result.error == transport::CallError::kShutdown) {
    // The child had the call and may have acted on it before it was told to stop, died or
    // was ended: uncertain, as after a timeout — unless it was never written to the child.
    outcome = result.never_sent ? fb::CallOutcome::Failed : fb::CallOutcome::TimedOut;
    error_code = std::string(transport::CallErrorName(result.error));
    // Ended because its release expired or was superseded, not because Las is ending: the
    // record says which (probe EX2: it read "shutdown" while the server went on serving).
    if (const auto ended = federation_.ReleaseEndReason();
        ended && result.error == transport::CallError::kShutdown) {
      error_code = std::string(*ended);
    }
    reply = result.error == transport::CallError::kCancelled
                ? ToolCallReply::Cancelled(kCallFailed, "Tool call cancelled")
                : ToolCallReply::Error(kCallFailed, "Tool call failed");
  } else if (result.error == transport::CallError::kResponseTooLarge) {
    // The child ran the tool and answered (its answer names the call): certain, and not a
    // failure to retry blindly — the answer was over what Las reads, so it is not relayed.
    outcome = fb::CallOutcome::Refused;
    error_code = std::string(transport::CallErrorName(result.error));
    detail = result.why;
    reply = ToolCallReply::Error(kCallFailed, "Tool call failed: the tool's answer was larger "
                                              "than Las relays");
  } else {
    // The child answered badly (remote_error, malformed_response), or
    // never got the request: child_not_reading (what Las had queued for it passed
    // McpClientOptions::max_write_backlog_bytes), not_ready. Certain either way.
    outcome = fb::CallOutcome::Failed;
    error_code = std::string(transport::CallErrorName(result.error));
    detail = result.error == transport::CallError::kRemoteError
                 ? "the child answered JSON-RPC error " + std::to_string(result.remote_code)
                 : result.why;
    if (result.error == transport::CallError::kRemoteError) {
      reply = ToolCallReply::Error(kCallFailed, "Tool call failed: the tool answered an error");
    } else if (result.error == transport::CallError::kMalformedResponse) {
      reply = AnswerNotRelayed();
    } else {
      reply = ToolCallReply::Error(kCallFailed, "Tool call failed");
    }
  }
  // Only a result the client was given is recorded: a refused one may hold a secret.
  const bool forwarded = shape.object && !refusal;
  auto completed = ToolCallCompletedEvent(
      actor, call->call_id, outcome, Bound(forwarded ? result.result : "", options_.recorded_bytes),
      micros, error_code, detail);
  // The client hears of the call's end once its ToolCallCompleted is written (DESIGN.md:
  // append, fold, respond; probe AO2): a result it was given is in the log, and after a
  // failed write it is given none. Written, not synced: the next sync covers it. A handle
  // must be on disk before the client hears of it: synced. One the log holds, or that an
  // earlier call's append is taking there, is not stored again (probe AJ1): this synced
  // append comes later in the log, so it is on disk with that one.
  std::vector<log::EventDraft> drafts;
  HandlesInCreation* handles = handle ? options_.handles : nullptr;
  if (handle && (handles == nullptr || handles->Absent(handle->id))) {
    if (handles != nullptr) handles->Begin(handle->id);
    drafts.push_back(std::move(handle->draft));
  }
  drafts.push_back(std::move(completed));
  const log::Durability durability = handle ? log::Durability::kSynced : log::Durability::kDeferred;
  appender_.Append(std::move(drafts), durability,
                   [this, call = std::move(call), reply = std::move(reply),
                    handles](Result<log::AppendedRange> stored) mutable {
                     // Folded into the live projections by now (tools/loop_appender.h).
                     if (handles != nullptr) handles->Settled(stored.ok());
                     Finish(*call, stored.ok() ? std::move(reply) : FailedInstead(reply));
                   });
}

const CredentialSpellings& Gateway::CredentialsOf(const std::string& surface) {
  auto known = surface_credentials_.find(surface);
  if (known == surface_credentials_.end()) {
    std::vector<std::string> values = federation_.cross_surface_credentials();
    const trust::CredentialResolver resolve = EnvironmentCredentials(federation_.environment());
    for (const CatalogTool& tool : federation_.catalog().tools()) {
      if (tool.surface == surface) AddCredentialValues(tool.credential_templates, resolve, values);
    }
    known = surface_credentials_.emplace(surface, CredentialSpellings(values)).first;
  }
  return known->second;
}

void Gateway::Finish(ChildCall& call, ToolCallReply reply) { Release(call)(std::move(reply)); }

std::function<void(ToolCallReply)> Gateway::Release(ChildCall& call) {
  call.finished = true;
  --in_flight_;
  if (auto taken = surface_calls_.find(call.surface);
      taken != surface_calls_.end() && --taken->second == 0) {
    surface_calls_.erase(taken);
  }
  if (auto mine = session_calls_.find({call.session.session_id, call.surface});
      mine != session_calls_.end() && --mine->second == 0) {
    session_calls_.erase(mine);
  }
  EraseCall(child_calls_, call.key, &call);
  return std::move(call.done);
}

void Gateway::CallBuiltin(const SessionInfo& session, const std::string& request_id_json,
                          const std::string& call_id, const CatalogTool& tool,
                          const std::string& arguments_json, ProgressSink progress,
                          std::function<void(ToolCallReply)> done) {
  const BuiltinTools::Handler* handler =
      options_.builtins != nullptr ? options_.builtins->Find(tool.qualified_name) : nullptr;
  if (handler == nullptr) {
    Refuse(session, {call_id, request_id_json, tool.surface, tool.tool, "unknown-tool", {}},
           ToolCallReply::Error(kCallRefused, "Unknown tool"), std::move(done));
    return;
  }
  if (tool.schema) {
    if (trust::Verdict valid = trust::ValidateArguments(*tool.schema, arguments_json);
        !valid.ok()) {
      Refuse(session,
             {call_id, request_id_json, tool.surface, tool.tool, valid.reason_name(), valid.detail()},
             SchemaRefusal(valid), std::move(done));
      return;
    }
  }
  CallKey key = KeyOf(session, request_id_json);
  BuiltinCall call{request_id_json, nullptr, std::move(progress)};
  if (handler->cancellable) {
    call.cancel = std::make_shared<BuiltinCancel>();
    builtin_calls_.emplace(key, call.cancel);
  }
  // What the handler reads (state, messages, grants) may include events written but not yet
  // on disk — another agent's write whose sync is in flight — or decided earlier in this
  // turn and still queued (a completion, a CAS: probe CM1): its answer waits for them.
  const LoopAppender::Horizon visible = appender_.horizon();
  handler->call(
      session, call, arguments_json.empty() ? std::string("{}") : arguments_json,
      [this, session, call_id, request_id_json, key = std::move(key), cancel = call.cancel,
       surface = tool.surface, name = tool.tool, visible,
       done = std::move(done)](ToolCallReply reply) mutable {
        if (cancel) EraseCall(builtin_calls_, key, cancel.get());
        const size_t held = reply.result_json.size();
        held_answers_.Hold(session.session_id, held);
        appender_.AfterDurable(visible, [this, session, call_id, request_id_json, surface, name,
                                         held, reply = std::move(reply),
                                         done = std::move(done)](Status durable) mutable {
          held_answers_.Release(session.session_id, held);
          if (!durable.ok()) reply = FailedInstead(reply);
          if (reply.refusal.empty()) {
            done(std::move(reply));
            return;
          }
          const std::string reason(reply.refusal);
          Refuse(session, {call_id, request_id_json, surface, name, reason, {}},
                 std::move(reply), std::move(done));
        });
      });
}

std::optional<Refusal> Gateway::CheckResult(const SessionInfo& session,
                                            const std::string& surface,
                                            const std::string& tool_name,
                                            std::string& result_json) {
  if (options_.guards.empty()) return std::nullopt;
  const CatalogTool* tool = federation_.catalog().Find(QualifiedName(surface, tool_name));
  if (tool == nullptr) return Refusal{"unknown-tool", kCallFailed, "Tool call failed"};
  for (CallGuard* guard : options_.guards) {
    if (auto refusal = guard->OnResult(session, *tool, result_json)) return refusal;
  }
  return std::nullopt;
}

void Gateway::CloseSession(const SessionInfo& session, std::string_view reason,
                           std::function<void()> done) {
  appender_.Append({SessionClosedEvent(ActorOf(session), reason)}, log::Durability::kSynced,
                   [done = std::move(done)](Result<log::AppendedRange>) { done(); });
}

}  // namespace las::tools
