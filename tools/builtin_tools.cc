#include "tools/builtin_tools.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "base/json_text_dump.h"
#include "trust/argument_schema.h"

namespace las::tools {

void BuiltinTools::Add(std::string name, std::string description, std::string input_schema_json,
                       BuiltinHandler handler) {
  Put(std::move(name), std::move(description), std::move(input_schema_json),
      Handler{[handler = std::move(handler)](const SessionInfo& session, const BuiltinCall&,
                                             const std::string& arguments_json,
                                             std::function<void(ToolCallReply)> done) {
                handler(session, arguments_json, std::move(done));
              },
              /*cancellable=*/false});
}

void BuiltinTools::AddWithCall(std::string name, std::string description,
                               std::string input_schema_json, Cancellable cancellable,
                               CallHandler handler) {
  Put(std::move(name), std::move(description), std::move(input_schema_json),
      Handler{std::move(handler), cancellable == Cancellable::kYes});
}

void BuiltinTools::Put(std::string name, std::string description, std::string input_schema_json,
                       Handler handler) {
  CatalogTool tool;
  tool.qualified_name = QualifiedName(kOwnSurface, name);
  tool.surface = std::string(kOwnSurface);
  tool.tool = std::move(name);
  tool.description = std::move(description);
  auto schema = trust::CompileToolInputSchema(input_schema_json);
  // A builtin schema is Las's own constant text: failing to compile is a programming error.
  if (!schema.ok()) std::abort();
  tool.schema = std::make_shared<const trust::ArgumentSchema>(std::move(*schema));
  tool.input_schema_json = std::move(input_schema_json);
  tool.builtin = true;
  std::string key = tool.qualified_name;
  entries_.insert_or_assign(std::move(key), Entry{std::move(tool), std::move(handler)});
}

std::vector<CatalogTool> BuiltinTools::Definitions() const {
  std::vector<CatalogTool> out;
  out.reserve(entries_.size());
  for (const auto& [name, entry] : entries_) out.push_back(entry.definition);
  return out;
}

const BuiltinTools::Handler* BuiltinTools::Find(std::string_view qualified_name) const {
  auto it = entries_.find(qualified_name);
  return it == entries_.end() ? nullptr : &it->second.handler;
}

std::string TextResult(std::string_view text, bool is_error) {
  nlohmann::json result{{"content", {{{"type", "text"}, {"text", text}}}}};
  if (is_error) result["isError"] = true;
  return DumpJson(result);
}

ToolCallReply Refused(std::string_view reason) {
  std::string text = "Refused: ";
  text += reason;
  ToolCallReply reply = ToolCallReply::Result(TextResult(text, /*is_error=*/true));
  reply.refusal = reason;
  return reply;
}

std::string JsonResult(const std::string& json_text) {
  nlohmann::json result{{"content", {{{"type", "text"}, {"text", json_text}}}}};
  auto parsed = nlohmann::json::parse(json_text, nullptr, false);
  if (parsed.is_object()) result["structuredContent"] = std::move(parsed);
  return DumpJson(result);
}

}  // namespace las::tools
