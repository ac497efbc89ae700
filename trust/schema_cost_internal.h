// The worst-case work of validating one argument value against a schema, bounded at
// compile. Internal to trust/ (argument_schema.cc and trust's tests); it holds nlohmann types.
//
// valijson evaluates every subschema that applies, once per path that reaches it, and
// remembers nothing: a schema whose applicators share subschemas (oneOf/anyOf/allOf over
// common $refs) is a DAG evaluated as the tree it unfolds to. Seventeen definitions
// d_i = {"oneOf": [{"$ref": d_(i+1)}, {"allOf": [{"$ref": d_(i+1)}]}]} (1.6 KiB) made one
// check of {"x": 1} take 8.4 s on the server's loop, twice as long per definition more
// (probe AC2). Linear-time regexes do not help: the blow-up is in the schema's structure.
//
// WorstCaseEvaluations counts, for the worst single value of an instance at any depth up
// to `max_depth` (the arguments' nesting bound), how many subschema evaluations can reach
// it: the number of paths through the schema graph that end there. In-place applicators
// ($ref, allOf, anyOf, oneOf, not, if, then, else, schema-valued dependencies) keep the
// value; descending ones (properties, patternProperties, additionalProperties,
// propertyNames, items, additionalItems, contains) move to a member or an item. It is an
// upper bound: every branch counts (though anyOf stops at the first that passes), all
// patternProperties and additionalProperties count for every member, and a member is
// counted per name: in-place siblings whose `properties` name different members do not add
// up for one value (a tree whose node is an anyOf of {"properties": {"l": node}} and
// {"properties": {"r": node}} costs per level what one level costs; probe AD4), those that
// name the same one do. A recursive $ref is followed as deep as an instance can nest (so
// recursion that descends costs per level what one level costs), and an in-place cycle,
// which valijson would follow forever, is unbounded (kUnboundedEvaluations); other counts
// saturate at kManyEvaluations.
//
// The whole validation is then at most (values in the instance) × this count, and the
// instance is bounded by ArgumentSchemaLimits. Cost of the count: O(edges × member names
// × max_depth).
//
// Thread safety: a pure function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "trust/strict_json_internal.h"

namespace las::trust::internal {

// A schema whose count exceeds this fails compile (kUnsupported, schema-unsupported). The
// probe's chain at 10 definitions counts 5,117 and its check of {"x":1} took 0.22 s in a
// debug build; at 11 it counts 10,237 and is refused. Every real schema in the
// repository's examples and test children, and server-everything's 13 tools, counts 2 at
// most: the budget leaves room for large unions without letting a check stall the loop.
inline constexpr uint64_t kMaxSchemaEvaluations = 10'000;

// A count returned for an in-place cycle (valijson would never end), and the finite count
// every other saturates at (more than any budget: exponential in the depth).
inline constexpr uint64_t kUnboundedEvaluations = uint64_t{1} << 62;
inline constexpr uint64_t kManyEvaluations = kUnboundedEvaluations - 1;

// `resolve`: the schema node a "$ref" string names (nullptr: none, counted as nothing).
using RefResolver = std::function<const Json*(const std::string& ref)>;

uint64_t WorstCaseEvaluations(const Json& root, const RefResolver& resolve, size_t max_depth);

}  // namespace las::trust::internal
