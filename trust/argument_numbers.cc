#include "trust/argument_numbers_internal.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "base/decimal_multiple.h"
#include "base/json_decimal.h"

namespace las::trust::internal {

namespace {

// Every int64_t, uint64_t and double converts to a long double exactly (x86-64's 80-bit
// format has a 64-bit significand), so exact comparisons and remainders are plain long
// double arithmetic.
static_assert(std::numeric_limits<long double>::digits >= 64,
              "exact number checks need a long double that holds every 64-bit integer");

long double Exact(const Json& v) {
  if (v.is_number_unsigned()) return static_cast<long double>(v.get<uint64_t>());
  if (v.is_number_integer()) return static_cast<long double>(v.get<int64_t>());
  return static_cast<long double>(v.get<double>());
}

// The double valijson compares. Instances above 2^63-1 never reach it (they are hazards
// first); in the schema's copy they are already doubles, which get<double> reproduces.
double AsValijsonReadsIt(const Json& v) { return v.get<double>(); }

bool BeyondInt64(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX);
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return d == std::trunc(d) && !IntegralDoubleFitsInt64(d);
}

bool InexactAsDouble(const Json& v) {
  if (v.is_number_unsigned()) return !DoubleHoldsExactly(v.get<uint64_t>());
  return v.is_number_integer() && !DoubleHoldsExactly(v.get<int64_t>());
}

// Draft-06 and later (`enabled`): an integral double within int64_t becomes an integer.
void IntegralDoubleToInteger(Json& v, bool enabled) {
  if (!enabled || !v.is_number_float()) return;
  const double d = v.get<double>();
  if (IntegralDoubleFitsInt64(d)) v = static_cast<int64_t>(d);
}

// Equality as enum and const need it: numbers compared as valijson compares them (as
// doubles, its strict equality), or `kExactly`.
template <bool kExactly>
bool JsonEqual(const Json& a, const Json& b) {
  if (a.is_number() || b.is_number()) {
    if (!a.is_number() || !b.is_number()) return false;
    return kExactly ? Exact(a) == Exact(b) : AsValijsonReadsIt(a) == AsValijsonReadsIt(b);
  }
  if (a.is_array() && b.is_array()) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), JsonEqual<kExactly>);
  }
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a.items()) {
      const auto other = b.find(key);
      if (other == b.end() || !JsonEqual<kExactly>(value, *other)) return false;
    }
    return true;
  }
  return a == b;
}

// The keywords that compare one number with the schema's numbers.
constexpr const char* kComparingKeywords[] = {"maximum", "minimum", "exclusiveMaximum",
                                              "exclusiveMinimum", "multipleOf", "enum", "const"};
// The keywords that compare a whole array or object.
constexpr const char* kWholeValueKeywords[] = {"enum", "const", "uniqueItems"};

// Every one of `keywords` that `s` has ("maximum, minimum"): a value the validator cannot
// compare is checked against none of them (probes BN1, BP5: naming only the first named
// the wrong bound).
std::string KeywordsOf(const Json& s, std::span<const char* const> keywords) {
  std::string present;
  for (const char* keyword : keywords) {
    if (!s.contains(keyword)) continue;
    if (!present.empty()) present += ", ";
    present += keyword;
  }
  return present;
}
std::string ComparingKeywords(const Json& s) { return KeywordsOf(s, kComparingKeywords); }

// Whether the schema's "type" names `name` (alone or in a list).
bool TypeNames(const Json& s, const char* name) {
  const auto type = s.find("type");
  return type != s.end() &&
         (*type == name || (type->is_array() && std::find(type->begin(), type->end(), name) != type->end()));
}

// valijson reads an unsigned instance above 2^63-1 as a wrapped int64_t, and an integral
// number outside int64_t fails its "integer" type check.
std::optional<NumberHazard> BeyondInt64Hazard(const Json& s, const Json& v) {
  if (v.is_number_unsigned()) {
    if (std::string keywords = ComparingKeywords(s); !keywords.empty()) {
      return NumberHazard{std::move(keywords), "an integer above 9223372036854775807, which the validator cannot compare exactly"};
    }
    return std::nullopt;
  }
  if (TypeNames(s, "integer") && !TypeNames(s, "number")) {
    return NumberHazard{"type", "an integer outside the 64-bit range, which the validator cannot check as an integer"};
  }
  return std::nullopt;
}

constexpr const char* kInexact =
    "a number a double does not hold exactly, where the validator's comparison as doubles decides differently";

// One bound: `upper` for maximum-like keywords, `exclusive` for a strict one.
bool BoundDisagrees(const Json& v, const Json& bound, bool upper, bool exclusive) {
  auto passes = [&](auto value, auto limit) {
    if (upper) return exclusive ? value < limit : value <= limit;
    return exclusive ? value > limit : value >= limit;
  };
  return passes(AsValijsonReadsIt(v), AsValijsonReadsIt(bound)) != passes(Exact(v), Exact(bound));
}

std::optional<NumberHazard> BoundHazard(const Json& s, const Json& v, bool draft04) {
  struct Bound {
    const char* keyword;
    bool upper;
    bool exclusive;
  };
  auto flag = [&](const char* name) {
    const auto it = s.find(name);
    return it != s.end() && *it == true;
  };
  const Bound bounds[] = {
      {"maximum", true, draft04 && flag("exclusiveMaximum")},
      {"minimum", false, draft04 && flag("exclusiveMinimum")},
      {"exclusiveMaximum", true, true},
      {"exclusiveMinimum", false, true},
  };
  for (const Bound& b : bounds) {
    const auto it = s.find(b.keyword);
    if (it == s.end() || !it->is_number()) continue;  // draft-04's flags are booleans
    if (BoundDisagrees(v, *it, b.upper, b.exclusive)) return NumberHazard{b.keyword, kInexact};
  }
  return std::nullopt;
}

// The exact decimals a number of the parsed tree can stand for. An integer is itself. A
// double stands for its shortest form ("0.01", "1e+23"): a token that says more than that
// never gets here (LostPrecisionHazard refuses it first). An integral double written as an
// integer stands for the double's exact value instead (18446744073709551616 and
// 1.8446744073709552e19 read as the same double), so both are candidates.
std::vector<JsonDecimal> DecimalsOf(const Json& v) {
  char digits[400];  // the largest double has 309 integer digits
  auto decimal = [&](std::to_chars_result written) {
    return ParseJsonDecimal(std::string_view(digits, static_cast<size_t>(written.ptr - digits)));
  };
  if (v.is_number_unsigned()) return {decimal(std::to_chars(digits, digits + sizeof digits, v.get<uint64_t>()))};
  if (v.is_number_integer()) return {decimal(std::to_chars(digits, digits + sizeof digits, v.get<int64_t>()))};
  const double d = v.get<double>();
  std::vector<JsonDecimal> out = {decimal(std::to_chars(digits, digits + sizeof digits, d))};
  if (d == std::trunc(d)) {
    JsonDecimal exact = decimal(std::to_chars(digits, digits + sizeof digits, d, std::chars_format::fixed, 0));
    if (exact != out.front()) out.push_back(std::move(exact));
  }
  return out;
}

}  // namespace

std::optional<bool> ExactMultipleOf(const Json& v, const Json& divisor) {
  if (!v.is_number() || !divisor.is_number()) return std::nullopt;
  std::optional<bool> answer;
  for (const JsonDecimal& value : DecimalsOf(v)) {
    for (const JsonDecimal& by : DecimalsOf(divisor)) {
      const std::optional<bool> one = IsDecimalMultiple(value, by);
      if (!one || (answer && *answer != *one)) return std::nullopt;
      answer = one;
    }
  }
  return answer;
}

namespace {

// multipleOf is Las's, decided on decimals (ExactMultipleOf; valijson never sees the
// keyword): a hazard only where no exact answer exists.
std::optional<NumberHazard> MultipleOfHazard(const Json& s, const Json& v) {
  const auto it = s.find("multipleOf");
  if (it == s.end() || !it->is_number() || ExactMultipleOf(v, *it)) return std::nullopt;
  return NumberHazard{"multipleOf",
                      "a number whose multiple Las cannot decide exactly (a divisor of more than 19 "
                      "digits, or an integral double that two spellings read differently)"};
}

// Whether "v equals one of `members`" has a different answer from valijson than exactly.
bool EqualityDisagrees(std::span<const Json> members, const Json& v) {
  auto equal_to_v = [&](auto equal) {
    return std::any_of(members.begin(), members.end(), [&](const Json& m) { return equal(m, v); });
  };
  return equal_to_v(JsonEqual<false>) != equal_to_v(JsonEqual<true>);
}

std::optional<NumberHazard> EqualityHazard(const Json& s, const Json& v) {
  if (!v.is_number() && !v.is_structured()) return std::nullopt;  // no number to misread
  if (auto e = s.find("enum"); e != s.end() && e->is_array() &&
                               EqualityDisagrees(e->get_ref<const Json::array_t&>(), v)) {
    return NumberHazard{"enum", kInexact};
  }
  if (auto c = s.find("const"); c != s.end() && EqualityDisagrees({&*c, 1}, v)) {
    return NumberHazard{"const", kInexact};
  }
  return std::nullopt;
}

bool HoldsNumberNeedingExactCheck(const Json& v) {
  if (!v.is_structured()) return NeedsExactNumberCheck(v);
  return std::any_of(v.begin(), v.end(), HoldsNumberNeedingExactCheck);
}

// uniqueItems compares items with the same equality as enum.
std::optional<NumberHazard> UniqueItemsHazard(const Json& s, const Json& v) {
  const auto unique = s.find("uniqueItems");
  if (!v.is_array() || unique == s.end() || *unique != true || !HoldsNumberNeedingExactCheck(v)) {
    return std::nullopt;
  }
  bool valijson_duplicate = false;
  for (auto a = v.begin(); a != v.end(); ++a) {
    for (auto b = std::next(a); b != v.end(); ++b) {
      if (JsonEqual<true>(*a, *b)) return std::nullopt;  // a real duplicate: both refuse
      valijson_duplicate = valijson_duplicate || JsonEqual<false>(*a, *b);
    }
  }
  if (valijson_duplicate) return NumberHazard{"uniqueItems", kInexact};
  return std::nullopt;
}

}  // namespace

bool IntegralDoubleFitsInt64(double d) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  return d == std::trunc(d) && d >= -kTwoTo63 && d < kTwoTo63;
}

bool NeedsExactNumberCheck(const Json& v) { return BeyondInt64(v) || InexactAsDouble(v); }

bool SchemaNeedsNumberScan(const Json& v) {
  if (!v.is_structured()) return NeedsExactNumberCheck(v);
  if (v.is_object()) {
    if (v.contains("multipleOf")) return true;
  }
  return std::any_of(v.begin(), v.end(), SchemaNeedsNumberScan);
}

bool PrepareInstanceNumbers(Json& v, bool integral_doubles_are_integers) {
  IntegralDoubleToInteger(v, integral_doubles_are_integers);
  if (!v.is_structured()) return NeedsExactNumberCheck(v);
  bool needs = false;
  for (Json& child : v) needs = PrepareInstanceNumbers(child, integral_doubles_are_integers) || needs;
  return needs;
}

void PrepareSchemaNumbers(Json& v, bool integral_doubles_are_integers) {
  IntegralDoubleToInteger(v, integral_doubles_are_integers);
  if (v.is_number_unsigned() && BeyondInt64(v)) {
    v = static_cast<double>(v.get<uint64_t>());
  } else if (v.is_structured()) {
    for (Json& child : v) PrepareSchemaNumbers(child, integral_doubles_are_integers);
  }
}

std::optional<NumberHazard> LostPrecisionHazard(const Json& s, const Json& v, bool lost_here,
                                               bool lost_inside) {
  std::string keyword;
  if (v.is_number() && lost_here) {
    keyword = ComparingKeywords(s);
    if (keyword.empty() && TypeNames(s, "integer")) keyword = "type";
  } else if (v.is_structured() && lost_inside) {
    keyword = KeywordsOf(s, kWholeValueKeywords);
  }
  if (keyword.empty()) return std::nullopt;
  // 1e-400 (read as 0) as much as 2.0000000000000000001 (read as 2).
  return NumberHazard{std::move(keyword),
                      "a number a double does not hold as written, which the validator would "
                      "compare rounded"};
}

std::optional<NumberHazard> FindNumberHazard(const Json& s, const Json& v, bool draft04) {
  if (BeyondInt64(v)) {
    if (auto hazard = BeyondInt64Hazard(s, v)) return hazard;
  }
  if (v.is_number()) {
    if (auto hazard = BoundHazard(s, v, draft04)) return hazard;
    if (auto hazard = MultipleOfHazard(s, v)) return hazard;
  }
  if (auto hazard = UniqueItemsHazard(s, v)) return hazard;
  return EqualityHazard(s, v);
}

}  // namespace las::trust::internal
