// reducers/las_std.h: the five reducers as pure functions.
#include "reducers/las_std.h"

#include <gtest/gtest.h>

namespace las::reducers {
namespace {

JsonValue V(std::string_view text) { return *ParseJsonValue(text); }

// The next value's canonical text, or "!" + the refusal code.
std::string Reduce(std::string_view name, const char* current, std::string_view operand) {
  auto reducer = StdReducerNamed(name);
  EXPECT_TRUE(reducer.has_value()) << name;
  std::optional<JsonValue> cur;
  if (current != nullptr) cur = V(current);
  auto next = ApplyStdReducer(*reducer, std::move(cur), V(operand));
  return next.ok() ? CanonicalText(*next) : "!" + next.status().message();
}

TEST(LasStdTest, Names) {
  for (auto name : {"replace", "append", "max", "merge_object", "set_union"}) {
    EXPECT_EQ(StdReducerName(*StdReducerNamed(name)), name);
  }
  EXPECT_FALSE(StdReducerNamed("sum").has_value());
}

TEST(LasStdTest, Replace) {
  EXPECT_EQ(Reduce("replace", nullptr, "1"), "1");
  EXPECT_EQ(Reduce("replace", "[1]", R"({"a":null})"), R"({"a":null})");
  // The state tools skip reading a current value only for the reducer that ignores it.
  EXPECT_FALSE(StdReducerReadsCurrent(StdReducer::kReplace));
  for (auto name : {"append", "max", "merge_object", "set_union"}) {
    EXPECT_TRUE(StdReducerReadsCurrent(*StdReducerNamed(name))) << name;
  }
}

TEST(LasStdTest, Append) {
  EXPECT_EQ(Reduce("append", nullptr, "1"), "[1]");
  EXPECT_EQ(Reduce("append", "null", "1"), "[1]");
  EXPECT_EQ(Reduce("append", "[1]", "[2]"), "[1,[2]]");
  EXPECT_EQ(Reduce("append", R"({"a":1})", "2"), "!not-an-array");
}

TEST(LasStdTest, Max) {
  EXPECT_EQ(Reduce("max", nullptr, "5"), "5");
  EXPECT_EQ(Reduce("max", "null", "-5"), "-5") << "a stored null is a missing key";
  EXPECT_EQ(Reduce("max", "5", "3"), "5");
  EXPECT_EQ(Reduce("max", "5", "5.5"), "5.5");
  EXPECT_EQ(Reduce("max", "123456789012345678901234567890", "123456789012345678901234567891"),
            "123456789012345678901234567891");
  EXPECT_EQ(Reduce("max", "\"a\"", "1"), "!not-a-number");
  EXPECT_EQ(Reduce("max", "1", "\"a\""), "!not-a-number");
}

TEST(LasStdTest, MergeObjectIsShallow) {
  EXPECT_EQ(Reduce("merge_object", nullptr, R"({"a":1})"), R"({"a":1})");
  EXPECT_EQ(Reduce("merge_object", "null", R"({"a":1})"), R"({"a":1})");
  EXPECT_EQ(Reduce("merge_object", R"({"a":{"x":1},"b":2})", R"({"a":{"y":2},"c":3})"),
            R"({"a":{"y":2},"b":2,"c":3})");
  EXPECT_EQ(Reduce("merge_object", "[1]", R"({"a":1})"), "!not-an-object");
  EXPECT_EQ(Reduce("merge_object", R"({"a":1})", "[1]"), "!not-an-object");
}

TEST(LasStdTest, SetUnionKeepsFirstOccurrenceOrder) {
  EXPECT_EQ(Reduce("set_union", nullptr, "[3,1,3]"), "[3,1]");
  EXPECT_EQ(Reduce("set_union", "null", "[2,2]"), "[2]");
  EXPECT_EQ(Reduce("set_union", "[1000000000000000]", "[1e15,1e+15]"), "[1000000000000000]");
  EXPECT_EQ(Reduce("set_union", R"([1,{"a":1,"b":2}])", R"([{"b":2,"a":1},2,1.0])"),
            R"([1,{"a":1,"b":2},2])");
  EXPECT_EQ(Reduce("set_union", "1", "[1]"), "!not-an-array");
  EXPECT_EQ(Reduce("set_union", "[1]", "1"), "!not-an-array");
}

}  // namespace
}  // namespace las::reducers
