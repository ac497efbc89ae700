// ValidateArguments on one ArgumentSchema from two threads at once (trust/argument_schema.h,
// "Thread safety"): the gateway checks large arguments on a worker thread while the loop
// checks small ones against the same compiled schema. Every verdict, refusal detail
// included, equals the one made alone. Meant for the sanitizer presets too: the schema
// takes every per-call path that touches the compiled state (patternProperties copies,
// RE2 patterns and sets, date-time formats, exact numbers, uniqueItems, references).
#include <gtest/gtest.h>

#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "trust/argument_schema.h"

namespace las::trust {
namespace {

constexpr const char* kSchema = R"({
  "type": "object",
  "definitions": {"small": {"type": "integer", "maximum": 10}},
  "properties": {
    "name": {"type": "string", "pattern": "^[a-z]+$"},
    "when": {"type": "string", "format": "date-time"},
    "big": {"type": "integer", "maximum": 9007199254740994},
    "tags": {"type": "array", "uniqueItems": true},
    "ref": {"$ref": "#/definitions/small"}
  },
  "patternProperties": {"^k": {"type": "integer"}, "^s": {"type": "string"}},
  "additionalProperties": false
})";

std::vector<std::string> Instances() {
  std::string many_keys = "{";
  for (int i = 0; i < 2000; ++i) {
    if (i > 0) many_keys += ",";
    many_keys += "\"k" + std::to_string(i) + "\":" + std::to_string(i);
  }
  std::string one_bad = many_keys + ",\"k-bad\":\"x\"}";
  many_keys += "}";
  return {
      many_keys,
      one_bad,
      R"({"name":"abc","when":"2026-12-01T00:00:00Z","big":9007199254740993})",
      R"({"name":"ABC","when":"2026-13-01T00:00:00Z","big":9007199254740994})",
      R"({"tags":[1,2,3],"ref":3,"s1":"x","k1":2})",
      R"({"tags":[1,1],"ref":11,"s1":1,"other":true})",
      R"({"name":"a","name":"b"})",
  };
}

struct Seen {
  bool ok = false;
  std::string reason;
  std::string detail;
  bool operator==(const Seen&) const = default;
};

Seen Check(const ArgumentSchema& schema, const std::string& instance) {
  const Verdict verdict = ValidateArguments(schema, instance);
  return {verdict.ok(), std::string(verdict.reason_name()), verdict.detail()};
}

TEST(ArgumentSchemaThreadsTest, TwoThreadsOnOneSchemaAgreeWithOneThreadAlone) {
  auto schema = CompileArgumentSchema(kSchema);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  const std::vector<std::string> instances = Instances();
  std::vector<Seen> alone;
  for (const auto& instance : instances) alone.push_back(Check(*schema, instance));
  // Accepted and refused both, so that both thread paths (one-pass accept aside) run.
  EXPECT_TRUE(alone[0].ok);
  EXPECT_FALSE(alone[1].ok);
  EXPECT_TRUE(alone[2].ok) << alone[2].detail;
  EXPECT_FALSE(alone[5].ok);

  constexpr int kRounds = 6;
  std::latch start(2);
  std::vector<Seen> seen[2];
  auto run = [&](int who) {
    start.arrive_and_wait();
    for (int round = 0; round < kRounds; ++round) {
      // The two threads walk the instances in opposite orders, so different paths overlap.
      for (size_t i = 0; i < instances.size(); ++i) {
        const size_t at = who == 0 ? i : instances.size() - 1 - i;
        seen[who].push_back(Check(*schema, instances[at]));
      }
    }
  };
  std::thread first(run, 0);
  std::thread second(run, 1);
  first.join();
  second.join();
  for (int who = 0; who < 2; ++who) {
    ASSERT_EQ(seen[who].size(), kRounds * instances.size());
    for (size_t n = 0; n < seen[who].size(); ++n) {
      const size_t i = n % instances.size();
      const size_t at = who == 0 ? i : instances.size() - 1 - i;
      EXPECT_EQ(seen[who][n], alone[at]) << "thread " << who << ", instance " << at << ": "
                                         << seen[who][n].detail << " / " << alone[at].detail;
    }
  }
}

}  // namespace
}  // namespace las::trust
