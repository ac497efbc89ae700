#include "transport/json_text.h"

#include <gtest/gtest.h>

#include <string>

namespace las::transport {
namespace {

TEST(JsonText, AcceptsRfc8259Values) {
  for (const char* ok : {"0", "-0", "1.5e-3", "\"a\"", "true", "null", "[]", "{}",
                         " {\"a\" : [1, {\"b\": null}]} ", "\"\\ud83d\\ude00\"", "-12E+4"}) {
    EXPECT_EQ(ValidateJson(ok), JsonTextError::kNone) << ok;
  }
}

TEST(JsonText, RejectsBadSyntax) {
  for (const char* bad : {"", "01", "1.", ".5", "+1", "[1,]", "{\"a\":1,}", "{a:1}", "'a'",
                          "[1] x", "nul", "\"\\x\"", "\"tab\there\"", "{\"a\" 1}", "1e"}) {
    EXPECT_EQ(ValidateJson(bad), JsonTextError::kSyntax) << bad;
  }
}

TEST(JsonText, RejectsInvalidUtf8AndLoneSurrogates) {
  EXPECT_EQ(ValidateJson("\"\xff\""), JsonTextError::kInvalidUtf8);
  EXPECT_EQ(ValidateJson("\"\xc0\xaf\""), JsonTextError::kInvalidUtf8);      // overlong '/'
  EXPECT_EQ(ValidateJson("\"\xed\xa0\x80\""), JsonTextError::kInvalidUtf8);  // encoded surrogate
  EXPECT_EQ(ValidateJson("\"\xf4\x90\x80\x80\""), JsonTextError::kInvalidUtf8);  // > U+10FFFF
  EXPECT_EQ(ValidateJson("\"\\ud800\""), JsonTextError::kInvalidUtf8);
  EXPECT_EQ(ValidateJson("\"\\udc00\\ud800\""), JsonTextError::kInvalidUtf8);
  EXPECT_EQ(ValidateJson("\"h\xc3\xa9llo \xf0\x9f\x98\x80\""), JsonTextError::kNone);
}

TEST(JsonText, DepthIsBounded) {
  EXPECT_EQ(ValidateJson("[1]", 1), JsonTextError::kNone);
  EXPECT_EQ(ValidateJson("[[1]]", 1), JsonTextError::kTooDeep);
  std::string deep(64, '[');
  deep += std::string(64, ']');
  EXPECT_EQ(ValidateJson(deep), JsonTextError::kNone);
  std::string bomb(100000, '[');  // never closed: the depth check stops it first
  EXPECT_EQ(ValidateJson(bomb), JsonTextError::kTooDeep);
}

TEST(JsonText, ObjectMembersKeepsRawValues) {
  std::vector<JsonMember> m;
  ASSERT_EQ(ObjectMembers(R"({"id" : 1.50, "k\u0065y":"v", "o":{"x":[1]}})", &m),
            JsonTextError::kNone);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].key, "id");
  EXPECT_EQ(m[0].raw, "1.50");
  EXPECT_EQ(m[0].type, JsonType::kNumber);
  EXPECT_EQ(m[1].key, "key");
  EXPECT_EQ(m[1].raw, "\"v\"");
  EXPECT_EQ(m[2].raw, R"({"x":[1]})");
  EXPECT_EQ(m[2].type, JsonType::kObject);
  bool is_object = true;
  EXPECT_EQ(ObjectMembers("[1]", &m, 64, &is_object), JsonTextError::kSyntax);
  EXPECT_FALSE(is_object);
}

TEST(JsonText, ArrayElements) {
  std::vector<std::string_view> e;
  ASSERT_EQ(ArrayElements(R"([ {"a":1} , "b",3 ])", &e), JsonTextError::kNone);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0], R"({"a":1})");
  EXPECT_EQ(e[2], "3");
  EXPECT_EQ(ArrayElements("{}", &e), JsonTextError::kSyntax);
}

TEST(JsonText, DecodeAndQuoteRoundTrip) {
  EXPECT_EQ(DecodeJsonString(R"("a\"b\\c\n\u00e9\ud83d\ude00")"),
            std::string("a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80"));
  EXPECT_FALSE(DecodeJsonString("\"unterminated"));
  EXPECT_FALSE(DecodeJsonString("\"a\" "));
  std::string s = std::string("q\"\\\n\x01 ok", 9);
  EXPECT_EQ(DecodeJsonString(QuoteJsonString(s)), s);
  EXPECT_EQ(QuoteJsonString("\x01"), "\"\\u0001\"");
}

TEST(JsonText, SalvageIdFromTheEndOfACutText) {
  EXPECT_EQ(SalvageTrailingNumberMember(R"(xxxx"}]},"id":42})", "id"), "42");
  EXPECT_EQ(SalvageTrailingNumberMember("xx\" , \"id\" :\t-1.5e3 }\r\n", "id"), "-1.5e3");
  EXPECT_EQ(SalvageTrailingNumberMember(R"({"id":7})", "id"), "7");
  // Not a top-level number member at the very end.
  EXPECT_FALSE(SalvageTrailingNumberMember(R"(xx","id":42}})", "id")) << "nested object";
  EXPECT_FALSE(SalvageTrailingNumberMember(R"(xx","id":"42"})", "id")) << "a string id";
  EXPECT_FALSE(SalvageTrailingNumberMember(R"(xx","xid":42})", "id")) << "another key";
  EXPECT_FALSE(SalvageTrailingNumberMember(R"(xx"id":42})", "id")) << "an escaped quote";
  EXPECT_FALSE(SalvageTrailingNumberMember(R"(xx","id":4-2})", "id")) << "not a number";
  EXPECT_FALSE(SalvageTrailingNumberMember(R"(xx","id":42)", "id")) << "no closing brace";
  EXPECT_FALSE(SalvageTrailingNumberMember(R"("id":42})", "id")) << "no member before it";
}

TEST(JsonText, SalvageIdFromCutPrefix) {
  EXPECT_EQ(SalvageTopLevelMember(R"({"jsonrpc":"2.0","id":42,"result":{"text":"xxxx)", "id"),
            "42");
  EXPECT_EQ(SalvageTopLevelMember(R"({"id":"a\"b","result":)", "id"), R"("a\"b")");
  // The number might continue past the cut.
  EXPECT_FALSE(SalvageTopLevelMember(R"({"jsonrpc":"2.0","id":42)", "id"));
  // The id comes after the cut.
  EXPECT_FALSE(SalvageTopLevelMember(R"({"result":{"text":"xxxxx)", "id"));
  EXPECT_FALSE(SalvageTopLevelMember(R"({"id":{"a":1},"x":1)", "id"));
  EXPECT_FALSE(SalvageTopLevelMember(R"([1,2)", "id"));
}

}  // namespace
}  // namespace las::transport
