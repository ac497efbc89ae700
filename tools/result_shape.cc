#include "tools/result_shape.h"

#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "transport/json_text.h"
#include "trust/date_time_format.h"

namespace las::tools {
namespace {

using transport::JsonMember;
using transport::JsonTextError;
using transport::JsonType;

const JsonMember* Find(const std::vector<JsonMember>& members, std::string_view key) {
  for (const JsonMember& member : members) {
    if (member.key == key) return &member;
  }
  return nullptr;
}

bool Is(const JsonMember* member, JsonType type) { return member != nullptr && member->type == type; }
// Absent, or of `type`.
bool AbsentOr(const JsonMember* member, JsonType type) { return member == nullptr || member->type == type; }

std::vector<JsonMember> MembersOf(std::string_view object) {
  std::vector<JsonMember> members;
  (void)transport::ObjectMembers(object, &members);
  return members;
}

// The elements of `member` when it is an array, else nullopt.
std::optional<std::vector<std::string_view>> ArrayOf(const JsonMember& member) {
  std::vector<std::string_view> elements;
  if (member.type != JsonType::kArray ||
      transport::ArrayElements(member.raw, &elements) != JsonTextError::kNone) {
    return std::nullopt;
  }
  return elements;
}

// The value of `raw` when it is a JSON string, else nullopt.
std::optional<std::string> StringValue(std::string_view raw) {
  if (transport::JsonTypeOf(raw) != JsonType::kString) return std::nullopt;
  return transport::DecodeJsonString(raw);
}

// Each of `keys` in `members`, absent or of `type`.
bool EachAbsentOr(const std::vector<JsonMember>& members,
                  std::initializer_list<std::string_view> keys, JsonType type) {
  for (std::string_view key : keys) {
    if (!AbsentOr(Find(members, key), type)) return false;
  }
  return true;
}

// Whether `text` decodes as the SDK's Base64Schema reads it: through `atob`, the WHATWG
// "forgiving-base64 decode" — ASCII whitespace ignored; only A-Z a-z 0-9 + /; at most two
// `=`, only at the end and only where they complete a group of four; never one character
// left over from a group (probe FL2: the SDK threw on results the ledger called ok).
bool SdkBase64(std::string_view text) {
  size_t characters = 0;  // all but whitespace
  size_t padding = 0;
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r') continue;
    ++characters;
    if (c == '=') {
      if (++padding > 2) return false;
      continue;
    }
    const bool alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                          (c >= '0' && c <= '9') || c == '+' || c == '/';
    if (!alphabet || padding > 0) return false;
  }
  if (padding > 0 && characters % 4 != 0) return false;
  return (characters - padding) % 4 != 1;
}

// A member that is a JSON string holding base64 as the SDK reads it (SdkBase64).
bool IsBase64String(const JsonMember* member) {
  if (!Is(member, JsonType::kString)) return false;
  const std::optional<std::string> value = transport::DecodeJsonString(member->raw);
  return value && SdkBase64(*value);
}

// An embedded resource's `resource`: an object with a string `uri` and a string `text` or
// a base64 `blob`; `mimeType` a string and `_meta` an object when present.
bool ReadableResource(const JsonMember* resource) {
  if (!Is(resource, JsonType::kObject)) return false;
  const std::vector<JsonMember> members = MembersOf(resource->raw);
  return Is(Find(members, "uri"), JsonType::kString) &&
         (Is(Find(members, "text"), JsonType::kString) ||
          IsBase64String(Find(members, "blob"))) &&
         EachAbsentOr(members, {"mimeType"}, JsonType::kString) &&
         EachAbsentOr(members, {"_meta"}, JsonType::kObject);
}

// An icon as the SDK's IconSchema reads it: a string `src`; `mimeType` a string, `sizes` an
// array of strings and `theme` "light" or "dark" when present (probe FL1: a `theme` of
// "blue" or `sizes` "48x48" made the SDK client throw on a result the ledger called ok).
bool ReadableIcon(std::string_view icon) {
  std::vector<JsonMember> fields;
  bool is_object = false;
  if (transport::ObjectMembers(icon, &fields, transport::kDefaultMaxDepth, &is_object) !=
          JsonTextError::kNone ||
      !is_object || !Is(Find(fields, "src"), JsonType::kString) ||
      !AbsentOr(Find(fields, "mimeType"), JsonType::kString)) {
    return false;
  }
  if (const JsonMember* sizes = Find(fields, "sizes")) {
    const auto each = ArrayOf(*sizes);
    if (!each) return false;
    for (std::string_view size : *each) {
      if (!StringValue(size)) return false;
    }
  }
  if (const JsonMember* theme = Find(fields, "theme")) {
    const std::optional<std::string> value = StringValue(theme->raw);
    if (!value || (*value != "light" && *value != "dark")) return false;
  }
  return true;
}

// The value of `member` when it is a JSON number, else nullopt; one too large for a double
// (1e400) is infinite, as JavaScript's JSON.parse reads it.
std::optional<double> NumberValue(const JsonMember& member) {
  if (member.type != JsonType::kNumber) return std::nullopt;
  return std::strtod(std::string(member.raw).c_str(), nullptr);
}

// A resource link's optional members: strings, a finite number `size` (the SDK's z.number()
// refuses the Infinity that 1e400 parses to: probe FA2), and `icons` an array of icons
// (ReadableIcon).
bool ReadableLinkExtras(const std::vector<JsonMember>& members) {
  if (!EachAbsentOr(members, {"mimeType", "description", "title"}, JsonType::kString)) {
    return false;
  }
  if (const JsonMember* size = Find(members, "size")) {
    const std::optional<double> value = NumberValue(*size);
    if (!value || !std::isfinite(*value)) return false;
  }
  const JsonMember* icons = Find(members, "icons");
  if (icons == nullptr) return true;
  const auto items = ArrayOf(*icons);
  if (!items) return false;
  for (std::string_view icon : *items) {
    if (!ReadableIcon(icon)) return false;
  }
  return true;
}

// The result's `_meta`: an object whose `progressToken`, when present, is a string or an
// integer, and whose related-task member, when present, is an object with a string `taskId`.
bool ReadableResultMeta(const JsonMember& meta) {
  if (meta.type != JsonType::kObject) return false;
  const std::vector<JsonMember> members = MembersOf(meta.raw);
  if (const JsonMember* token = Find(members, "progressToken")) {
    const bool integer = token->type == JsonType::kNumber &&
                         token->raw.find_first_of(".eE") == std::string::npos;
    if (token->type != JsonType::kString && !integer) return false;
  }
  if (const JsonMember* task = Find(members, "io.modelcontextprotocol/related-task")) {
    if (task->type != JsonType::kObject ||
        !Is(Find(MembersOf(task->raw), "taskId"), JsonType::kString)) {
      return false;
    }
  }
  return true;
}

// A date-time as the SDK's `z.iso.datetime({offset: true})` reads it: RFC 3339 with an
// upper-case T and Z and no leap second.
bool SdkDateTime(std::string_view text) {
  return trust::IsRfc3339DateTime(text) && text.size() >= 19 && text[10] == 'T' &&
         text.back() != 'z' && text.substr(17, 2) != "60";
}

// Annotations as the SDK's AnnotationsSchema reads them, when present: an object whose
// `audience` is an array of "user" and "assistant", `priority` a number from 0 to 1 and
// `lastModified` a date-time (probe FO1: the SDK threw on results the ledger called ok).
bool ReadableAnnotations(const JsonMember* annotations) {
  if (annotations == nullptr) return true;
  if (annotations->type != JsonType::kObject) return false;
  const std::vector<JsonMember> members = MembersOf(annotations->raw);
  if (const JsonMember* audience = Find(members, "audience")) {
    const auto roles = ArrayOf(*audience);
    if (!roles) return false;
    for (std::string_view role : *roles) {
      const std::optional<std::string> value = StringValue(role);
      if (!value || (*value != "user" && *value != "assistant")) return false;
    }
  }
  if (const JsonMember* priority = Find(members, "priority")) {
    const std::optional<double> value = NumberValue(*priority);
    if (!value || !(*value >= 0.0 && *value <= 1.0)) return false;
  }
  if (const JsonMember* modified = Find(members, "lastModified")) {
    const std::optional<std::string> value = StringValue(modified->raw);
    if (!value || !SdkDateTime(*value)) return false;
  }
  return true;
}

// One `content` item: an object with a string `type`, the members its type requires,
// readable `annotations` (ReadableAnnotations), and `_meta`, when present, an object.
bool ReadableItem(std::string_view item) {
  std::vector<JsonMember> members;
  bool is_object = false;
  if (transport::ObjectMembers(item, &members, transport::kDefaultMaxDepth, &is_object) !=
          JsonTextError::kNone ||
      !is_object) {
    return false;
  }
  const JsonMember* type = Find(members, "type");
  if (!Is(type, JsonType::kString)) return false;
  if (!ReadableAnnotations(Find(members, "annotations")) ||
      !AbsentOr(Find(members, "_meta"), JsonType::kObject)) {
    return false;
  }
  const auto strings = [&](std::initializer_list<std::string_view> keys) {
    for (std::string_view key : keys) {
      if (!Is(Find(members, key), JsonType::kString)) return false;
    }
    return true;
  };
  const std::optional<std::string> name = transport::DecodeJsonString(type->raw);
  if (name == "text") return strings({"text"});
  if (name == "image" || name == "audio") {
    return strings({"mimeType"}) && IsBase64String(Find(members, "data"));
  }
  if (name == "resource_link") return strings({"uri", "name"}) && ReadableLinkExtras(members);
  if (name == "resource") return ReadableResource(Find(members, "resource"));
  return false;  // a type Las does not know: the official client refuses the whole result
}

bool ReadableContent(std::string_view content) {
  std::vector<std::string_view> items;
  if (transport::ArrayElements(content, &items) != JsonTextError::kNone) return false;
  for (std::string_view item : items) {
    if (!ReadableItem(item)) return false;
  }
  return true;
}

}  // namespace

ResultShape ShapeOf(std::string_view result_json) {
  std::vector<JsonMember> members;
  bool is_object = false;
  ResultShape shape;
  switch (transport::ObjectMembers(result_json, &members, transport::kDefaultMaxDepth,
                                  &is_object, transport::DuplicateKeys::kRejected)) {
    case JsonTextError::kNone: break;
    case JsonTextError::kDuplicateKey: shape.why = "the result names a member twice"; return shape;
    case JsonTextError::kTooDeep: shape.why = "the result nests too deep"; return shape;
    case JsonTextError::kInvalidUtf8:
      shape.why = "the result is not valid UTF-8, or escapes a lone surrogate";
      return shape;
    case JsonTextError::kSyntax:
      // Also what a valid array, string, ... gives (probe HP3: called invalid JSON).
      shape.why = is_object ? "the result is not valid JSON" : "the result is not a JSON object";
      return shape;
  }
  shape.object = true;
  shape.readable = true;
  // The first member clients cannot read is named.
  auto readable_if = [&shape](bool readable, std::string_view why) {
    if (!readable && shape.readable) shape.why = why;
    shape.readable &= readable;
  };
  for (const JsonMember& member : members) {
    if (member.key == "_meta") {
      readable_if(ReadableResultMeta(member), "the result's _meta is not as MCP clients read it");
    } else if (member.key == "isError") {
      shape.tool_error = member.raw == "true";
      readable_if(member.type == JsonType::kBool, "the result's isError is not a boolean");
    } else if (member.key == "content") {
      readable_if(member.type == JsonType::kArray && ReadableContent(member.raw),
                  "the result's content is not an array of items MCP clients read");
    } else if (member.key == "structuredContent") {
      readable_if(member.type == JsonType::kObject,
                  "the result's structuredContent is not an object");
    }
  }
  return shape;
}

}  // namespace las::tools
