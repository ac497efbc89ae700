#include "tools/exact_json_result.h"

#include "base/json_string.h"

namespace las::tools {

std::string ExactJsonResult(std::string_view object_json) {
  std::string out = "{\"content\":[{\"type\":\"text\",\"text\":";
  AppendJsonString(object_json, out);
  out += "}],\"structuredContent\":";
  out += object_json;
  out += "}";
  return out;
}

std::string ErrorJsonResult(std::string_view code, std::string_view message,
                            std::string_view extra_members) {
  std::string error = "{\"error\":{\"code\":";
  AppendJsonString(code, error);
  error += ",\"message\":";
  AppendJsonString(message, error);
  error += extra_members;
  error += "}}";
  std::string out = "{\"content\":[{\"type\":\"text\",\"text\":";
  AppendJsonString(error, out);
  out += "}],\"structuredContent\":";
  out += error;
  out += ",\"isError\":true}";
  return out;
}

void JsonObjectText::Key(std::string_view key) {
  if (text_.size() > 1) text_.push_back(',');
  AppendJsonString(key, text_);
  text_.push_back(':');
}

JsonObjectText& JsonObjectText::Raw(std::string_view key, std::string_view json) {
  Key(key);
  text_ += json;
  return *this;
}

JsonObjectText& JsonObjectText::String(std::string_view key, std::string_view value) {
  Key(key);
  AppendJsonString(value, text_);
  return *this;
}

JsonObjectText& JsonObjectText::Uint(std::string_view key, uint64_t value) {
  return Raw(key, std::to_string(value));
}

JsonObjectText& JsonObjectText::Int(std::string_view key, int64_t value) {
  return Raw(key, std::to_string(value));
}

JsonObjectText& JsonObjectText::Bool(std::string_view key, bool value) {
  return Raw(key, value ? "true" : "false");
}

std::string JsonObjectText::Take() {
  std::string out = std::move(text_);
  out.push_back('}');
  text_ = "{";
  return out;
}

}  // namespace las::tools
