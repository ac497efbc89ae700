#include "tools/admin_tools.h"
#include "tools/count_arg.h"

#include <nlohmann/json.hpp>

#include "log/event_json.h"
#include "log/event_log.h"
#include "projections/sources_projection.h"
#include "tools/federation.h"
#include "tools/live_projections.h"
#include "tools/loop_appender.h"
#include "tools/source_events.h"
#include "tools/source_ids.h"
#include "tools/source_json.h"
#include "tools/sources.h"

namespace las::tools {
namespace {

using Json = nlohmann::json;

std::string ErrorResult(const Json& body) {
  Json result{{"content", {{{"type", "text"}, {"text", body.dump()}}}},
              {"structuredContent", body},
              {"isError", true}};
  return result.dump();
}

std::vector<Source> Inventory(const LasToolContext& context) {
  static const Catalog kEmpty;
  const auto* sources = context.live.Get<projections::SourcesProjection>("sources");
  const Federation* federation = context.links.federation;
  static const std::vector<SurfaceState> kNone;
  return BuildInventory(FactsFromFederation(federation ? federation->catalog() : kEmpty,
                                            federation ? federation->surfaces() : kNone,
                                            /*admin=*/true,
                                            sources ? &sources->toggles() : nullptr));
}

// The stable refusal code of a PlanSourceToggle error.
// PlanSourceToggle's refusal as the tool's error code: no such source; a protected one,
// which stays enabled; else the reason (over 256 bytes, or with control characters).
const char* RefusalCode(const Status& status, std::string_view id) {
  if (status.code() != Code::kInvalidArgument) return "unknown-source";
  return IsProtectedSource(id) ? "source-protected" : "invalid-reason";
}

// Appends `draft` durably, folds it into the live projections, answers on the loop.
void AppendToggle(const LasToolContext& context, log::EventDraft draft, std::string id,
                  bool enabled, std::function<void(ToolCallReply)> done) {
  context.appender.Append(
      {std::move(draft)}, log::Durability::kSynced,
      [context, id = std::move(id), enabled,
       done = std::move(done)](Result<log::AppendedRange> appended) mutable {
        if (!appended.ok() || !context.live.CatchUp().ok()) {
          done(ToolCallReply::Error(-32603, "Tool call failed"));
          return;
        }
        done(ToolCallReply::Result(JsonResult(
            Json{{"id", id}, {"enabled", enabled}, {"sequence", appended->first}}.dump())));
      });
}

}  // namespace

void AddAdminTools(BuiltinTools& tools, const LasToolContext& context) {
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

  tools.Add(
      "enable_source", "Enable a source: its tools return to tools/list and may be called.",
      R"({"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":128}},)"
      R"("required":["id"],"additionalProperties":false})",
      [context](const SessionInfo& session, const std::string& arguments,
                std::function<void(ToolCallReply)> done) {
        const Json args = Json::parse(arguments, nullptr, false);
        const std::string id = args.value("id", "");
        auto draft = PlanSourceToggle(Inventory(context), id, /*enable=*/true, "",
                                      session.agent_id, session.session_id);
        if (!draft.ok()) {
          done(ToolCallReply::Result(ErrorResult({{"error", RefusalCode(draft.status(), id)}})));
          return;
        }
        AppendToggle(context, std::move(*draft), id, true, std::move(done));
      });

  tools.Add(
      "disable_source",
      "Disable a source: its tools leave tools/list and calls to them are refused. Survives "
      "restart. las, las.std and las.admin cannot be disabled.",
      R"({"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":128},)"
      // No maxLength: it counts characters; the bound is 256 bytes (invalid-reason).
      R"("reason":{"type":"string"}},"required":["id"],)"
      R"("additionalProperties":false})",
      [context](const SessionInfo& session, const std::string& arguments,
                std::function<void(ToolCallReply)> done) {
        const Json args = Json::parse(arguments, nullptr, false);
        const std::string id = args.value("id", "");
        auto draft = PlanSourceToggle(Inventory(context), id, /*enable=*/false,
                                      args.value("reason", "admin"), session.agent_id,
                                      session.session_id);
        if (!draft.ok()) {
          done(ToolCallReply::Result(ErrorResult({{"error", RefusalCode(draft.status(), id)}})));
          return;
        }
        AppendToggle(context, std::move(*draft), id, false, std::move(done));
      });

  tools.Add(
      "inspect_events", "Events of the log from a sequence, as JSON (at most 200).",
      R"({"type":"object","properties":{"from":{"type":"integer","minimum":1},)"
      R"("limit":{"type":"integer","minimum":1,"maximum":200}},"additionalProperties":false})",
      [context](const SessionInfo&, const std::string& arguments,
                std::function<void(ToolCallReply)> done) {
        const Json args = Json::parse(arguments, nullptr, false);
        const size_t limit = CountArg(args, "limit", 50);
        auto cursor = context.log.Read(CountArg(args, "from", 1));
        if (!cursor.ok()) {
          done(ToolCallReply::Error(-32603, "Tool call failed"));
          return;
        }
        Json events = Json::array();
        uint64_t last = 0;
        while (events.size() < limit) {
          auto more = (*cursor)->Next();
          if (!more.ok() || !*more) break;
          events.push_back(Json::parse(log::EventToJson((*cursor)->current()), nullptr, false));
          last = (*cursor)->current().sequence;
        }
        done(ToolCallReply::Result(JsonResult(
            Json{{"events", std::move(events)}, {"next_from", last == 0 ? Json(nullptr) : Json(last + 1)}}
                .dump(-1, ' ', false, Json::error_handler_t::replace))));
      });
}

}  // namespace las::tools
