// FlatArgumentCheck: a fast accept path for the flat argument schemas most tools declare.
// Internal to trust/ (trust/argument_schema.cc and trust's tests); it holds nlohmann types.
//
// A schema is flat when its root is an object schema made of `properties`, `required` and
// `additionalProperties` (true, false or absent), and each property's schema only
// constrains the value's `type` (one name or a list), a string `enum`, `minLength` /
// `maxLength` and `minimum` / `maximum` — or nothing (`{}`, `true`). Annotations (title,
// description, default, examples, $comment, readOnly, writeOnly, deprecated; $schema and
// $id / id at the root) may stand anywhere. Anything else — a $ref, a nested `properties`,
// `pattern`, `format`, `const`, exclusive bounds, ... — makes the schema not flat, and
// For() answers nullopt. Las's own tools and typical MCP servers (zod-to-json-schema
// output) declare flat schemas.
//
// Accepts() reads the arguments text once with nlohmann's SAX parser, building no tree,
// and checks the strict-JSON rules (trust/strict_json.h: UTF-8, no byte-order mark, no
// duplicate key at any depth, finite numbers, the byte and depth limits) and the schema
// in the same pass. That is several times cheaper than the full path (a strict tree,
// integer normalization, valijson) that every call otherwise pays.
//
// Contract: Accepts() answers true only when the full validation of the same text against
// the same schema would accept it. False means "not decided here": the text may be valid
// or not, and the caller runs the full validation, which also words the refusal. So false
// is answered for every refusal and for what this check does not decide exactly: a string
// holding a NUL byte under a length bound (valijson counts up to the NUL), an integer
// beyond 2^53 under a numeric bound, empty text. A bound a double does not hold exactly
// (trust/argument_numbers_internal.h) makes the schema not flat. tests/trust/flat_argument_check_test.cc
// holds it to the full path over the JSON Schema Test Suite and generated instances.
//
// Thread safety: immutable after For(); Accepts() may run concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trust/strict_json.h"
#include "trust/strict_json_internal.h"

namespace las::trust::internal {

// Annotations: keywords that never change what validates (title, description, default,
// examples, $comment, readOnly, writeOnly, deprecated). Also what may stand beside a $ref
// (trust/argument_schema.cc).
bool IsAnnotationKeyword(std::string_view key);

class FlatArgumentCheck {
 public:
  // The check for the parsed schema `schema`, or nullopt when it is not flat.
  // `integral_floats_are_integers`: draft-06 and later ("integer" admits 1.0); false for
  // draft-04. `limits` bound the arguments text as the full path bounds it.
  static std::optional<FlatArgumentCheck> For(const Json& schema, bool integral_floats_are_integers,
                                              const StrictJsonLimits& limits);

  // See the contract above.
  bool Accepts(std::string_view arguments_json) const;

  // Type names as bits, for Property::types.
  enum TypeBit : uint8_t {
    kNull = 1,
    kBoolean = 2,
    kInteger = 4,
    kNumber = 8,  // admits integers too
    kString = 16,
    kArray = 32,
    kObject = 64,
    kAnyType = 127,
  };

  struct Property {
    std::string name;
    uint8_t types = kAnyType;
    std::vector<std::string> string_enum;  // empty: no enum
    std::optional<uint64_t> min_length, max_length;
    std::optional<double> minimum, maximum;
    int required_index = -1;  // its bit in the required mask, or -1
  };

 private:
  friend class FlatArgumentReader;
  std::vector<Property> properties_;
  bool additional_allowed_ = true;
  uint64_t required_mask_ = 0;  // one bit per required name (at most 64)
  bool integral_floats_are_integers_ = true;
  StrictJsonLimits limits_;
};

}  // namespace las::trust::internal
