#include "tools/gateway.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "tools/builtin_tools.h"
#include "tools/credentials.h"
#include "tools/decision_events.h"
#include "tools/docs_mcp.h"
#include "tools/handle_refs.h"
#include "transport/json_text.h"
#include "transport/mcp_client.h"
#include "trust/argument_schema.h"
#include "trust/credential_injection.h"

namespace las::tools {
namespace {

Actor ActorOf(const SessionInfo& session) { return {session.agent_id, session.session_id}; }

// A tools/call result must be one JSON object; its top-level `isError: true` marks a tool
// error (nested objects may carry the same key and do not count).
struct ResultShape {
  bool object = false;
  bool tool_error = false;
};

ResultShape ShapeOf(std::string_view text) {
  std::vector<transport::JsonMember> members;
  bool is_object = false;
  ResultShape shape;
  if (transport::ObjectMembers(text, &members, transport::kDefaultMaxDepth, &is_object) !=
          transport::JsonTextError::kNone ||
      !is_object) {
    return shape;
  }
  shape.object = true;
  for (const auto& member : members) {
    if (member.key == "isError" && member.raw == "true") shape.tool_error = true;
  }
  return shape;
}

}  // namespace

Gateway::Gateway(boost::asio::io_context& io, log::EventLog& log, Federation& federation,
                 GatewayOptions options)
    : io_(io), log_(log), federation_(federation), options_(std::move(options)) {}

void Gateway::OnSessionOpened(const SessionInfo& session) {
  log_.AppendAsync({SessionOpenedEvent(ActorOf(session), session.protocol_version,
                                       session.client_name, session.client_version,
                                       session.transport.empty() ? "stdio" : session.transport)},
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

void Gateway::Deny(const SessionInfo& session, const std::string& call_id,
                   const std::string& surface, const std::string& tool, std::string_view reason) {
  log_.AppendAsync({ToolCallDeniedEvent(ActorOf(session), call_id, surface, tool, reason)},
                   log::Durability::kDeferred, [](Result<log::AppendedRange>) {});
}

void Gateway::CallTool(const SessionInfo& session, const std::string& request_id_json,
                       const std::string& name, const std::string& arguments_json,
                       std::function<void(ToolCallReply)> done) {
  const std::string call_id = options_.new_call_id ? options_.new_call_id() : request_id_json;
  const CatalogTool* tool = federation_.catalog().Find(name);
  if (tool == nullptr) {
    // A signed tool a local policy kept out of the catalog is denied with that policy's
    // reason (docs/POLICIES.md); the client sees the same "Unknown tool".
    if (auto left_out = federation_.LeftOutReason(name)) {
      const size_t split = name.find(kNameSeparator);
      Deny(session, call_id, name.substr(0, split), name.substr(split + kNameSeparator.size()),
           *left_out);
    } else {
      Deny(session, call_id, "", name.substr(0, 256), "unknown-tool");
    }
    done(ToolCallReply::Error(kCallRefused, "Unknown tool"));
    return;
  }
  for (CallGuard* guard : options_.guards) {
    if (auto refusal = guard->BeforeCall(session, *tool, arguments_json)) {
      Deny(session, call_id, tool->surface, tool->tool, refusal->reason);
      done(ToolCallReply::Error(refusal->error_code, refusal->message));
      return;
    }
  }
  if (tool->builtin) {
    CallBuiltin(session, call_id, *tool, arguments_json, std::move(done));
    return;
  }
  transport::McpClient* client = federation_.ClientFor(tool->surface);
  if (client == nullptr) {
    Deny(session, call_id, tool->surface, tool->tool, "surface-unavailable");
    done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
    return;
  }

  // Argument policy. The log records the model's arguments, never the injected secrets.
  trust::ToolBinding binding;
  binding.name = tool->tool;
  binding.credential_templates = tool->credential_templates;
  auto injected = trust::InjectCredentials(arguments_json, binding,
                                           EnvironmentCredentials(federation_.environment()));
  if (!injected.ok()) {
    Deny(session, call_id, tool->surface, tool->tool, injected.verdict().reason_name());
    done(ToolCallReply::Error(kCallRefused, "Arguments refused by policy"));
    return;
  }
  // Against the signed schema, with Las's own credential arguments in place (a templated
  // argument the schema requires is satisfied by Las, never by the model).
  if (trust::Verdict valid = trust::ValidateArguments(*tool->schema, *injected); !valid.ok()) {
    Deny(session, call_id, tool->surface, tool->tool, valid.reason_name());
    done(ToolCallReply::Error(kCallRefused, "Arguments do not match the tool's input schema"));
    return;
  }

  const Actor actor = ActorOf(session);
  auto requested = ToolCallRequestedEvent(actor, call_id, tool->surface, tool->tool,
                                          tool->definition_sha256,
                                          Bound(arguments_json, options_.recorded_bytes),
                                          request_id_json);
  ++in_flight_;
  auto on_durable = [this, session, actor, call_id, surface = tool->surface, tool_name = tool->tool,
                     arguments = std::move(*injected),
                     done = std::move(done)](Result<log::AppendedRange> appended) mutable {
    // Runs on the log's thread: hop back to the loop before touching anything.
    boost::asio::post(io_, [this, session, actor, call_id, surface, tool_name,
                            arguments = std::move(arguments), done = std::move(done),
                            ok = appended.ok()]() mutable {
      transport::McpClient* child = federation_.ClientFor(surface);
      if (!ok || child == nullptr) {
        --in_flight_;
        done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
        return;
      }
      const int64_t started = options_.clock->NowNanos();
      transport::CallOptions call_options;
      call_options.timeout = std::chrono::milliseconds(options_.call_timeout_ms);
      child->CallTool(tool_name, arguments, call_options,
                      [this, session, actor, call_id, started, surface, tool_name,
                       done = std::move(done)](transport::CallResult result) mutable {
                        const int64_t micros = (options_.clock->NowNanos() - started) / 1000;
                        ToolCallReply reply;
                        std::optional<ResultHandle> handle;
                        fb::CallOutcome outcome = fb::CallOutcome::Ok;
                        std::string error_code;
                        const ResultShape shape =
                            result.ok() && result.result.size() <= options_.max_result_bytes
                                ? ShapeOf(result.result)
                                : ResultShape{};
                        std::optional<Refusal> refusal;
                        if (shape.object) refusal = CheckResult(session, surface, tool_name,
                                                                result.result);
                        if (refusal) {
                          outcome = fb::CallOutcome::Refused;
                          error_code = refusal->reason;
                          reply = ToolCallReply::Error(kCallFailed, "Tool call failed");
                        } else if (shape.object) {
                          reply = ToolCallReply::Result(result.result);
                          if (shape.tool_error) outcome = fb::CallOutcome::ToolError;
                          // A large result becomes a handle its agent reads back
                          // (tools/handle_refs.h); the client gets a small result.
                          if (options_.handle_result_bytes != 0 &&
                              result.result.size() > options_.handle_result_bytes) {
                            handle = MakeResultHandle(actor, result.result, shape.tool_error);
                            reply = ToolCallReply::Result(handle->reply_json);
                          }
                        } else if (result.ok()) {
                          outcome = fb::CallOutcome::Refused;
                          error_code = "result-refused";
                          reply = ToolCallReply::Error(kCallFailed, "Tool call failed");
                        } else if (result.error == transport::CallError::kTimeout) {
                          outcome = fb::CallOutcome::TimedOut;
                          error_code = "timeout";
                          reply = ToolCallReply::Error(kCallTimedOut, "Tool call timed out");
                        } else {
                          outcome = fb::CallOutcome::Failed;
                          error_code = std::string(transport::CallErrorName(result.error));
                          reply = ToolCallReply::Error(kCallFailed, "Tool call failed");
                        }
                        auto completed = ToolCallCompletedEvent(
                            actor, call_id, outcome,
                            Bound(result.ok() && !refusal ? result.result : "",  // a refused
                                  options_.recorded_bytes),  // result may hold a secret
                            micros, error_code);
                        if (handle) {
                          // The handle must be on disk before the client hears of it.
                          log_.AppendAsync(
                              {std::move(handle->draft), std::move(completed)},
                              log::Durability::kSynced,
                              [this, done = std::move(done), reply = std::move(reply)](
                                  Result<log::AppendedRange> stored) mutable {
                                boost::asio::post(io_, [this, done = std::move(done),
                                                        reply = std::move(reply),
                                                        ok = stored.ok()]() mutable {
                                  --in_flight_;
                                  done(ok ? std::move(reply)
                                          : ToolCallReply::Error(kCallFailed, "Tool call failed"));
                                });
                              });
                          return;
                        }
                        log_.AppendAsync({std::move(completed)}, log::Durability::kDeferred,
                                         [](Result<log::AppendedRange>) {});
                        --in_flight_;
                        done(std::move(reply));
                      });
    });
  };
  log_.AppendAsync({std::move(requested)}, options_.request_durability, std::move(on_durable));
}

void Gateway::CallBuiltin(const SessionInfo& session, const std::string& call_id,
                          const CatalogTool& tool, const std::string& arguments_json,
                          std::function<void(ToolCallReply)> done) {
  const BuiltinHandler* handler =
      options_.builtins != nullptr ? options_.builtins->Find(tool.qualified_name) : nullptr;
  if (handler == nullptr) {
    Deny(session, call_id, tool.surface, tool.tool, "unknown-tool");
    done(ToolCallReply::Error(kCallRefused, "Unknown tool"));
    return;
  }
  if (tool.schema) {
    if (trust::Verdict valid = trust::ValidateArguments(*tool.schema, arguments_json);
        !valid.ok()) {
      Deny(session, call_id, tool.surface, tool.tool, valid.reason_name());
      done(ToolCallReply::Error(kCallRefused, "Arguments do not match the tool's input schema"));
      return;
    }
  }
  (*handler)(session, arguments_json.empty() ? std::string("{}") : arguments_json,
             std::move(done));
}

std::optional<Refusal> Gateway::CheckResult(const SessionInfo& session,
                                            const std::string& surface,
                                            const std::string& tool_name,
                                            const std::string& result_json) {
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
  log_.AppendAsync({SessionClosedEvent(ActorOf(session), reason)}, log::Durability::kSynced,
                   [this, done = std::move(done)](Result<log::AppendedRange>) mutable {
                     boost::asio::post(io_, std::move(done));
                   });
}

}  // namespace las::tools
