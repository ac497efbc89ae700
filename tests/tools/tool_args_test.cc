// Whole numbers among a las__ tool's arguments (tools/tool_args.h, tools/count_arg.h):
// JSON Schema's "integer" admits 2.0, so the handlers must read it as 2, not as absent.
#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "tools/count_arg.h"
#include "tools/tool_args.h"

namespace las::tools {
namespace {

using nlohmann::json;

TEST(ToolArgsTest, UintReadsWholeNumbersHoweverWritten) {
  struct Case {
    const char* text;
    std::optional<uint64_t> value;
  };
  for (const Case& c : {Case{"2", 2}, Case{"2.0", 2}, Case{"2e0", 2}, Case{"20e-1", 2}, Case{"-0.0", 0},
                        Case{"0", 0}, Case{"1e300", std::numeric_limits<uint64_t>::max()},
                        Case{"99999999999999999999999", std::numeric_limits<uint64_t>::max()},
                        Case{"2.5", std::nullopt}, Case{"-1", std::nullopt}, Case{"-1.0", std::nullopt},
                        Case{"\"2\"", std::nullopt}, Case{"true", std::nullopt}}) {
    auto args = ToolArgs::Parse(std::string(R"({"limit":)") + c.text + "}");
    ASSERT_TRUE(args.ok()) << c.text;
    EXPECT_EQ(args->Uint("limit"), c.value) << c.text;
  }
  EXPECT_EQ(ToolArgs::Parse("{}")->Uint("limit"), std::nullopt);
}

TEST(ToolArgsTest, TakeValueReadsEitherFormAndMovesTheValueOut) {
  auto args = ToolArgs::Parse(R"({"value":[1,{"a":"b"}],"body_json":"{\"x\": 2}","key":"k"})");
  ASSERT_TRUE(args.ok());
  auto value = args->TakeValue("value");
  ASSERT_TRUE(value.ok() && value.value);
  EXPECT_EQ(reducers::CanonicalText(*value.value), R"([1,{"a":"b"}])");
  auto again = args->TakeValue("value");
  ASSERT_TRUE(again.ok() && again.value);
  EXPECT_TRUE(again.value->is_null()) << "moved out, not copied";
  EXPECT_EQ(args->String("key"), "k") << "the other arguments stay";

  auto body = args->TakeValue("body");
  ASSERT_TRUE(body.ok() && body.value);
  EXPECT_EQ(reducers::CanonicalText(*body.value), R"({"x":2})");
  auto absent = args->TakeValue("other");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent.value);

  auto both = ToolArgs::Parse(R"({"value":1,"value_json":"1"})");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->TakeValue("value").refusal_code, "invalid-arguments");
  auto not_text = ToolArgs::Parse(R"({"value_json":1})");
  ASSERT_TRUE(not_text.ok());
  EXPECT_EQ(not_text->TakeValue("value").refusal_code, "invalid-arguments");
  auto not_json = ToolArgs::Parse(R"({"value_json":"[1,"})");
  ASSERT_TRUE(not_json.ok());
  auto refused = not_json->TakeValue("value");
  EXPECT_EQ(refused.refusal_code, "invalid-value");
  EXPECT_FALSE(refused.refusal_message.empty());
}

TEST(CountArgTest, ReadsWholeNumbersHoweverWrittenAndFallsBackOtherwise) {
  const json args = json::parse(R"({"a":2,"b":2.0,"c":3e0,"d":2.5,"e":-1,"f":"2","g":-0.0,"h":1e300})");
  EXPECT_EQ(CountArg(args, "a", 7), 2u);
  EXPECT_EQ(CountArg(args, "b", 7), 2u);
  EXPECT_EQ(CountArg(args, "c", 7), 3u);
  EXPECT_EQ(CountArg(args, "d", 7), 7u);
  EXPECT_EQ(CountArg(args, "e", 7), 7u);
  EXPECT_EQ(CountArg(args, "f", 7), 7u);
  EXPECT_EQ(CountArg(args, "g", 7), 0u);
  EXPECT_EQ(CountArg(args, "h", 7), std::numeric_limits<size_t>::max());
  EXPECT_EQ(CountArg(args, "absent", 7), 7u);
}

}  // namespace
}  // namespace las::tools
