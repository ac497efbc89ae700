#include "tools/mcp_endpoint.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "tools/decision_events.h"
#include "tools/grant_policy.h"
#include "transport/json_text.h"
#include "transport/jsonrpc.h"
#include "trust/canonical_json.h"

namespace las::tools {
namespace {

using nlohmann::json;
namespace rpc = las::transport;

// A progress number as JSON (finite by transport::CallProgress's contract).
std::string JsonNumber(double value) {
  auto text = trust::FormatJcsNumber(value);
  return text.ok() ? std::move(text).value() : std::string("0");
}

// Parses params text (already well-formed JSON from the JSON-RPC parser); empty = {}.
json ParamsObject(const std::string& params) {
  if (params.empty()) return json::object();
  return json::parse(params, nullptr, /*allow_exceptions=*/false);
}

constexpr std::string_view kMemberTwice = "params name a member more than once";
constexpr std::string_view kAgentBound = "agentId is bound at initialize and cannot change";
constexpr std::string_view kParamsNotAnObject = "params must be an object";
constexpr std::string_view kNoDefaultAgent =
    "params.agentId is required: this session has no default agent (its bridge hello was "
    "malformed)";

}  // namespace

// The top-level members of a params object, scanned without building a tree (the hot
// path: every request's _meta, every tools/call). Well-formed JSON by now.
struct ParamsView {
  bool object = false;
  std::vector<transport::JsonMember> members;
  // The last member named `key`, as a JSON parser keeps it; nullptr if none.
  const transport::JsonMember* Find(std::string_view key) const {
    for (auto it = members.rbegin(); it != members.rend(); ++it) {
      if (it->key == key) return &*it;
    }
    return nullptr;
  }
  // Whether two members share a name: readers that keep the first and the last would see
  // different requests (a JSON parser keeps the last), so such params are refused.
  bool NamesAMemberTwice() const {
    std::vector<std::string_view> keys;
    keys.reserve(members.size());
    for (const auto& member : members) keys.push_back(member.key);
    std::sort(keys.begin(), keys.end());
    return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
  }
};

namespace {

ParamsView ViewParams(std::string_view params, size_t max_depth) {
  ParamsView view;
  if (params.empty()) {
    view.object = true;  // no params: {}
    return view;
  }
  bool is_object = false;
  view.object = transport::ObjectMembers(params, &view.members, max_depth, &is_object) ==
                    transport::JsonTextError::kNone &&
                is_object;
  return view;
}

bool IsListMethod(std::string_view method) {
  return method == "tools/list" || method == "resources/list" ||
         method == "resources/templates/list" || method == "prompts/list";
}

// The methods answered besides initialize (the others are -32601).
bool IsServedMethod(std::string_view method) {
  return method == "ping" || method == "tools/call" || method == "resources/read" ||
         method == "prompts/get" || IsListMethod(method);
}

// A cursor given (null counts as absent).
bool HasCursor(const ParamsView& view) {
  const transport::JsonMember* cursor = view.Find("cursor");
  return cursor != nullptr && cursor->type != transport::JsonType::kNull;
}

std::optional<std::string> StringMember(const ParamsView& view, std::string_view key) {
  const transport::JsonMember* member = view.Find(key);
  if (member == nullptr || member->type != transport::JsonType::kString) return std::nullopt;
  return transport::DecodeJsonString(member->raw);
}

// Whether params, or the objects Las reads inside them (_meta, clientInfo), name a member
// twice (probe Q3: a repeated clientInfo name or progressToken was read as its last).
bool NamesAMemberTwice(const ParamsView& params, size_t max_depth) {
  if (params.NamesAMemberTwice()) return true;
  for (std::string_view key : {"_meta", "clientInfo"}) {
    const transport::JsonMember* inner = params.Find(key);
    if (inner != nullptr && inner->type == transport::JsonType::kObject &&
        ViewParams(inner->raw, max_depth).NamesAMemberTwice()) {
      return true;
    }
  }
  return false;
}

// Whether a request after initialize names an agent other than `bound`: an agentId, in
// params or in params._meta, that is anything but that string (probes AH2, AI2: another
// spelling or a non-string value ran silently as the bound agent).
bool NamesAnotherAgent(const ParamsView& params, const std::string& bound, size_t max_depth) {
  auto differs = [&bound](const ParamsView& view) {
    const transport::JsonMember* agent = view.Find("agentId");
    if (agent == nullptr) return false;
    if (agent->type != transport::JsonType::kString) return true;
    return transport::DecodeJsonString(agent->raw) != bound;
  };
  if (differs(params)) return true;
  const transport::JsonMember* meta = params.Find("_meta");
  return meta != nullptr && meta->type == transport::JsonType::kObject &&
         differs(ViewParams(meta->raw, max_depth));
}

// initialize's agent id: params.agentId or params._meta.agentId (both: they must agree),
// else nullopt (the default agent). One that is there but is not a string is an error,
// never the default.
Result<std::optional<std::string>> NamedAgentId(const json& params) {
  std::optional<std::string> named;
  if (auto given = params.find("agentId"); given != params.end()) {
    if (!given->is_string()) return InvalidArgument("agentId must be a string");
    named = given->get<std::string>();
  }
  auto meta = params.find("_meta");
  if (meta == params.end()) return named;
  if (!meta->is_object()) return InvalidArgument("_meta must be an object");
  auto agent = meta->find("agentId");
  if (agent == meta->end()) return named;
  if (!agent->is_string()) return InvalidArgument("agentId must be a string");
  // Probe AI3: two names, one bound silently, the other what a proxy reading _meta shows.
  if (named && *named != agent->get<std::string>()) {
    return InvalidArgument("agentId and _meta.agentId name different agents");
  }
  return std::optional<std::string>(agent->get<std::string>());
}

// initialize's members as 2024-11-05 types them, where present.
Status CheckInitializeTypes(const json& params) {
  auto has = [&](const json& object, const char* key, bool (json::*is)() const) {
    auto it = object.find(key);
    return it == object.end() || ((*it).*is)();
  };
  if (!has(params, "protocolVersion", &json::is_string)) {
    return InvalidArgument("protocolVersion must be a string");
  }
  if (!has(params, "capabilities", &json::is_object)) {
    return InvalidArgument("capabilities must be an object");
  }
  if (!has(params, "clientInfo", &json::is_object)) {
    return InvalidArgument("clientInfo must be an object");
  }
  if (auto info = params.find("clientInfo"); info != params.end()) {
    if (!has(*info, "name", &json::is_string) || !has(*info, "version", &json::is_string)) {
      return InvalidArgument("clientInfo's name and version must be strings");
    }
  }
  return Status::Ok();
}

std::string StringField(const json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

McpEndpoint::McpEndpoint(EndpointOptions options, EndpointBackend& backend, WriteLine write)
    : options_(std::move(options)), backend_(backend), write_(std::move(write)) {}

namespace {

// The id read from the start of a line that is no valid request, to answer it by. One over
// kMaxRequestIdBytes is none, as for a valid request (probe AB7: a 200 KB id came back
// whole), and so is an id named twice: answered by the first, the line could settle
// another request of a client whose parser kept the last (probes HN3, HP1).
std::optional<std::string> SalvageRequestId(std::string_view line, size_t max_depth) {
  if (transport::ShowsTopLevelMemberTwice(line, "id")) return std::nullopt;
  auto id = transport::SalvageTopLevelMember(line, "id", max_depth);
  if (id && id->size() > kMaxRequestIdBytes) return std::nullopt;
  return id;
}

// The id to answer a line (or a batch's element) that is no valid message by: the parser's,
// else one read from its start. None for an id too long to echo — a null id would settle the
// TypeScript SDK's request 0 (it reads null as Number(null)), as for a line with no readable
// id — nor for a response, broken as it is (as at OnOversizedLine), nor for a line naming
// its id twice, whose parse gives none (probe HN3: answered by the first, it could settle
// another request of a client whose parser kept the last).
std::optional<std::string> IdOfInvalid(std::string_view text, const rpc::ParseError& error,
                                       size_t max_depth) {
  if (error.reason == rpc::ParseFailure::kIdTooLong) return std::nullopt;
  if (error.reason == rpc::ParseFailure::kDuplicateMember && !error.id) return std::nullopt;
  if (rpc::ShownKind(text) == rpc::MessageKind::kResponse) return std::nullopt;
  return error.id ? error.id : SalvageRequestId(text, max_depth);
}

// Whether `line` begins with '[': a batch, however broken further on.
bool ShowsArray(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && line[first] == '[';
}

rpc::ParsedLine ParseClientLine(std::string_view line, const EndpointOptions& options) {
  return rpc::ParseMessage(line, {.max_line_bytes = options.max_line_bytes,
                                  .max_depth = options.max_depth,
                                  .max_id_bytes = kMaxRequestIdBytes});
}

// The id an over-long line is refused by, read from its end (the id written last): one of
// at most kMaxRequestIdBytes, as for a valid request.
std::optional<std::string> TrailingRequestId(std::string_view tail) {
  auto id = transport::SalvageTrailingMember(tail, "id");
  if (id && id->size() > kMaxRequestIdBytes) return std::nullopt;
  return id;
}

// The elements of a batch line that RefuseBatch reads.
std::vector<std::string_view> BatchElements(std::string_view line, size_t max_depth) {
  std::vector<std::string_view> elements;
  if (transport::ArrayElements(line, &elements, max_depth) != transport::JsonTextError::kNone) {
    // One element too deep or holding a lone surrogate escape makes the whole line invalid
    // JSON: the requests beside it are still refused by their ids (probe EA1: none was
    // answered). A string, a number, ... yields no elements: it has no id to answer.
    elements = transport::SalvageArrayElements(line);
  }
  // Only the first kMaxBatchElementsRead are read: the answers of one line are written at
  // once, past the connection's answer budget, which is checked between lines (probe ED3:
  // a 4 MiB line of `{"id":N}` drew 300,000 answers, 45 MB held for a client not reading).
  if (elements.size() > kMaxBatchElementsRead) elements.resize(kMaxBatchElementsRead);
  return elements;
}

// The id a batch's element is refused by: a request's, or one read from an element that is
// no valid request, unless it shows itself a response; none for a notification.
std::optional<std::string> BatchElementId(std::string_view element, const EndpointOptions& options) {
  rpc::ParsedLine one = ParseClientLine(element, options);
  if (!one.ok()) return IdOfInvalid(element, one.error, options.max_depth);
  if (one.message->kind == rpc::MessageKind::kRequest) return one.message->id;
  return std::nullopt;
}

}  // namespace

bool McpEndpoint::OwesAnswer(std::string_view line, const EndpointOptions& options) {
  line = transport::WithoutByteOrderMark(line);
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return false;
  rpc::ParsedLine parsed = ParseClientLine(line, options);
  if (parsed.ok()) return parsed.message->kind == rpc::MessageKind::kRequest;
  if (parsed.error.reason == rpc::ParseFailure::kNotAnObject || ShowsArray(line)) {
    for (const std::string_view element : BatchElements(line, options.max_depth)) {
      if (BatchElementId(element, options)) return true;
    }
    return false;
  }
  return IdOfInvalid(line, parsed.error, options.max_depth).has_value();
}

bool McpEndpoint::OwesAnswerForOversized(std::string_view prefix, std::string_view tail,
                                         const EndpointOptions& options) {
  prefix = transport::WithoutByteOrderMark(prefix);
  if (rpc::ShownKind(prefix) == rpc::MessageKind::kResponse) return false;
  return SalvageRequestId(prefix, options.max_depth) || TrailingRequestId(tail);
}

void McpEndpoint::OnOversizedLine(std::string_view prefix) {
  prefix = transport::WithoutByteOrderMark(prefix);
  // A response (Las sends the client no requests) is dropped, by its end's id too: an
  // error under its id could settle the client's own request of that id (probe AS3).
  if (rpc::ShownKind(prefix) == rpc::MessageKind::kResponse) {
    oversized_answered_ = true;
    return;
  }
  auto id = SalvageRequestId(prefix, options_.max_depth);
  oversized_answered_ = id.has_value();
  if (id) write_(rpc::MakeErrorResponse(*id, rpc::kInvalidRequest, "Message too large"));
}

void McpEndpoint::OnOversizedLineEnd(std::string_view tail) {
  if (std::exchange(oversized_answered_, true)) return;
  if (auto id = TrailingRequestId(tail)) {
    write_(rpc::MakeErrorResponse(*id, rpc::kInvalidRequest, "Message too large"));
  }
}

void McpEndpoint::OnLine(std::string_view line) {
  // The request behind a byte order mark must not go unanswered.
  line = transport::WithoutByteOrderMark(line);
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;  // blank line
  rpc::ParsedLine parsed = ParseClientLine(line, options_);
  if (!parsed.ok()) {
    // A line that is not valid JSON may still begin with a readable id: answer that id,
    // so the client's request does not hang. With no id at all the line is dropped.
    rpc::ParseError error = parsed.error;
    if (error.reason == rpc::ParseFailure::kNotAnObject || ShowsArray(line)) return RefuseBatch(line);
    error.id = IdOfInvalid(line, error, options_.max_depth);
    if (error.id) write_(rpc::ErrorResponse(error));
    return;
  }
  const rpc::Message& message = *parsed.message;
  switch (message.kind) {
    case rpc::MessageKind::kResponse:
      return;  // Las sends the client no requests
    case rpc::MessageKind::kNotification:
      // Never answered. notifications/cancelled stops a call in flight; the rest
      // (notifications/initialized, ...) change nothing.
      if (message.method == "notifications/cancelled") OnCancelled(message.params);
      return;
    case rpc::MessageKind::kRequest:
      HandleRequest(message.id, message.method, message.params);
      return;
  }
}

void McpEndpoint::RefuseBatch(std::string_view line) {
  // MCP 2024-11-05 has no batches. Each request in one is refused by its own id, so that a
  // client that batches is not left waiting (probe BC4); never with a null id, nor as an
  // array (see OnLine). An element that is no valid request is answered as such a line
  // would be by itself: by the id read from it, if any, unless it shows itself a response.
  for (const std::string_view element : BatchElements(line, options_.max_depth)) {
    if (std::optional<std::string> id = BatchElementId(element, options_)) {
      write_(rpc::MakeErrorResponse(*id, rpc::kInvalidRequest,
                                    "Batches are not supported: send one message per line"));
    }
  }
}

void McpEndpoint::HandleRequest(const std::string& id, const std::string& method,
                                const std::string& params) {
  if (method == "initialize") return Initialize(id, params);
  // MCP gives every method object params: ones given by position would otherwise be
  // ignored, the request run as if they had not been sent (probe AR4).
  if (!params.empty() && transport::JsonTypeOf(params) != transport::JsonType::kObject &&
      IsServedMethod(method)) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams, kParamsNotAnObject));
    return;
  }
  // MCP 2024-11-05 (lifecycle): before initialization a client may send pings, nothing else.
  if (method == "ping" && !session_) {
    write_(rpc::MakeResultResponse(id, "{}"));
    return;
  }
  // A method Las never serves is -32601 before initialization too: a client probing for a
  // newer protocol's method (the MCP inspector's `server/discover`) learns it is not there,
  // not that it came too early (probe IJ3).
  if (!session_) {
    write_(IsServedMethod(method)
               ? rpc::MakeErrorResponse(id, rpc::kInvalidRequest, "Session not initialized")
               : rpc::MakeErrorResponse(id, rpc::kMethodNotFound));
    return;
  }
  const ParamsView view = ViewParams(params, options_.max_depth);
  if (NamesAMemberTwice(view, options_.max_depth)) {
    // The tool it names is not taken from params that name members twice.
    RefuseInvalidParams(id, method, "", "params-member-twice", kMemberTwice);
    return;
  }
  // As initialize: a _meta that is not an object might name anyone (probe AI2).
  if (const transport::JsonMember* meta = view.Find("_meta");
      meta != nullptr && meta->type != transport::JsonType::kObject) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams, "_meta must be an object"));
    return;
  }
  if (NamesAnotherAgent(view, session_->agent_id, options_.max_depth)) {
    // An attempt to act as another agent: what an auditor looks for (probe BH2).
    RefuseInvalidParams(id, method, StringMember(view, "name").value_or(""), "agent-id-change",
                        kAgentBound);
    return;
  }
  if (method == "ping") {
    write_(rpc::MakeResultResponse(id, "{}"));
  } else if (IsListMethod(method) && HasCursor(view)) {
    // Every list is one page with no nextCursor, so no cursor can be valid (MCP 2024-11-05,
    // pagination: an invalid cursor SHOULD be -32602).
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams, "Invalid cursor"));
  } else if (method == "tools/list") {
    write_(rpc::MakeResultResponse(id, backend_.ListTools(*session_)));
  } else if (method == "tools/call") {
    CallTool(id, view);
  } else if (method == "resources/list") {
    write_(rpc::MakeResultResponse(id, backend_.ListResources(*session_)));
  } else if (method == "resources/templates/list") {
    // Part of the resources capability Las declares; it has no templates. Clients ask
    // for them at connect, and some give up on -32601 (probe CU2).
    write_(rpc::MakeResultResponse(id, R"({"resourceTemplates":[]})"));
  } else if (method == "resources/read") {
    ReadResource(id, params);
  } else if (method == "prompts/list") {
    write_(rpc::MakeResultResponse(id, backend_.ListPrompts(*session_)));
  } else if (method == "prompts/get") {
    GetPrompt(id, params);
  } else {
    write_(rpc::MakeErrorResponse(id, rpc::kMethodNotFound));
  }
}

void McpEndpoint::Initialize(const std::string& id, const std::string& params) {
  if (session_) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidRequest, "Already initialized"));
    return;
  }
  const json parsed = ParamsObject(params);
  if (!parsed.is_object()) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams, kParamsNotAnObject));
    return;
  }
  // An agentId or _meta named twice too: a proxy or a log reading the first would see
  // another agent than the one bound.
  if (NamesAMemberTwice(ViewParams(params, options_.max_depth), options_.max_depth)) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams, kMemberTwice));
    return;
  }
  // Absent members are tolerated (clients that send less than 2024-11-05 asks for); present
  // ones must have its types.
  if (Status typed = CheckInitializeTypes(parsed); !typed.ok()) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams, typed.message()));
    return;
  }
  // A named agent, even an empty name, is checked as given; only an absent one defaults.
  Result<std::optional<std::string>> named = NamedAgentId(parsed);
  if (!named.ok()) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams, named.status().message()));
    return;
  }
  // No default agent: a bridge hello that named one wrongly binds none (docs/DAEMON.md).
  // Said so, not as a bad id the client never sent (probe AX4).
  if (!named->has_value() && options_.default_agent_id.empty()) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams, kNoDefaultAgent));
    return;
  }
  const std::string agent = named->value_or(options_.default_agent_id);
  if (!IsValidAgentId(agent)) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams, kAgentIdRule));
    return;
  }
  SessionInfo session;
  session.agent_id = agent;
  session.implicit_root_waived = options_.waive_implicit_root;
  // Recorded in SessionOpened and kept by the sessions projection for good: bounded (probe
  // P1: 1 MB client names grew every later server's memory).
  auto recorded = [](std::string text) { return Bound(text, kMaxRecordedClientTextBytes).text; };
  session.protocol_version = recorded(StringField(parsed, "protocolVersion"));
  session.transport = options_.transport;
  if (auto info = parsed.find("clientInfo"); info != parsed.end()) {
    session.client_name = recorded(StringField(*info, "name"));
    session.client_version = recorded(StringField(*info, "version"));
  }
  if (options_.required_agent_id && agent != *options_.required_agent_id) {
    if (!refusal_reported_) {
      refusal_reported_ = true;
      backend_.OnSessionRefused(session, options_.required_agent_reason);
    }
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams,
                                  "Session refused: while Skarbiec is served, only the agent "
                                  "SKARBIEC_MCP_AGENT_ID names may open a session (a session's "
                                  "agent is initialize's agentId, else LAS_AGENT_ID, else "
                                  "default)"));
    return;
  }
  session.session_id = options_.new_session_id ? options_.new_session_id() : "session";
  session_ = session;
  backend_.OnSessionOpened(*session_);
  const json result = {
      {"protocolVersion", "2024-11-05"},
      {"capabilities",
       {{"tools", {{"listChanged", false}}},
        {"resources", {{"subscribe", false}, {"listChanged", false}}},
        {"prompts", {{"listChanged", false}}}}},
      {"serverInfo", {{"name", "las"}, {"version", options_.server_version}}},
  };
  write_(rpc::MakeResultResponse(id, DumpJson(result)));
}

void McpEndpoint::CallTool(const std::string& id, const ParamsView& params) {
  std::optional<std::string> name = StringMember(params, "name");
  if (!params.object || !name) {  // a member named twice was refused before
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams));
    return;
  }
  // The client's exact text, not a re-serialization: integers beyond 64 bits and repeated
  // keys must reach the tool as sent (reducers/json_value.h refuses the latter).
  // Arguments that are not an object go to the backend as they are: its argument policy
  // refuses them (arguments-invalid) and records the refusal, as for any other.
  std::string arguments = "{}";
  if (const auto* args = params.Find("arguments");
      args != nullptr && args->type != transport::JsonType::kNull) {
    arguments = std::string(args->raw);
  }
  TrackedCall call = Track(id);
  ProgressSink progress = ProgressTo(call.key, call.ticket, params);
  backend_.CallTool(*session_, id, *name, arguments, std::move(progress), std::move(call.answer));
}

void McpEndpoint::RefuseInvalidParams(const std::string& id, std::string_view method,
                                      const std::string& name, std::string_view reason,
                                      std::string_view message) {
  if (method != "tools/call") {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams, message));
    return;
  }
  // A call is recorded refused, as every refused call is: what was denied, and why.
  backend_.RefuseCall(*session_, id, name, reason,
                      ToolCallReply::Error(rpc::kInvalidParams, message), Track(id).answer);
}

McpEndpoint::TrackedCall McpEndpoint::Track(const std::string& id) {
  ++in_flight_;
  TrackedCall call;
  call.key = rpc::RequestIdKey(id);
  CallsOfId& calls_of_id = calls_[call.key];
  ++calls_of_id.count;
  call.ticket = calls_of_id.latest_ticket = next_ticket_++;
  call.answer = [this, id, key = call.key, ticket = call.ticket](ToolCallReply reply) {
    auto calls = calls_.find(key);
    const bool cancelled = calls != calls_.end() && ticket <= calls->second.cancelled_through;
    if (cancelled) {
      --calls->second.cancelled;
      --cancelled_in_flight_;
    }
    if (calls != calls_.end() && --calls->second.count == 0) calls_.erase(calls);
    if (cancelled && reply.cancelled) {
      // MCP: a cancelled request gets no response. One that finished before the cancel
      // could stop it is answered (its ledger entry says it happened; the client, which
      // raced its cancel against the answer, may ignore it).
    } else if (reply.error_code != 0) {
      const std::string message =
          reply.error_detail.empty() ? std::string(reply.error_message)
                                     : std::string(reply.error_message) + ": " + reply.error_detail;
      write_(rpc::MakeErrorResponse(id, reply.error_code, message, reply.error_data));
    } else {
      write_(rpc::MakeResultResponse(id, reply.result_json));
    }
    if (--in_flight_ == 0 && on_idle_) on_idle_();
  };
  return call;
}

ProgressSink McpEndpoint::ProgressTo(const std::string& key, uint64_t ticket,
                                     const ParamsView& params) {
  const transport::JsonMember* meta = params.Find("_meta");
  if (meta == nullptr || meta->type != transport::JsonType::kObject) return nullptr;
  std::vector<transport::JsonMember> members;
  if (transport::ObjectMembers(meta->raw, &members, options_.max_depth) !=
      transport::JsonTextError::kNone) {
    return nullptr;
  }
  for (const auto& member : members) {
    if (member.key != "progressToken") continue;
    if (member.type != transport::JsonType::kString &&
        member.type != transport::JsonType::kNumber) {
      return nullptr;
    }
    return [this, key, ticket, token = std::string(member.raw)](const ToolCallProgress& progress) {
      auto calls = calls_.find(key);
      if (calls == calls_.end() || ticket <= calls->second.cancelled_through) return;
      if (output_congested_ && output_congested_()) return;
      std::string notice = "{\"progressToken\":" + token + ",\"progress\":" +
                           JsonNumber(progress.progress);
      if (progress.total) notice += ",\"total\":" + JsonNumber(*progress.total);
      notice += "}";
      write_(rpc::MakeNotification("notifications/progress", notice));
    };
  }
  return nullptr;
}

void McpEndpoint::OnCancelled(const std::string& params) {
  if (!session_) return;
  const std::optional<std::string> id = rpc::CancelledRequestId(params, options_.max_depth);
  if (!id) return;
  auto calls = calls_.find(rpc::RequestIdKey(*id));
  if (calls == calls_.end() || calls->second.cancelled_through == calls->second.latest_ticket) {
    return;  // nothing under this id, or cancelled already
  }
  calls->second.cancelled_through = calls->second.latest_ticket;
  cancelled_in_flight_ += calls->second.count - calls->second.cancelled;  // every one in flight
  calls->second.cancelled = calls->second.count;
  backend_.CancelCall(*session_, calls->first);
}

void McpEndpoint::ReadResource(const std::string& id, const std::string& params) {
  const json parsed = ParamsObject(params);
  auto uri = parsed.is_object() ? parsed.find("uri") : parsed.end();
  if (uri == parsed.end() || !uri->is_string()) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams));
    return;
  }
  auto result = backend_.ReadResource(*session_, uri->get<std::string>());
  if (!result) {
    write_(rpc::MakeErrorResponse(id, rpc::kResourceNotFound, "Resource not found"));
    return;
  }
  write_(rpc::MakeResultResponse(id, *result));
}

void McpEndpoint::GetPrompt(const std::string& id, const std::string& params) {
  const json parsed = ParamsObject(params);
  auto name = parsed.is_object() ? parsed.find("name") : parsed.end();
  if (name == parsed.end() || !name->is_string()) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams));
    return;
  }
  std::string arguments = "{}";
  if (auto args = parsed.find("arguments"); args != parsed.end() && !args->is_null()) {
    if (!args->is_object()) {
      write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams));
      return;
    }
    arguments = DumpJson(*args);
  }
  auto result = backend_.GetPrompt(*session_, name->get<std::string>(), arguments);
  if (!result) {
    write_(rpc::MakeErrorResponse(id, rpc::kInvalidParams, "Unknown prompt"));
    return;
  }
  write_(rpc::MakeResultResponse(id, *result));
}

}  // namespace las::tools
