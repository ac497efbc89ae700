// Feeds: arbitrary bytes to reducers::ParseJsonValue, the strict parser of the values
// agents store (state, blackboard, messages).
// Checks, besides no crash: a differential against nlohmann — what Las accepts, nlohmann
// accepts, with the same value (strings byte for byte, integers digit for digit, doubles
// equal — Las keeps -0.0 as 0 —, same members and elements); trust::CheckStrictJson agrees
// with it both ways (except an integer beyond a double's range, which only trust refuses);
// the canonical text parses back to an equal value and is a fixed point; NestingDepth is
// within the limit; CompareNumbers is antisymmetric over the numbers of a top-level array.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_check.h"
#include "fuzz/nlohmann_overflows.h"
#include "reducers/json_value.h"
#include "trust/strict_json.h"

namespace {

using las::reducers::JsonValue;
using Kind = JsonValue::Kind;

// Equal doubles; -0.0 equals 0.0 (Las writes both as "0", reducers/json_value.cc).
bool SameDouble(double a, double b) { return a == b; }

bool Agree(const JsonValue& v, const nlohmann::json& j) {
  switch (v.kind) {
    case Kind::kNull: return j.is_null();
    case Kind::kBool: return j.is_boolean() && j.get<bool>() == v.boolean;
    case Kind::kString: return j.is_string() && j.get_ref<const std::string&>() == v.text;
    case Kind::kNumber:
      if (j.is_number_unsigned()) return v.integer && std::to_string(j.get<uint64_t>()) == v.text;
      if (j.is_number_integer()) return v.integer && std::to_string(j.get<int64_t>()) == v.text;
      // nlohmann reads an integer beyond 64 bits as a double; Las keeps its digits.
      return j.is_number_float() &&
             SameDouble(std::strtod(v.text.c_str(), nullptr), j.get<double>());
    case Kind::kArray:
      if (!j.is_array() || j.size() != v.array().size()) return false;
      for (size_t i = 0; i < v.array().size(); ++i) {
        if (!Agree(v.array()[i], j[i])) return false;
      }
      return true;
    case Kind::kObject:
      if (!j.is_object() || j.size() != v.object().size()) return false;
      for (const auto& [key, member] : v.object()) {
        auto it = j.find(key);
        if (it == j.end() || !Agree(member, *it)) return false;
      }
      return true;
  }
  return false;
}

int Sign(int x) { return (x > 0) - (x < 0); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = las::reducers::ParseJsonValue(text);
  const bool trust_ok = las::trust::CheckStrictJson(text).ok();
  if (!parsed.ok()) {
    LAS_FUZZ_CHECK(!trust_ok, "trust::CheckStrictJson accepts what ParseJsonValue refuses");
    return 0;
  }
  const JsonValue& value = *parsed;

  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const bool huge_integer = j.is_discarded() && las::fuzz::NlohmannOverflows(text);
  LAS_FUZZ_CHECK(!j.is_discarded() || huge_integer, "ParseJsonValue accepts what nlohmann refuses");
  if (!huge_integer) LAS_FUZZ_CHECK(Agree(value, j), "ParseJsonValue and nlohmann read different values");
  if (!trust_ok) {
    LAS_FUZZ_CHECK(huge_integer, "trust::CheckStrictJson refuses what ParseJsonValue accepts");
  }

  LAS_FUZZ_CHECK(las::reducers::NestingDepth(value) <= las::reducers::JsonLimits{}.max_depth,
                 "NestingDepth beyond the limit");
  const std::string canonical = las::reducers::CanonicalText(value);
  auto again = las::reducers::ParseJsonValue(canonical);
  LAS_FUZZ_CHECK(again.ok(), "the canonical text does not parse");
  LAS_FUZZ_CHECK(*again == value, "the canonical text parses to another value");
  LAS_FUZZ_CHECK(las::reducers::CanonicalText(*again) == canonical, "canonical text not a fixed point");
  auto one_step = las::reducers::CanonicalizeJsonValue(text);
  LAS_FUZZ_CHECK(one_step.ok() && *one_step == canonical, "CanonicalizeJsonValue differs");

  if (value.is_array()) {
    const size_t n = std::min<size_t>(value.array().size(), 8);
    for (size_t a = 0; a < n; ++a) {
      for (size_t b = 0; b < n; ++b) {
        const JsonValue& x = value.array()[a];
        const JsonValue& y = value.array()[b];
        if (!x.is_number() || !y.is_number()) continue;
        const int xy = Sign(las::reducers::CompareNumbers(x, y));
        LAS_FUZZ_CHECK(xy == -Sign(las::reducers::CompareNumbers(y, x)), "CompareNumbers not antisymmetric");
        LAS_FUZZ_CHECK((xy == 0) == (x == y) || !x.integer || !y.integer,
                       "CompareNumbers and == disagree on two integers");
      }
    }
  }
  return 0;
}
