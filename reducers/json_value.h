// JsonValue: the values Las keeps in private state, on the blackboard and in messages —
// JSON trees with exact numbers, and their one canonical text.
//
// What is a value: null, true/false, strings, numbers, arrays, and objects with string
// keys. Parsing is strict: RFC 8259 grammar only (no NaN, Infinity, comments, trailing
// commas, single quotes), well-formed UTF-8 (no overlong forms, no encoded surrogates,
// nothing above U+10FFFF, no byte-order mark), \u escapes that form whole code points (a
// lone surrogate is refused), no repeated key within one object, nothing but whitespace
// after the value, at most `max_bytes` of text and `max_depth` open containers.
//
// Numbers: a number written without fraction and exponent is an integer and is kept
// exactly, digit for digit, whatever its size ("-0" becomes "0"). Any other number is an
// IEEE-754 double; it must be finite (1e400 is refused) and is written as the shortest
// text that reads back to the same double (std::to_chars), so 1.50 and 15e-1 are both
// "1.5", and 1e3 is "1000".
//
// Canonical text: compact (no whitespace), object members in ascending byte order of
// their UTF-8 keys, strings escaped as base/json_string.h does (RFC 8785 escapes). Equal
// values have equal canonical text, and Parse(CanonicalText(v)) == v.
//
// Errors: InvalidArgument with a message naming what is wrong and the byte offset; the
// message never quotes the input. Pure functions, no shared state: thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace las::reducers {

struct JsonLimits {
  size_t max_bytes = 1 << 20;
  size_t max_depth = 64;  // open containers at once: 1 admits [1], refuses [[1]]
};

struct JsonValue {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  using Elements = std::vector<JsonValue>;
  using Members = std::map<std::string, JsonValue, std::less<>>;

  Kind kind = Kind::kNull;
  bool boolean = false;
  bool integer = false;  // kNumber: written without fraction or exponent (kept exactly)
  std::string text;      // kNumber: canonical number text; kString: the decoded UTF-8

  JsonValue() = default;
  JsonValue(JsonValue&&) noexcept = default;
  JsonValue& operator=(JsonValue&&) noexcept = default;
  JsonValue(const JsonValue& other);
  JsonValue& operator=(const JsonValue& other);
  ~JsonValue() = default;

  // kArray's elements and kObject's members (empty for any other kind). The mutable forms
  // create the container on first use; they do not change `kind`.
  const Elements& array() const;
  Elements& array();
  const Members& object() const;
  Members& object();

  bool is_null() const { return kind == Kind::kNull; }
  bool is_number() const { return kind == Kind::kNumber; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_array() const { return kind == Kind::kArray; }
  bool is_object() const { return kind == Kind::kObject; }
  // The member named `key` of an object, or nullptr.
  const JsonValue* Find(std::string_view key) const;

  static JsonValue Array() { JsonValue v; v.kind = Kind::kArray; return v; }
  static JsonValue Object() { JsonValue v; v.kind = Kind::kObject; return v; }
  static JsonValue String(std::string s) {
    JsonValue v;
    v.kind = Kind::kString;
    v.text = std::move(s);
    return v;
  }

 private:
  // Most nodes of a large value are leaves: the containers live behind a pointer, allocated
  // only for an array or object, so a node is 48 bytes instead of 112 (docs/PERFORMANCE.md,
  // "Large values").
  struct Containers;
  struct DeleteContainers {
    void operator()(Containers* containers) const;
  };
  std::unique_ptr<Containers, DeleteContainers> containers_;
  Containers& EnsureContainers();
};

bool operator==(const JsonValue& a, const JsonValue& b);

// The value of `text` (see above), or InvalidArgument.
Result<JsonValue> ParseJsonValue(std::string_view text, const JsonLimits& limits = {});

// Containers open at once at the deepest point, as JsonLimits::max_depth counts them:
// 0 for a scalar, 1 for [1], 2 for [[1]].
size_t NestingDepth(const JsonValue& value);

// The canonical text of `value`.
std::string CanonicalText(const JsonValue& value);
void AppendCanonical(const JsonValue& value, std::string& out);

// Parse + CanonicalText in one step.
Result<std::string> CanonicalizeJsonValue(std::string_view text, const JsonLimits& limits = {});

// Numeric order of two numbers: <0, 0, >0, exactly (integers of any size against each
// other and against doubles; two doubles as doubles).
int CompareNumbers(const JsonValue& a, const JsonValue& b);

}  // namespace las::reducers
