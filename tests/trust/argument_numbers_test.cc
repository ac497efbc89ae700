// Integer keywords against an exact oracle: every verdict on an integer argument under a
// bound, multipleOf, enum or const is either the exact one or "not checked" — never the
// opposite — and integers a double holds exactly are always decided.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "trust/argument_schema.h"

namespace las::trust {
namespace {

__extension__ typedef __int128 Int128;  // the oracle's integers: every int64_t and uint64_t

std::string ToText(Int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string digits;
  for (Int128 n = negative ? -v : v; n > 0; n /= 10) digits.insert(digits.begin(), static_cast<char>('0' + n % 10));
  return negative ? "-" + digits : digits;
}

// Integers around the places where doubles and int64_t lose them.
std::vector<Int128> InterestingIntegers() {
  const Int128 two53 = Int128{1} << 53;
  const Int128 two63 = Int128{1} << 63;
  const Int128 two64 = Int128{1} << 64;
  std::vector<Int128> out = {0, 1, 2, 3, 7, 100};
  for (Int128 base : {two53, two53 * 2, two63, Int128{1} << 60}) {
    for (int delta = -3; delta <= 3; ++delta) out.push_back(base + delta);
  }
  for (int delta = -3; delta <= -1; ++delta) out.push_back(two64 + delta);
  const size_t positive = out.size();
  for (size_t i = 1; i < positive; ++i) {
    if (out[i] <= two63) out.push_back(-out[i]);
  }
  return out;
}

// Whether a double holds `v` exactly. A schema integer must be one, or it fails compile
// (the release's digest could not bind it: trust/argument_schema.h).
bool HeldByDouble(Int128 v) {
  const Int128 two53 = Int128{1} << 53;
  if (v >= -two53 && v <= two53) return true;
  Int128 m = v < 0 ? -v : v;
  while ((m & 1) == 0) m >>= 1;
  return m <= two53;
}

// Decided, never "not checked": an int64_t that a double holds exactly. (Above 2^63-1 the
// validator would read a wrapped int64_t, so any numeric keyword refuses such a number.)
bool Decidable(Int128 v) { return v <= INT64_MAX && HeldByDouble(v); }

struct Keyword {
  const char* name;
  bool (*exact)(Int128 instance, Int128 value);
};

const Keyword kKeywords[] = {
    {"maximum", [](Int128 n, Int128 b) { return n <= b; }},
    {"minimum", [](Int128 n, Int128 b) { return n >= b; }},
    {"exclusiveMaximum", [](Int128 n, Int128 b) { return n < b; }},
    {"exclusiveMinimum", [](Int128 n, Int128 b) { return n > b; }},
    {"multipleOf", [](Int128 n, Int128 d) { return n % d == 0; }},
    {"const", [](Int128 n, Int128 c) { return n == c; }},
};

TEST(ArgumentNumbers, IntegerKeywordsAreExactOrNotChecked) {
  const std::vector<Int128> values = InterestingIntegers();
  std::mt19937_64 random(20261201);
  int decided = 0;
  int not_checked = 0;
  for (const Keyword& keyword : kKeywords) {
    for (Int128 value : values) {
      if (std::string_view(keyword.name) == "multipleOf" && value <= 0) continue;
      const std::string schema = std::string(R"({"type":"object","properties":{"n":{")") + keyword.name +
                                 R"(":)" + ToText(value) + "}}}";
      for (bool fast_accept : {true, false}) {
        ArgumentSchemaLimits limits;
        limits.fast_accept = fast_accept;
        Result<ArgumentSchema> compiled = CompileArgumentSchema(schema, limits);
        if (!HeldByDouble(value)) {
          EXPECT_EQ(compiled.status().code(), Code::kUnsupported) << schema;
          continue;
        }
        ASSERT_TRUE(compiled.ok()) << schema << ": " << compiled.status().ToString();
        // Every interesting instance, and random ones near the value.
        std::vector<Int128> instances = values;
        for (int i = 0; i < 8; ++i) instances.push_back(value + static_cast<Int128>(random() % 9) - 4);
        for (Int128 n : instances) {
          if (n >= (Int128{1} << 64) || n < -(Int128{1} << 63)) continue;  // not a JSON integer nlohmann reads
          const Verdict v = ValidateArguments(*compiled, R"({"n":)" + ToText(n) + "}");
          const bool exact = keyword.exact(n, value);
          const std::string what = schema + " with " + ToText(n) + (fast_accept ? "" : " (full path)") + ": " +
                                   (v.ok() ? "accepted" : v.detail());
          if (!v.ok() && v.detail().find("not checked") != std::string::npos) {
            ++not_checked;
            EXPECT_FALSE(Decidable(n) && Decidable(value)) << what;
            continue;
          }
          ++decided;
          EXPECT_EQ(v.ok(), exact) << what;
        }
      }
    }
  }
  EXPECT_GT(not_checked, 0);  // the oracle met the cases this test is about
  EXPECT_GT(decided, not_checked);
}

// enum as a set of integers: a member equal only as doubles never admits the argument.
TEST(ArgumentNumbers, EnumMembersEqualOnlyAsDoublesDoNotAdmit) {
  const Int128 two53 = Int128{1} << 53;
  struct Case {
    std::vector<Int128> members;
    Int128 n;
  };
  for (const Case& c : std::vector<Case>{
           {{two53}, two53 + 1},
           {{two53, two53 + 2}, two53 + 1},
           {{two53 + 2}, two53 + 3},
           {{-two53 - 2, 5}, -two53 - 1},
           {{Int128{1} << 62}, (Int128{1} << 62) + 1},
       }) {
    std::string members;
    bool exact = false;
    for (Int128 m : c.members) {
      members += (members.empty() ? "" : ",") + ToText(m);
      exact = exact || m == c.n;
    }
    const std::string schema = R"({"properties":{"n":{"enum":[)" + members + "]}}}";
    Result<ArgumentSchema> compiled = CompileArgumentSchema(schema);
    ASSERT_TRUE(compiled.ok()) << schema;
    const Verdict v = ValidateArguments(*compiled, R"({"n":)" + ToText(c.n) + "}");
    EXPECT_TRUE(v.ok() ? exact : !exact || v.detail().find("not checked") != std::string::npos)
        << schema << " with " << ToText(c.n) << ": " << (v.ok() ? "accepted" : v.detail());
  }
  // A member a double does not hold: the schema fails compile.
  EXPECT_EQ(CompileArgumentSchema(R"({"properties":{"n":{"enum":[)" + ToText(two53 + 1) + "]}}}").status().code(),
            Code::kUnsupported);
}

}  // namespace
}  // namespace las::trust
