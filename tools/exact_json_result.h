// tools/call results for the coordination tools that keep JSON exact: the structured
// content is the handler's own JSON text, spliced in unparsed (tools/builtin_tools.h's
// JsonResult re-parses it, which would turn integers beyond 2^64 into doubles).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace las::tools {

// A result whose content is one text item holding `object_json` and whose
// structuredContent is that same object. `object_json` must be one valid JSON object.
std::string ExactJsonResult(std::string_view object_json);

// A tool error (isError true): structuredContent {"error":{"code":CODE,"message":MESSAGE
// <extra>}}, the same JSON as the text item. `code` is a stable machine code, `message`
// static text; `extra_members` is empty or starts with ',' (e.g. ",\"current_version\":3").
std::string ErrorJsonResult(std::string_view code, std::string_view message,
                            std::string_view extra_members = {});

// Builds a JSON object member by member (the caller keeps keys unique).
class JsonObjectText {
 public:
  JsonObjectText& Raw(std::string_view key, std::string_view json);
  JsonObjectText& String(std::string_view key, std::string_view value);
  JsonObjectText& Uint(std::string_view key, uint64_t value);
  JsonObjectText& Int(std::string_view key, int64_t value);
  JsonObjectText& Bool(std::string_view key, bool value);
  // The object's text; the builder is left empty.
  std::string Take();
  size_t size() const { return text_.size() + 1; }

 private:
  void Key(std::string_view key);
  std::string text_ = "{";
};

}  // namespace las::tools
