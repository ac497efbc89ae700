// las.std: the reducers a state or blackboard update may name. Each is a pure function
// from the key's current value (absent for a key never written) and the caller's operand
// to the next value; all work on JsonValue (reducers/json_value.h), so the result has one
// canonical text.
//
//   replace       next = operand.
//   append        current absent or null: [operand]; current an array: current + [operand];
//                 otherwise refused ("not-an-array").
//   max           current absent or null: operand; both numbers: the greater (integers
//                 exactly, any size; ties keep current); otherwise refused ("not-a-number").
//   merge_object  operand must be an object ("not-an-object"); current absent or null:
//                 operand; current an object: its members with the operand's members set
//                 over them (shallow: one level); otherwise refused.
//   set_union     operand must be an array ("not-an-array"); current absent or null: the
//                 operand's distinct elements; current an array: current followed by the
//                 operand's elements not already present (equality of canonical values),
//                 in the operand's order; otherwise refused.
//
// The log records the resulting value of every update (StateWritten.value), so folding
// never re-runs a reducer; the reducer's name is recorded too, for audit.
//
// Errors: a refusal is kInvalidArgument whose message is the stable code in parentheses
// above. Thread-safe (pure).
#pragma once

#include <optional>
#include <string_view>

#include "base/result.h"
#include "reducers/json_value.h"

namespace las::reducers {

enum class StdReducer { kReplace, kAppend, kMax, kMergeObject, kSetUnion };

// "replace" -> kReplace, ...; nullopt for any other name.
std::optional<StdReducer> StdReducerNamed(std::string_view name);
std::string_view StdReducerName(StdReducer reducer);

// Whether the next value depends on the current one (all but replace): a caller may skip
// reading a large current value when it does not.
bool StdReducerReadsCurrent(StdReducer reducer);

// The next value; `current` is nullopt for a key never written (or not read, see above).
// Both are taken by value so that the result reuses them: values reach 1 MiB of JSON,
// whose trees are a hundred times that.
Result<JsonValue> ApplyStdReducer(StdReducer reducer, std::optional<JsonValue> current,
                                  JsonValue operand);

}  // namespace las::reducers
