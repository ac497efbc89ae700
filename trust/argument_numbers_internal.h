// Numbers in argument validation: where valijson's reading of a number differs from the
// number's value, and what the full path (trust/argument_schema.cc) does about it.
// Internal to trust/ (argument_schema.cc, flat_argument_check.cc and trust's tests); it
// holds nlohmann types.
//
// valijson holds every integer as an int64_t and compares numbers as doubles: bounds
// (`maximum`, `minimum`, `exclusiveMaximum`, `exclusiveMinimum`), and the numbers inside
// `enum` and `const` data and `uniqueItems` arrays. (`multipleOf` it never decides: its
// remainder with an absolute tolerance of one epsilon refused 19.99 for 0.01 and took
// 1e-17 for 1; Las decides it on decimals, ExactMultipleOf.) So:
// - What a copy can fix is fixed in the copies valijson reads (PrepareSchemaNumbers,
//   PrepareInstanceNumbers): draft-06's integral doubles (1.0 is an integer), schema
//   integers above 2^63-1 (they would wrap).
// - What no copy can fix — an argument integer a double cannot hold (2^53+1; a schema
//   integer like that fails compile, trust/argument_schema.h), one valijson cannot hold
//   (above 2^63-1), a `multipleOf` no exact answer exists for — is found by
//   FindNumberHazard, which decides each such keyword exactly and reports a keyword whose
//   valijson verdict would differ. The caller refuses the call as "not checked" rather
//   than let a wrong verdict stand.
#pragma once

#include <optional>
#include <string>

#include "trust/strict_json_internal.h"

namespace las::trust::internal {

// Integral and within [-2^63, 2^63): the full path hands such a double to valijson as an
// int64_t in draft-06 and later. False for NaN and the infinities.
bool IntegralDoubleFitsInt64(double d);

// A number that needs FindNumberHazard: an integer valijson cannot hold as an int64_t (an
// unsigned one above 2^63-1, an integral double outside int64_t such as 1e20), or an
// integer a double does not hold exactly (9007199254740993).
bool NeedsExactNumberCheck(const Json& v);

// Whether FindNumberHazard must see every call against this schema: it holds a number
// that NeedsExactNumberCheck, or a `multipleOf` (ExactMultipleOf may have no answer).
bool SchemaNeedsNumberScan(const Json& schema);

// The copies valijson reads. `integral_doubles_are_integers`: draft-06 and later.
// PrepareInstanceNumbers answers whether the prepared copy holds a number that
// NeedsExactNumberCheck.
bool PrepareInstanceNumbers(Json& instance, bool integral_doubles_are_integers);
void PrepareSchemaNumbers(Json& schema, bool integral_doubles_are_integers);

// `multipleOf` exactly: whether the number `v` (of the parsed tree) is an integer multiple of
// `divisor` (a schema number, as written), on decimals (base/decimal_multiple.h). A
// double stands for its shortest form — the value of every token that does not lose
// precision (LosesPrecisionAsDouble; those are hazards before this is asked), and what the
// release's digest (JCS) binds for a schema number — so 19.99 is a multiple of 0.01 and
// 0.30000000000000004 is not one of 0.1; an integer stands for itself. nullopt when there
// is no exact answer: not a number, a divisor of more than 19 significant digits, or an
// integral double beyond 2^53 whose shortest form and exact value (two spellings of it)
// get different answers (1e23 vs 99999999999999991611392 under multipleOf 7).
std::optional<bool> ExactMultipleOf(const Json& v, const Json& divisor);

struct NumberHazard {
  std::string keyword;
  std::string why;
};

// For a number whose text says more than its double (LosesPrecisionAsDouble,
// trust/strict_json_internal.h): the keyword of `schema` that would compare it rounded —
// `instance` itself when `lost_here`, or a container holding such a number
// (`lost_inside`) under enum, const or uniqueItems — or nullopt.
std::optional<NumberHazard> LostPrecisionHazard(const Json& schema, const Json& instance,
                                               bool lost_here, bool lost_inside);

// The first keyword of the schema object `schema` (its own keywords, not its subschemas')
// whose verdict on `instance`, as valijson reaches it from the prepared copies, could
// differ from the exact verdict; nullopt when every such verdict is exact. `schema` is the
// schema as written; `instance` the prepared copy. `draft04`: `exclusiveMaximum` and
// `exclusiveMinimum` are flags on the bounds. Conservative where exactness would need
// arbitrary precision: an unsigned integer above 2^63-1 under any bound, multipleOf, enum
// or const, and an integral number outside int64_t under `"type": "integer"` (without
// "number"), are hazards.
std::optional<NumberHazard> FindNumberHazard(const Json& schema, const Json& instance, bool draft04);

}  // namespace las::trust::internal
