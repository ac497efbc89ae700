// ToolArgs: a las__ tool's arguments object, parsed strictly and exactly
// (reducers/json_value.h), with typed lookups. The gateway has validated the arguments
// against the tool's input schema already; these lookups still check types and answer
// "absent" for anything unexpected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "reducers/json_value.h"

namespace las::tools {

// A state value or message body: at most this many bytes of canonical JSON.
inline constexpr size_t kMaxValueBytes = 1 << 20;
// A value nests at most this deep (its arguments object adds one level).
inline constexpr size_t kMaxValueDepth = 64;

class ToolArgs {
 public:
  // InvalidArgument if `json` is not one strict JSON object within the value bounds.
  static Result<ToolArgs> Parse(std::string_view json);

  std::optional<std::string> String(std::string_view name) const;
  // A non-negative whole number, written as an integer or as a double with no fraction
  // (2.0: JSON Schema's "integer" admits it); larger than 2^64-1 saturates. nullopt when
  // absent or not one.
  std::optional<uint64_t> Uint(std::string_view name) const;
  bool Bool(std::string_view name, bool fallback) const;

  // What TakeValue found. On refusal, `refusal_code` is the stable code the tool answers
  // with (docs/STATE.md): "invalid-arguments" when the arguments are shaped wrong (both
  // forms given, `name`_json not a string), "invalid-value" (with the parser's message)
  // when the text is not a JSON value.
  struct TakenValue {
    std::optional<reducers::JsonValue> value;  // nullopt when neither form is given
    std::string_view refusal_code;             // empty unless refused
    std::string refusal_message;
    bool ok() const { return refusal_code.empty(); }
  };

  // The JSON value given as `name` (any JSON) or as `name`_json (a string holding JSON
  // text, parsed strictly). Moves the value out rather than copying it (a 1 MiB value of
  // small elements is a tree of ~100 MiB): a second call for the same name finds a null
  // `name`.
  TakenValue TakeValue(std::string_view name);

 private:
  reducers::JsonValue root_;
};

}  // namespace las::tools
