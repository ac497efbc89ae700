#include "tools/count_arg.h"
#include "tools/discovery_tools.h"

#include <set>

#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "tools/docs_source.h"
#include "tools/exact_json_result.h"
#include "tools/federation.h"
#include "tools/gateway.h"
#include "tools/source_guard.h"
#include "tools/source_ids.h"
#include "tools/tool_search.h"
#include "transport/json_text.h"

namespace las::tools {
namespace {

using Json = nlohmann::json;

std::string ErrorResult(const Json& body) {
  const std::string text = DumpJson(body);
  Json result{{"content", {{{"type", "text"}, {"text", text}}}}, {"structuredContent", body},
              {"isError", true}};
  return DumpJson(result);
}

std::string Ok(const Json& body) {
  return JsonResult(DumpJson(body));
}

// The catalog's tools whose source is enabled, sorted by name. A surface's tools are
// adjacent in name order, so its state is looked up once per run of them.
std::vector<const CatalogTool*> Visible(const LasToolContext& context) {
  std::vector<const CatalogTool*> out;
  if (context.links.federation == nullptr) return out;
  const auto& all = context.links.federation->catalog().tools();
  out.reserve(all.size());
  const std::string* run_surface = nullptr;
  bool run_enabled = false;
  for (const auto& tool : all) {
    if (tool.builtin) {
      if (ToolSourceEnabled(context.live, tool)) out.push_back(&tool);
      continue;
    }
    if (run_surface == nullptr || *run_surface != tool.surface) {
      run_surface = &tool.surface;
      run_enabled = ToolSourceEnabled(context.live, tool);
    }
    if (run_enabled) out.push_back(&tool);
  }
  return out;
}

// True when some catalog tool, visible or not, belongs to source `id`.
bool SourceOwnsTools(const LasToolContext& context, const std::string& id) {
  if (context.links.federation == nullptr) return false;
  for (const auto& tool : context.links.federation->catalog().tools()) {
    if (SourceIdOf(tool) == id) return true;
  }
  return false;
}

// The catalog's tool named `qualified_name`, visible or not; nullptr when there is none.
const CatalogTool* CatalogToolNamed(const LasToolContext& context, const std::string& qualified_name) {
  if (context.links.federation == nullptr) return nullptr;
  for (const auto& tool : context.links.federation->catalog().tools()) {
    if (tool.qualified_name == qualified_name) return &tool;
  }
  return nullptr;
}

// A handler over the parsed arguments (the input schema was checked before it runs).
using JsonHandler = std::function<void(const SessionInfo& session, const Json& args,
                                       std::function<void(ToolCallReply)> done)>;
BuiltinHandler WithJsonArgs(JsonHandler handler) {
  return [handler = std::move(handler)](const SessionInfo& session, const std::string& arguments,
                                        std::function<void(ToolCallReply)> done) {
    handler(session, Json::parse(arguments, nullptr, false), std::move(done));
  };
}

// What every entry naming a tool shows: its name, source and title.
template <typename J = Json>
J ToolEntry(const CatalogTool& tool) {
  return {{"name", tool.qualified_name}, {"source", SourceIdOf(tool)}, {"title", tool.title}};
}

}  // namespace

void AddDiscoveryTools(BuiltinTools& tools, const LasToolContext& context) {
  tools.Add(
      "search",
      "Search every tool Las can call, across sources. Every word of the query must match the "
      "tool's name, title, description or argument names; name matches rank first. Returns "
      "names and one-line summaries; use las__describe for a schema and las__call to call.",
      R"({"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":256},)"
      R"("limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query"],)"
      R"("additionalProperties":false})",
      WithJsonArgs([context](const SessionInfo&, const Json& args,
                             std::function<void(ToolCallReply)> done) {
        const std::string query = args.value("query", "");
        Json results = Json::array();
        std::vector<SearchHit> hits;
        if (context.links.federation != nullptr) {
          hits = SearchCatalog(context.links.federation->catalog(), query,
                               CountArg(args, "limit", 10), [&](const CatalogTool& tool) {
                                 return ToolSourceEnabled(context.live, tool);
                               });
        }
        for (const auto& hit : hits) {
          Json entry = ToolEntry(*hit.tool);
          entry["summary"] = Summary(*hit.tool);
          entry["score"] = hit.score;
          results.push_back(std::move(entry));
        }
        done(ToolCallReply::Result(Ok({{"results", std::move(results)}})));
      }));

  tools.Add(
      "describe",
      "One tool's full entry: description and input schema. For a name that does not exist, "
      "the nearest names.",
      R"({"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":256}},)"
      R"("required":["name"],"additionalProperties":false})",
      WithJsonArgs([context](const SessionInfo&, const Json& args,
                             std::function<void(ToolCallReply)> done) {
        const std::string name = args.value("name", "");
        const std::vector<const CatalogTool*> visible = Visible(context);
        for (const CatalogTool* tool : visible) {
          if (tool->qualified_name != name) continue;
          // Ordered and spliced in unparsed: the schema's members in the child's order, as
          // tools/list serves them (probe IX2: JsonResult's re-parse sorted them).
          auto entry = ToolEntry<nlohmann::ordered_json>(*tool);
          entry["description"] = tool->description.value_or("");
          entry["definition_sha256"] = tool->definition_sha256;
          entry["inputSchema"] =
              nlohmann::ordered_json::parse(ListedInputSchemaJson(*tool), nullptr, false);
          done(ToolCallReply::Result(ExactJsonResult(DumpJson(entry))));
          return;
        }
        // A tool of a disabled source is not described, and says so, as las__list_tools
        // does for its source (probe IN3: "unknown-tool" with unrelated nearest names).
        if (const CatalogTool* hidden = CatalogToolNamed(context, name); hidden != nullptr) {
          done(ToolCallReply::Result(
              ErrorResult({{"error", "source-disabled"}, {"source", SourceIdOf(*hidden)}})));
          return;
        }
        done(ToolCallReply::Result(
            ErrorResult({{"error", "unknown-tool"}, {"nearest", NearestNames(visible, name, 5)}})));
      }));

  tools.Add(
      "list_tools",
      "A window of one source's tools, sorted by name: names and one-line summaries. A source "
      "with no visible tools is an error that lists the sources there are.",
      R"({"type":"object","properties":{"source":{"type":"string","minLength":1,"maxLength":128},)"
      R"("offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1,"maximum":200}},)"
      R"("required":["source"],"additionalProperties":false})",
      WithJsonArgs([context](const SessionInfo&, const Json& args,
                             std::function<void(ToolCallReply)> done) {
        const std::string source = args.value("source", "");
        const std::vector<const CatalogTool*> visible = Visible(context);
        std::vector<const CatalogTool*> owned;
        for (const CatalogTool* tool : visible) {
          if (SourceIdOf(*tool) == source) owned.push_back(tool);
        }
        if (owned.empty()) {
          // A disabled source's tools are not visible; say so rather than list nothing.
          const bool disabled =
              !SourceEnabled(context.live, source) && SourceOwnsTools(context, source);
          std::set<std::string> sources;
          for (const CatalogTool* tool : visible) sources.insert(SourceIdOf(*tool));
          done(ToolCallReply::Result(ErrorResult(
              {{"error", disabled ? "source-disabled" : "unknown-source"}, {"sources", sources}})));
          return;
        }
        const size_t total = owned.size();
        const size_t offset = std::min(CountArg(args, "offset", 0), total);
        const size_t end = std::min(total, offset + CountArg(args, "limit", 50));
        Json window = Json::array();
        for (size_t i = offset; i < end; ++i) {
          window.push_back({{"name", owned[i]->qualified_name}, {"summary", Summary(*owned[i])}});
        }
        done(ToolCallReply::Result(
            Ok({{"source", source},
                {"total", total},
                {"offset", offset},
                {"tools", std::move(window)},
                {"next_offset", end < total ? Json(end) : Json(nullptr)},
                {"has_more", end < total}})));
      }));

  tools.AddWithCall(
      "call",
      "Call any tool Las lists or finds by its name, with its arguments. The call passes the "
      "same checks and records as a direct call.",
      R"({"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":256},)"
      // `arguments` of any type: the inner call judges them as a direct call's — null as
      // none, anything else not an object refused arguments-invalid and recorded as the
      // call of the tool named (probe IG1: refused by this schema, recorded as las__call's).
      R"("arguments":{"description":"The tool's arguments: a JSON object; null or absent for none"}},)"
      R"("required":["name"],"additionalProperties":false})",
      Cancellable::kNo,
      // The raw arguments: the inner call gets the client's exact text, as a direct call
      // does (a re-serialization would turn 2^64 or 1.0000000000000001 into doubles).
      // It runs under the client's request id and with its progress token, so it is
      // recorded, cancelled and reports progress as the direct call of the same tool would.
      [context](const SessionInfo& session, const BuiltinCall& call,
                const std::string& arguments, std::function<void(ToolCallReply)> done) {
        std::vector<transport::JsonMember> members;
        (void)transport::ObjectMembers(arguments, &members);  // the schema was checked
        std::string name;
        std::string inner_json = "{}";
        for (const auto& member : members) {
          if (member.key == "name" && member.type == transport::JsonType::kString) {
            name = transport::DecodeJsonString(member.raw).value_or("");
          } else if (member.key == "arguments" && member.type != transport::JsonType::kNull) {
            inner_json = std::string(member.raw);
          }
        }
        if (name == kCallTool) {
          // Recorded ToolCallDenied, as every other refusal of a call is.
          ToolCallReply reply = ToolCallReply::Error(kCallRefused, "las__call cannot call itself");
          reply.refusal = "recursive-call";
          done(std::move(reply));
          return;
        }
        if (context.links.gateway == nullptr) {
          done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
          return;
        }
        // A refusal of the inner call is recorded by it: the las__call must not be recorded
        // refused a second time under the same request id (probe BJ1).
        context.links.gateway->CallTool(session, call.request_id_json, name, inner_json,
                                        call.progress, [done](ToolCallReply reply) {
                                          reply.refusal = {};
                                          done(std::move(reply));
                                        });
      });
}

void AddDocsTool(BuiltinTools& tools, const LasToolContext& context) {
  // The same docs as MCP resources and prompts (tools/docs_mcp.h), under the same switch.
  tools.SetDocsEnabled([&live = context.live] { return SourceEnabled(live, kSourceDocs); });
  tools.Add(
      "read_doc",
      "Read Las's own documentation (source las.docs): operator-manual, troubleshooting, "
      "authoring, and the prompts troubleshoot-surface and author-surface.",
      R"({"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":128}},)"
      R"("required":["name"],"additionalProperties":false})",
      // Of source las.docs (tools/source_ids.h): the source guard refuses it while the
      // docs are disabled, recorded as every such refusal is.
      WithJsonArgs([](const SessionInfo&, const Json& args,
                      std::function<void(ToolCallReply)> done) {
        const DocText* doc = FindDoc(args.value("name", ""));
        if (doc == nullptr) {
          Json names = Json::array();
          for (const auto& d : DocResources()) names.push_back(d.name);
          for (const auto& d : DocPrompts()) names.push_back(d.name);
          done(ToolCallReply::Result(ErrorResult({{"error", "unknown-doc"}, {"names", names}})));
          return;
        }
        done(ToolCallReply::Result(TextResult(doc->text)));
      }));
}

}  // namespace las::tools
