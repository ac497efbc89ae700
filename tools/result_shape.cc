#include "tools/result_shape.h"

#include <vector>

#include "transport/json_text.h"

namespace las::tools {
namespace {

using transport::JsonMember;
using transport::JsonTextError;
using transport::JsonType;

// One `content` item: an object with a string `type`; a "text" item's `text` a string.
bool ReadableItem(std::string_view item) {
  std::vector<JsonMember> members;
  bool is_object = false;
  if (transport::ObjectMembers(item, &members, transport::kDefaultMaxDepth, &is_object) !=
          JsonTextError::kNone ||
      !is_object) {
    return false;
  }
  const JsonMember* type = nullptr;
  const JsonMember* text = nullptr;
  for (const JsonMember& member : members) {
    if (member.key == "type") type = &member;
    if (member.key == "text") text = &member;
  }
  if (type == nullptr || type->type != JsonType::kString) return false;
  if (transport::DecodeJsonString(type->raw) != "text") return true;
  return text != nullptr && text->type == JsonType::kString;
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
  if (transport::ObjectMembers(result_json, &members, transport::kDefaultMaxDepth, &is_object,
                               transport::DuplicateKeys::kRejected) != JsonTextError::kNone ||
      !is_object) {
    return shape;
  }
  shape.object = true;
  shape.readable = true;
  for (const JsonMember& member : members) {
    if (member.key == "isError") {
      shape.tool_error = member.raw == "true";
      shape.readable &= member.type == JsonType::kBool;
    } else if (member.key == "content") {
      shape.readable &= member.type == JsonType::kArray && ReadableContent(member.raw);
    } else if (member.key == "structuredContent") {
      shape.readable &= member.type == JsonType::kObject;
    }
  }
  return shape;
}

}  // namespace las::tools
