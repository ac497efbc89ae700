#include "tools/admin_tools.h"
#include "tools/count_arg.h"

#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "log/event_json.h"
#include "log/event_log.h"
#include "tools/event_privacy.h"
#include "tools/exact_json_result.h"
#include "projections/catalog_projection.h"
#include "projections/sources_projection.h"
#include "tools/federation.h"
#include "tools/live_projections.h"
#include "tools/loop_appender.h"
#include "tools/page_budget.h"
#include "tools/source_events.h"
#include "tools/source_ids.h"
#include "tools/source_json.h"
#include "tools/sources.h"

namespace las::tools {
namespace {

using Json = nlohmann::json;

std::string ErrorResult(const Json& body) {
  Json result{{"content", {{{"type", "text"}, {"text", DumpJson(body)}}}},
              {"structuredContent", body},
              {"isError", true}};
  return DumpJson(result);
}

std::vector<Source> Inventory(const LasToolContext& context) {
  static const Catalog kEmpty;
  const auto* sources = context.live.Get<projections::SourcesProjection>("sources");
  const auto* recorded = context.live.Get<projections::CatalogProjection>("catalog");
  const Federation* federation = context.links.federation;
  static const std::vector<SurfaceState> kNone;
  return BuildInventory(FactsFromFederation(federation ? federation->catalog() : kEmpty,
                                            federation ? federation->surfaces() : kNone,
                                            /*admin=*/true,
                                            sources ? &sources->toggles() : nullptr,
                                            recorded ? &recorded->catalog() : nullptr));
}

// The stable refusal code of a PlanSourceToggle error.
// PlanSourceToggle's refusal as the tool's error code: no such source; a protected one,
// which stays enabled; else the reason (over 256 bytes, or with control characters).
const char* RefusalCode(const Status& status, std::string_view id) {
  if (status.code() != Code::kInvalidArgument) return "unknown-source";
  return IsProtectedSource(id) ? "source-protected" : "invalid-reason";
}

// Toggles being appended, by source id: the state the last of them asks for, and how many
// are in flight. The inventory shows a toggle only once it is folded, so a toggle sent
// right after another of the same source plans against this instead (probe CV4: three
// pipelined disables were each recorded and answered changed).
struct PendingToggle {
  bool enabled = true;
  int in_flight = 0;
};
using PendingToggles = std::map<std::string, PendingToggle, std::less<>>;

// Appends `draft` durably, folds it into the live projections, answers on the loop.
void AppendToggle(const LasToolContext& context, std::shared_ptr<PendingToggles> pending,
                  log::EventDraft draft, std::string id, bool enabled,
                  std::function<void(ToolCallReply)> done) {
  PendingToggle& mine = (*pending)[id];
  mine.enabled = enabled;
  ++mine.in_flight;
  context.appender.Append(
      {std::move(draft)}, log::Durability::kSynced,
      [context, pending, id = std::move(id), enabled,
       done = std::move(done)](Result<log::AppendedRange> appended) mutable {
        const bool folded = appended.ok() && context.live.CatchUp().ok();
        if (auto it = pending->find(id); it != pending->end() && --it->second.in_flight == 0) {
          pending->erase(it);
        }
        if (!folded) {
          done(ToolCallReply::Error(-32603, "Tool call failed"));
          return;
        }
        done(ToolCallReply::Result(JsonResult(DumpJson(Json{{"id", id},
                                                            {"enabled", enabled},
                                                            {"changed", true},
                                                            {"sequence", appended->first}}))));
      });
  // Written and folded now, not at the turn's end: a call decided after this one in the
  // same turn is checked against the toggle, and logged after it (probe FC1: a call sent
  // right after a disable went through, its request recorded after SourceDisabled).
  context.appender.WriteQueued();
}

// las__enable_source (`enable`) or las__disable_source: a source already in the asked
// state — as the toggles in flight leave it — is answered "changed": false and nothing is
// recorded.
BuiltinHandler ToggleHandler(const LasToolContext& context, bool enable,
                             std::shared_ptr<PendingToggles> pending) {
  return [context, enable, pending](const SessionInfo& session, const std::string& arguments,
                                    std::function<void(ToolCallReply)> done) {
    const Json args = Json::parse(arguments, nullptr, false);
    const std::string id = args.value("id", "");
    const std::string reason = enable ? "" : args.value("reason", "admin");
    std::vector<Source> inventory = Inventory(context);
    for (Source& source : inventory) {
      if (auto it = pending->find(source.id); it != pending->end()) {
        source.enabled = it->second.enabled;
      }
    }
    auto plan = PlanSourceToggle(inventory, id, enable, reason, session.agent_id,
                                 session.session_id);
    if (!plan.ok()) {
      done(ToolCallReply::Result(ErrorResult({{"error", RefusalCode(plan.status(), id)}})));
    } else if (!plan->has_value()) {
      done(ToolCallReply::Result(
          JsonResult(DumpJson(Json{{"id", id}, {"enabled", enable}, {"changed", false}}))));
    } else {
      AppendToggle(context, pending, std::move(**plan), id, enable, std::move(done));
    }
  };
}

// las__inspect_events: events from `from`, at most `limit` and kMaxPageBytes of response
// (at least one). "next_from" is the sequence to ask for next (null on an empty page);
// "truncated" says the byte bound, not `limit` or the log's end, ended the page.
// Other agents' private payload members are withheld (tools/event_privacy.h).
void InspectEvents(const LasToolContext& context, const SessionInfo& session,
                   const std::string& arguments, const std::function<void(ToolCallReply)>& done) {
  const Json args = Json::parse(arguments, nullptr, false);
  const size_t limit = CountArg(args, "limit", 50);
  // Shows what was decided before it in its loop turn, as the state reads do (probe FD2);
  // its answer waits for that to be on disk, as every builtin's.
  context.appender.WriteQueued();
  auto cursor = context.log.Read(CountArg(args, "from", 1));
  if (!cursor.ok()) return done(ToolCallReply::Error(-32603, "Tool call failed"));
  std::string events = "[";
  PageBudget budget;
  size_t count = 0;
  uint64_t last = 0;
  bool truncated = false;
  while (count < limit) {
    auto more = (*cursor)->Next();
    // A page that ends at an unreadable or tampered event must not look like the log's end.
    if (!more.ok()) return done(ToolCallReply::Error(-32603, "Tool call failed"));
    if (!*more) break;
    const log::StoredEvent& stored = (*cursor)->current();
    const std::string event = log::EventToJson(stored, WithheldFrom(stored, session.agent_id));
    // Room is kept for the largest "next_from" and "truncated".
    if (!budget.TryTake(event, R"("next_from":18446744073709551615,"truncated":true)")) {
      truncated = true;
      break;
    }
    if (count++ > 0) events.push_back(',');
    events += event;
    last = (*cursor)->current().sequence;
  }
  events.push_back(']');
  JsonObjectText answer;
  answer.Raw("events", events);
  if (last == 0) {
    answer.Raw("next_from", "null");
  } else {
    answer.Uint("next_from", last + 1);
  }
  answer.Bool("truncated", truncated);
  done(ToolCallReply::Result(ExactJsonResult(answer.Take())));
}

}  // namespace

void AddAdminTools(BuiltinTools& tools, const LasToolContext& context) {
  auto pending = std::make_shared<PendingToggles>();
  tools.Add(
      "list_sources",
      "Every source (system and connection): visibility, permissions, counts per capability "
      "kind and a short preview of names; paged; no schemas.",
      R"({"type":"object","properties":{"offset":{"type":"integer","minimum":0},)"
      R"("limit":{"type":"integer","minimum":1,"maximum":200},)"
      R"("preview":{"type":"integer","minimum":0,"maximum":50}},"additionalProperties":false})",
      [context](const SessionInfo&, const std::string& arguments,
                std::function<void(ToolCallReply)> done) {
        const Json args = Json::parse(arguments, nullptr, false);
        done(ToolCallReply::Result(JsonResult(SourceListJson(
            Inventory(context), CountArg(args, "offset", 0),
            CountArg(args, "limit", kDefaultSourcePage), CountArg(args, "preview", kDefaultPreview)))));
      });

  tools.Add(
      "inspect_source",
      "One source's full inventory: tools with schemas, prompts, resources; paged from "
      "offset (next_offset) when it exceeds 64 KiB.",
      R"({"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":128},)"
      R"("offset":{"type":"integer","minimum":0}},"required":["id"],"additionalProperties":false})",
      [context](const SessionInfo&, const std::string& arguments,
                std::function<void(ToolCallReply)> done) {
        const Json args = Json::parse(arguments, nullptr, false);
        const auto sources = Inventory(context);
        const Source* source = FindSource(sources, args.value("id", ""));
        if (source == nullptr) {
          done(ToolCallReply::Result(ErrorResult({{"error", "unknown-source"}})));
          return;
        }
        done(ToolCallReply::Result(
            JsonResult(SourceDetailPageJson(*source, CountArg(args, "offset", 0)))));
      });

  tools.Add("enable_source",
            "Enable a source: its tools return to tools/list and may be called.",
            R"({"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":128}},)"
            R"("required":["id"],"additionalProperties":false})",
            ToggleHandler(context, /*enable=*/true, pending));

  tools.Add(
      "disable_source",
      "Disable a source: its tools leave tools/list and calls to them are refused. Survives "
      "restart. las, las.std and las.admin cannot be disabled.",
      R"({"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":128},)"
      // No maxLength: it counts characters; the bound is 256 bytes (invalid-reason).
      R"("reason":{"type":"string"}},"required":["id"],)"
      R"("additionalProperties":false})",
      ToggleHandler(context, /*enable=*/false, pending));

  tools.Add(
      "inspect_events",
      "Events of the log from a sequence, as JSON: at most `limit` (200) and 64 KiB a page; "
      "next_from continues. Other agents' private state, messages, handle contents and call "
      "arguments and results are withheld (named in each event's `withheld`).",
      R"({"type":"object","properties":{"from":{"type":"integer","minimum":1},)"
      R"("limit":{"type":"integer","minimum":1,"maximum":200}},"additionalProperties":false})",
      [context](const SessionInfo& session, const std::string& arguments,
                std::function<void(ToolCallReply)> done) {
        InspectEvents(context, session, arguments, done);
      });
}

}  // namespace las::tools
