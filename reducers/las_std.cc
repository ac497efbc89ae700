#include "reducers/las_std.h"

#include <set>
#include <string>

namespace las::reducers {
namespace {

bool Absent(const JsonValue* v) { return v == nullptr || v->is_null(); }

}  // namespace

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

Result<JsonValue> ApplyStdReducer(StdReducer reducer, const JsonValue* current,
                                  const JsonValue& operand) {
  switch (reducer) {
    case StdReducer::kReplace:
      return operand;
    case StdReducer::kAppend: {
      if (Absent(current)) {
        JsonValue out = JsonValue::Array();
        out.array.push_back(operand);
        return out;
      }
      if (!current->is_array()) return InvalidArgument("not-an-array");
      JsonValue out = *current;
      out.array.push_back(operand);
      return out;
    }
    case StdReducer::kMax: {
      if (!operand.is_number()) return InvalidArgument("not-a-number");
      if (Absent(current)) return operand;
      if (!current->is_number()) return InvalidArgument("not-a-number");
      return CompareNumbers(operand, *current) > 0 ? operand : *current;
    }
    case StdReducer::kMergeObject: {
      if (!operand.is_object()) return InvalidArgument("not-an-object");
      if (Absent(current)) return operand;
      if (!current->is_object()) return InvalidArgument("not-an-object");
      JsonValue out = *current;
      for (const auto& [key, value] : operand.object) out.object.insert_or_assign(key, value);
      return out;
    }
    case StdReducer::kSetUnion: {
      if (!operand.is_array()) return InvalidArgument("not-an-array");
      if (!Absent(current) && !current->is_array()) return InvalidArgument("not-an-array");
      JsonValue out = Absent(current) ? JsonValue::Array() : *current;
      std::set<std::string> seen;
      for (const auto& element : out.array) seen.insert(CanonicalText(element));
      for (const auto& element : operand.array) {
        if (seen.insert(CanonicalText(element)).second) out.array.push_back(element);
      }
      return out;
    }
  }
  return InvalidArgument("unknown-reducer");
}

}  // namespace las::reducers
