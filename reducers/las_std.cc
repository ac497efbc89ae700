#include "reducers/las_std.h"

#include <set>
#include <string>
#include <utility>

namespace las::reducers {
std::optional<StdReducer> StdReducerNamed(std::string_view name) {
  if (name == "replace") return StdReducer::kReplace;
  if (name == "append") return StdReducer::kAppend;
  if (name == "max") return StdReducer::kMax;
  if (name == "merge_object") return StdReducer::kMergeObject;
  if (name == "set_union") return StdReducer::kSetUnion;
  return std::nullopt;
}

std::string_view StdReducerName(StdReducer reducer) {
  switch (reducer) {
    case StdReducer::kReplace: return "replace";
    case StdReducer::kAppend: return "append";
    case StdReducer::kMax: return "max";
    case StdReducer::kMergeObject: return "merge_object";
    case StdReducer::kSetUnion: return "set_union";
  }
  return "replace";
}

bool StdReducerReadsCurrent(StdReducer reducer) { return reducer != StdReducer::kReplace; }

Result<JsonValue> ApplyStdReducer(StdReducer reducer, std::optional<JsonValue> current,
                                  JsonValue operand) {
  const bool absent = !current || current->is_null();
  switch (reducer) {
    case StdReducer::kReplace:
      return operand;
    case StdReducer::kAppend: {
      if (!absent && !current->is_array()) return InvalidArgument("not-an-array");
      JsonValue out = absent ? JsonValue::Array() : std::move(*current);
      out.array().push_back(std::move(operand));
      return out;
    }
    case StdReducer::kMax: {
      if (!operand.is_number()) return InvalidArgument("not-a-number");
      if (absent) return operand;
      if (!current->is_number()) return InvalidArgument("not-a-number");
      return CompareNumbers(operand, *current) > 0 ? std::move(operand) : std::move(*current);
    }
    case StdReducer::kMergeObject: {
      if (!operand.is_object()) return InvalidArgument("not-an-object");
      if (absent) return operand;
      if (!current->is_object()) return InvalidArgument("not-an-object");
      JsonValue out = std::move(*current);
      for (auto& [key, value] : operand.object()) out.object().insert_or_assign(key, std::move(value));
      return out;
    }
    case StdReducer::kSetUnion: {
      if (!operand.is_array()) return InvalidArgument("not-an-array");
      if (!absent && !current->is_array()) return InvalidArgument("not-an-array");
      JsonValue out = absent ? JsonValue::Array() : std::move(*current);
      std::set<std::string> seen;
      for (const auto& element : std::as_const(out).array()) seen.insert(CanonicalText(element));
      for (auto& element : operand.array()) {
        if (seen.insert(CanonicalText(element)).second) out.array().push_back(std::move(element));
      }
      return out;
    }
  }
  return InvalidArgument("unknown-reducer");
}

}  // namespace las::reducers
