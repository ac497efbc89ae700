#include "tools/tool_args.h"

#include <charconv>
#include <limits>
#include <utility>

#include "tools/count_arg.h"

namespace las::tools {
namespace {

// A double's text (JsonValue keeps the shortest form: 2.0 is "2") as a non-negative whole
// number: JSON Schema's "integer" admits 2.0 as well as 2.
std::optional<uint64_t> WholeDouble(const std::string& text) {
  double d = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  (void)end;
  if (ec != std::errc()) return std::nullopt;
  return WholeNumber(d);
}

}  // namespace

Result<ToolArgs> ToolArgs::Parse(std::string_view json) {
  reducers::JsonLimits limits;
  limits.max_bytes = 4 * kMaxValueBytes;  // the value, escaped in value_json, and the rest
  limits.max_depth = kMaxValueDepth + 1;
  auto root = reducers::ParseJsonValue(json, limits);
  if (!root.ok()) return root.status();
  if (!root->is_object()) return InvalidArgument("arguments must be a JSON object");
  ToolArgs args;
  args.root_ = std::move(*root);
  return args;
}

std::optional<std::string> ToolArgs::String(std::string_view name) const {
  const reducers::JsonValue* v = root_.Find(name);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->text;
}

std::optional<uint64_t> ToolArgs::Uint(std::string_view name) const {
  const reducers::JsonValue* v = root_.Find(name);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  if (!v->integer) return WholeDouble(v->text);
  if (v->text[0] == '-') return std::nullopt;
  uint64_t out = 0;
  auto [end, ec] = std::from_chars(v->text.data(), v->text.data() + v->text.size(), out);
  if (ec == std::errc::result_out_of_range) return std::numeric_limits<uint64_t>::max();
  if (ec != std::errc()) return std::nullopt;
  (void)end;
  return out;
}

bool ToolArgs::Bool(std::string_view name, bool fallback) const {
  const reducers::JsonValue* v = root_.Find(name);
  if (v == nullptr || v->kind != reducers::JsonValue::Kind::kBool) return fallback;
  return v->boolean;
}

ToolArgs::TakenValue ToolArgs::TakeValue(std::string_view name) {
  auto refused = [](std::string_view code, std::string message) {
    TakenValue taken;
    taken.refusal_code = code;
    taken.refusal_message = std::move(message);
    return taken;
  };
  reducers::JsonValue::Members& members = root_.object();
  auto found = members.find(name);
  reducers::JsonValue* direct = found == members.end() ? nullptr : &found->second;
  const reducers::JsonValue* text = root_.Find(std::string(name) + "_json");
  if (direct != nullptr && text != nullptr) {
    return refused("invalid-arguments",
                   "give " + std::string(name) + " or " + std::string(name) + "_json, not both");
  }
  TakenValue taken;
  if (direct != nullptr) {
    taken.value = std::exchange(*direct, {});
    return taken;
  }
  if (text == nullptr) return taken;
  if (!text->is_string()) {
    return refused("invalid-arguments", std::string(name) + "_json must be a string");
  }
  reducers::JsonLimits limits;
  limits.max_bytes = 2 * kMaxValueBytes;
  limits.max_depth = kMaxValueDepth;
  auto parsed = reducers::ParseJsonValue(text->text, limits);
  if (!parsed.ok()) return refused("invalid-value", parsed.status().message());
  taken.value = std::move(*parsed);
  return taken;
}

}  // namespace las::tools
