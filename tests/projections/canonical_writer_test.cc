// CanonicalWriter: the exact text it writes, and that a chunked sink sees the same bytes.
#include "projections/canonical_writer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace las::projections {
namespace {

std::string Text(void (*write)(CanonicalWriter&)) {
  std::string out;
  CanonicalWriter writer(&out);
  write(writer);
  writer.Finish();
  return out;
}

std::string StringText(std::string_view value) {
  std::string out;
  CanonicalWriter writer(&out);
  writer.String(value);
  return out;
}

TEST(CanonicalWriter, WritesCompactObjectsWithCommasOnlyBetweenMembers) {
  EXPECT_EQ(Text([](CanonicalWriter& w) {
              w.BeginObject();
              w.Key("a");
              w.BeginObject();
              w.EndObject();
              w.Key("b");
              w.BeginObject();
              w.Key("x");
              w.Uint(18446744073709551615u);
              w.Key("y");
              w.Int(-9223372036854775807 - 1);
              w.EndObject();
              w.Key("c");
              w.Bool(true);
              w.Key("d");
              w.Bool(false);
              w.EndObject();
            }),
            R"({"a":{},"b":{"x":18446744073709551615,"y":-9223372036854775808},"c":true,"d":false})");
}

TEST(CanonicalWriter, WritesArraysOfUnsignedIntegersInOrder) {
  EXPECT_EQ(Text([](CanonicalWriter& w) {
              w.BeginObject();
              w.Key("e");
              w.Uints({});
              w.Key("s");
              w.Uints({3, 1, 18446744073709551615u});
              w.EndObject();
            }),
            R"({"e":[],"s":[3,1,18446744073709551615]})");
}

TEST(CanonicalWriter, EscapesLikeJsonStringifyAndNlohmannDump) {
  const std::string nasty = std::string("q\"b\\s/\b\f\n\r\t\x01\x1f\x7f", 14) + std::string(1, '\0') +
                            "é€𝄞";
  EXPECT_EQ(StringText(nasty), nlohmann::json(nasty).dump());
  EXPECT_EQ(StringText(nasty),
            std::string("\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\\u0000é€𝄞\""));
}

TEST(CanonicalWriter, WritesBytesThatAreNotUtf8AsLoneSurrogateEscapes) {
  EXPECT_EQ(StringText("a\xff" "b"), R"("a\udcffb")");
  EXPECT_EQ(StringText("\xc3"), R"("\udcc3")");                 // truncated sequence
  EXPECT_EQ(StringText("\xc0\xaf"), R"("\udcc0\udcaf")");       // overlong '/'
  EXPECT_EQ(StringText("\xed\xa0\x80"), R"("\udced\udca0\udc80")");  // UTF-8 of a surrogate
  EXPECT_EQ(StringText("\xf4\x90\x80\x80"), R"("\udcf4\udc90\udc80\udc80")");  // > U+10FFFF
  EXPECT_EQ(StringText("\xe2\x82"), R"("\udce2\udc82")");
  // Valid sequences around invalid bytes stay as they are.
  EXPECT_EQ(StringText("\xc3\xa9\x80\xc3\xa9"), "\"\xc3\xa9\\udc80\xc3\xa9\"");
  // Different bytes never give the same text.
  EXPECT_NE(StringText("\xff"), StringText("\xc3\xbf"));
  EXPECT_NE(StringText("\xff"), StringText("\\udcff"));
}

TEST(CanonicalWriter, ChunkedSinkSeesExactlyTheStringText) {
  auto write = [](CanonicalWriter& w) {
    w.BeginObject();
    for (int i = 0; i < 20000; ++i) {
      char key[16];
      std::snprintf(key, sizeof key, "k%08d", i);
      w.Key(key);
      w.String("value \"with\" escapes\n and é");
    }
    w.EndObject();
  };
  std::string whole;
  {
    CanonicalWriter writer(&whole);
    write(writer);
    writer.Finish();
  }
  ASSERT_GT(whole.size(), 4 * CanonicalWriter::kChunkBytes);
  std::string chunked;
  int chunks = 0;
  struct Context {
    std::string* out;
    int* chunks;
  } context{&chunked, &chunks};
  {
    CanonicalWriter writer(
        [](void* c, std::string_view bytes) {
          auto* ctx = static_cast<Context*>(c);
          ctx->out->append(bytes);
          ++*ctx->chunks;
        },
        &context);
    write(writer);
    writer.Finish();
  }
  EXPECT_EQ(chunked, whole);
  EXPECT_GT(chunks, 4);
  EXPECT_TRUE(nlohmann::json::accept(whole));
}

}  // namespace
}  // namespace las::projections
