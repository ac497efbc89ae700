#include "tools/operator_channel.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/json_text_dump.h"
#include "log/event_log.h"
#include "projections/catalog_projection.h"
#include "projections/sources_projection.h"
#include "tools/catalog.h"
#include "tools/federation.h"
#include "tools/grant_admin.h"
#include "tools/live_projections.h"
#include "tools/loop_appender.h"
#include "tools/onboarding_journey.h"
#include "tools/server_core.h"
#include "tools/source_events.h"
#include "tools/sources.h"
#include "tools/stdio_lines.h"
#include "transport/json_text.h"

namespace las::tools {
namespace {

using Json = nlohmann::json;

constexpr int kRefused = -32000;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInvalidRequest = -32600;

std::string Answer(const Json& id, Json result) {
  return DumpJson(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

std::string Refusal(const Json& id, int code, const Status& status) {
  return DumpJson(Json{{"jsonrpc", "2.0"},
                       {"id", id},
                       {"error",
                        {{"code", code},
                         {"message", status.message()},
                         {"data", {{"status", std::string(CodeName(status.code()))}}}}}});
}

Json SelectorJson(const reducers::Selector& s) {
  return {{"surface", s.surface}, {"tool", s.tool}, {"definition_sha256", s.definition_sha256}};
}

// A required string member of `params`.
std::optional<std::string> Text(const Json& params, const char* key) {
  auto it = params.find(key);
  if (it == params.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<ToolArg> ToolOf(const Json& value) {
  if (!value.is_object()) return std::nullopt;
  auto name = Text(value, "name");
  if (!name) return std::nullopt;
  ToolArg tool{*name, std::nullopt};
  if (value.contains("digest")) {
    auto digest = Text(value, "digest");
    if (!digest) return std::nullopt;
    tool.digest = *digest;
  }
  return tool;
}

// The sources a toggle is decided against. PlanSourceToggle reads only each source's id
// and state, so the catalog's tools are left out: listing them renders every tool's schema,
// which made a batch of toggles hold the loop for seconds (probe DL4).
std::vector<Source> Inventory(ServerCore& core) {
  const auto* toggles = core.live().Get<projections::SourcesProjection>("sources");
  const auto* recorded = core.live().Get<projections::CatalogProjection>("catalog");
  const Catalog no_tools;
  return BuildInventory(FactsFromFederation(no_tools, core.federation().surfaces(),
                                            /*admin=*/true,
                                            toggles ? &toggles->toggles() : nullptr,
                                            recorded ? &recorded->catalog() : nullptr));
}

// What one request decided: drafts to append and the answer's own members; or a refusal.
struct Decision {
  std::vector<log::EventDraft> drafts;
  Json extra = Json::object();
};

Status BadParams() { return InvalidArgument("malformed parameters for this operator request"); }
Status Bad(int& code) {
  code = kInvalidParams;
  return BadParams();
}

// `code` is the JSON-RPC error code of a refusal (kRefused unless set otherwise).
Result<Decision> Decide(ServerCore& core, const std::string& method, const Json& params,
                        int& code) {
  const projections::ProjectionSet& set = core.live().set();
  Decision decision;
  if (method == "las/sources.enable" || method == "las/sources.disable") {
    const bool enable = method == "las/sources.enable";
    auto id = Text(params, "id");
    // A reason of another type is malformed, not "operator" (probe CD4).
    if (!id || (params.contains("reason") && !params["reason"].is_string())) return Bad(code);
    const std::string reason = enable ? "" : Text(params, "reason").value_or("operator");
    auto plan = PlanSourceToggle(Inventory(core), *id, enable, reason, "", "");
    if (!plan.ok()) return plan.status();
    decision.extra = {{"changed", plan->has_value()}};
    if (*plan) decision.drafts.push_back(std::move(**plan));
    return decision;
  }
  if (method == "las/grant.issue") {
    auto grant_id = Text(params, "grant_id");
    auto agent = Text(params, "agent_id");
    auto all = params.find("all");
    auto tools = params.find("tools");
    if (!grant_id || grant_id->empty() || !agent || all == params.end() || !all->is_boolean() ||
        tools == params.end() || !tools->is_array()) {
      return Bad(code);
    }
    GrantRequest request{*agent, all->get<bool>(), {}};
    for (const auto& value : *tools) {
      auto tool = ToolOf(value);
      if (!tool) return Bad(code);
      request.tools.push_back(std::move(*tool));
    }
    auto plan = PlanIssueGrant(set, request, *grant_id);
    if (!plan.ok()) return plan.status();
    Json selectors = Json::array();
    for (const auto& s : plan->issued.selectors) selectors.push_back(SelectorJson(s));
    decision.extra = {{"grant_id", *grant_id}, {"selectors", std::move(selectors)}};
    decision.drafts.push_back(std::move(plan->draft));
    return decision;
  }
  if (method == "las/grant.revoke") {
    auto grant_id = Text(params, "grant_id");
    if (!grant_id) return Bad(code);
    auto plan = PlanRevokeGrant(set, *grant_id);
    if (!plan.ok()) return plan.status();
    decision.extra = {{"revoked", plan->revoked}};
    decision.drafts.push_back(std::move(plan->draft));
    return decision;
  }
  if (method == "las/rules.add") {
    auto rule_id = Text(params, "rule_id");
    auto agent = Text(params, "agent_id");
    auto tool = params.contains("tool") ? ToolOf(params["tool"]) : std::nullopt;
    if (!rule_id || rule_id->empty() || !agent || !tool) return Bad(code);
    auto plan = PlanAddRule(set, *agent, *tool, *rule_id);
    if (!plan.ok()) return plan.status();
    decision.extra = {{"rule_id", *rule_id}, {"selector", SelectorJson(plan->selector)}};
    decision.drafts.push_back(std::move(plan->draft));
    return decision;
  }
  if (method == "las/rules.forget") {
    auto rule_id = Text(params, "rule_id");
    if (!rule_id) return Bad(code);
    auto draft = PlanForgetRule(set, *rule_id);
    if (!draft.ok()) return draft.status();
    decision.drafts.push_back(std::move(*draft));
    return decision;
  }
  if (method == "las/onboarding.change") {
    auto action = Text(params, "action");
    if (!action) return Bad(code);
    const std::string step = Text(params, "step").value_or("");
    std::vector<StepResult> results;
    if (auto list = params.find("results"); list != params.end()) {
      if (!list->is_array()) return Bad(code);
      for (const auto& value : *list) {
        auto name = value.is_object() ? Text(value, "step") : std::nullopt;
        auto passed = value.is_object() ? value.find("passed") : value.end();
        if (!name || passed == value.end() || !passed->is_boolean()) return Bad(code);
        results.push_back({*name, passed->get<bool>(), Text(value, "reason").value_or(""),
                           Text(value, "detail").value_or("")});
      }
    }
    auto drafts = PlanOnboardingChange(*action, step, results, Actor{"", ""});
    if (!drafts.ok()) return drafts.status();
    decision.drafts = std::move(*drafts);
    return decision;
  }
  code = kMethodNotFound;
  return NotFound("no such operator method: " + method);
}

// An operator line as a JSON tree, or a discarded value for anything that is not JSON
// within the transport's bounds: a line nested 100,000 deep would otherwise be built, and
// copying such a tree recurses once per level, past the end of the stack.
Json ParseOperatorLine(std::string_view line) {
  if (transport::ValidateJson(line) != transport::JsonTextError::kNone) {
    return Json(Json::value_t::discarded);
  }
  return Json::parse(line, nullptr, false);
}

// nlohmann keeps a repeated key's last value, where a reader of the line may see its
// first: `"agent_id":"helper","agent_id":"default"` must grant no one (probe W2), and
// `"method":"initialize","method":"las/operator"` open no operator connection (probe Y3).
bool RepeatsAKey(std::string_view line) {
  std::vector<transport::JsonMember> members;
  return transport::ObjectMembers(line, &members, transport::kDefaultMaxDepth, nullptr,
                                  transport::DuplicateKeys::kRejected) ==
         transport::JsonTextError::kDuplicateKey;
}

}  // namespace

bool IsOperatorHello(std::string_view line) {
  if (line.find(kOperatorHello) == std::string_view::npos || RepeatsAKey(line)) return false;
  const auto parsed = ParseOperatorLine(line);
  if (!parsed.is_object() || !parsed.contains("id")) return false;
  auto method = parsed.find("method");
  return method != parsed.end() && method->is_string() && *method == kOperatorHello;
}

void OperatorSession::OnTooLong() {
  Emit(Refusal(nullptr, kInvalidRequest, InvalidArgument("line too long")));
}

void OperatorSession::OnLine(std::string_view line) {
  const auto message = ParseOperatorLine(line);
  if (!message.is_object() || !message.contains("id") || !message.contains("method") ||
      !message["method"].is_string()) {
    Emit(Refusal(message.is_object() ? message.value("id", Json(nullptr)) : Json(nullptr),
                          kInvalidRequest,
                          InvalidArgument("an operator line is a JSON-RPC request")));
    return;
  }
  const Json& id = message["id"];
  if (RepeatsAKey(line)) {
    Emit(Refusal(id, kInvalidRequest,
                          InvalidArgument("an object in the operator line repeats a key")));
    return;
  }
  const std::string method = message["method"].get<std::string>();
  const Json params = message.value("params", Json::object());
  // What the calls and las__ tools decided before this line is written first: the decision
  // sees it, and the log shows it before this change (probe DL1).
  LoopAppender& appender = core_.appender();
  appender.WriteQueued();
  if (Status caught_up = core_.live().CatchUp(); !caught_up.ok()) {
    Emit(Refusal(id, kRefused, caught_up));
    return;
  }
  // From here every answer reflects the live projections: it waits until what they hold
  // is on disk, as the las__ tools' answers do (probe DL3).
  const uint64_t seen = appender.visible_sequence();
  if (method == kOperatorHello) {
    EmitWhenDurable(Answer(id, {{"operator", true}, {"sequence", core_.live().sequence()}}), id,
                    seen, /*changed=*/false);
    return;
  }
  if (!params.is_object()) {
    Emit(Refusal(id, kInvalidParams, BadParams()));
    return;
  }
  int code = kRefused;
  auto decision = Decide(core_, method, params, code);
  if (!decision.ok()) {
    EmitWhenDurable(Refusal(id, code, decision.status()), id, seen, /*changed=*/false);
    return;
  }
  Json result = std::move(decision->extra);
  if (decision->drafts.empty()) {
    result["first_sequence"] = 0;
    result["last_sequence"] = 0;
    EmitWhenDurable(Answer(id, std::move(result)), id, seen, /*changed=*/false);
    return;
  }
  // Written on the loop, so that the next decision sees it; its fsync is made off the loop
  // and shared with the changes written meanwhile (probe DG2).
  auto appended = core_.log().Append(std::move(decision->drafts), log::Durability::kDeferred);
  if (!appended.ok()) {
    Emit(Refusal(id, kRefused, appended.status()));
    core_.NoteLogFailure(appended.status());  // the server ends, as on a call's failed write
    return;
  }
  (void)core_.live().CatchUp();  // the next decision, tools/list and call see the change
  result["first_sequence"] = appended->first;
  result["last_sequence"] = appended->last;
  EmitWhenDurable(Answer(id, std::move(result)), id, appended->last, /*changed=*/true);
}

void OperatorSession::Emit(std::string answer) {
  if (held_.empty()) {
    output_.Write(std::move(answer));
    return;
  }
  held_bytes_ += answer.size();
  held_.push_back({next_serial_++, std::move(answer), true});
}

void OperatorSession::EmitWhenDurable(std::string answer, const Json& id, uint64_t sequence,
                                      bool changed) {
  const uint64_t serial = next_serial_++;
  held_bytes_ += answer.size();
  held_.push_back({serial, std::move(answer), false});
  // At once (inside this call) when it is on disk already; else on the loop after a sync.
  core_.appender().AfterDurable(
      sequence, [this, serial, id, changed, alive = std::weak_ptr<bool>(alive_)](Status durable) {
        if (alive.expired()) return;  // the connection is gone; a change made stays made
        if (!durable.ok()) {
          core_.NoteLogFailure(durable);
          durable = Status(durable.code(),
                           (changed ? "the log failed before this change was on disk (it may "
                                      "be recorded or not: check before retrying): "
                                    : "the log failed: ") +
                               durable.message());
        }
        Settle(serial, durable.ok() ? std::string() : Refusal(id, kRefused, durable));
      });
}

void OperatorSession::Settle(uint64_t serial, std::string refusal) {
  for (Held& held : held_) {
    if (held.serial != serial) continue;
    if (!refusal.empty()) {
      held_bytes_ = held_bytes_ - held.answer.size() + refusal.size();
      held.answer = std::move(refusal);
    }
    held.ready = true;
    break;
  }
  Release();
}

void OperatorSession::Release() {
  bool wrote = false;
  while (!held_.empty() && held_.front().ready) {
    held_bytes_ -= held_.front().answer.size();
    output_.Write(std::move(held_.front().answer));
    held_.pop_front();
    wrote = true;
  }
  if ((wrote || held_.empty()) && released_) std::exchange(released_, nullptr)();
  if (held_.empty() && settled_) std::exchange(settled_, nullptr)();
}

void OperatorSession::ReadWhenReleased(std::function<void()> read) {
  released_ = std::move(read);
  Release();
}

void OperatorSession::WhenSettled(std::function<void()> settled) {
  settled_ = std::move(settled);
  Release();
}

}  // namespace las::tools
