// What the gateway reads of a child's result (tools/result_shape.h): one object with no
// key repeated, and a shape MCP clients can read.
#include "tools/result_shape.h"

#include <gtest/gtest.h>

#include <string>

namespace las::tools {
namespace {

TEST(ResultShapeTest, ResultsClientsReadAreReadable) {
  for (const char* result :
       {R"({"content":[{"type":"text","text":"hi"}]})", R"({})",
        R"({"content":[],"isError":false})",
        R"({"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]})",
        R"({"content":[{"type":"audio","data":"AA==","mimeType":"audio/wav","_meta":{}}]})",
        R"({"content":[{"type":"resource_link","uri":"file:///a","name":"a","annotations":{}}]})",
        R"({"content":[{"type":"resource","resource":{"uri":"file:///a","text":"t"}}]})",
        R"({"content":[{"type":"resource","resource":{"uri":"file:///a","blob":"AA=="}}],"_meta":{"k":1}})",
        R"({"content":[{"type":"text","text":"t","anything":1}],"extra":[1]})",
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","mimeType":"m","title":"t",)"
        R"("description":"d","size":5,"icons":[{"src":"https://x/i.png"}]}]})",
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","icons":[{"src":"s",)"
        R"("mimeType":"image/png","sizes":["48x48","any"],"theme":"d\u0061rk"}]}]})",
        R"({"content":[{"type":"text","text":"t","annotations":{"audience":["user","assistant"],)"
        R"("priority":0.5,"lastModified":"2025-01-01T10:00:00.5+01:00","other":1}}]})",
        R"({"content":[{"type":"text","text":"t","annotations":{"priority":1,"lastModified":"2024-02-29T00:00:00Z"}}]})",
        R"({"content":[{"type":"resource","resource":{"uri":"u","text":"t","mimeType":"m","_meta":{}}}]})",
        R"({"content":[],"_meta":{"progressToken":7,"io.modelcontextprotocol/related-task":{"taskId":"t"}}})",
        R"({"content":[],"_meta":{"progressToken":"p"}})",
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","size":1e300}],"structuredContent":{"n":1e400}})",
        R"({"content":[{"type":"\u0074ext","text":"escaped"}],"structuredContent":{"n":1}})",
        R"({"toolResult":{"any":"thing"}})"}) {
    const ResultShape shape = ShapeOf(result);
    EXPECT_TRUE(shape.object && shape.readable) << result;
  }
  EXPECT_TRUE(ShapeOf(R"({"content":[],"isError":true})").tool_error);
  EXPECT_FALSE(ShapeOf(R"({"content":[{"type":"text","text":"x","isError":true}]})").tool_error)
      << "only the top level's isError counts";
}

// Probe CU4: the SDK client threw on these, and the ledger recorded the calls Ok.
TEST(ResultShapeTest, ResultsNoClientCanReadAreNotReadable) {
  for (const char* result :
       {R"({"content":[{"type":"text"}]})", R"({"content":[{"type":"text","text":5}]})",
        R"({"content":[{"text":"no type"}]})", R"({"content":[{"type":7}]})",
        R"({"content":["text"]})", R"({"content":{"type":"text","text":"x"}})",
        R"({"content":[],"isError":"true"})", R"({"structuredContent":[1,2]})",
        R"({"content":[],"structuredContent":null})",
        // Probe CV3: the SDK never settled the first two, and threw on the rest.
        R"({"content":[],"_meta":"x"})", R"({"content":[],"_meta":null})",
        R"({"content":[{"type":"image","mimeType":"image/png"}]})",
        R"({"content":[{"type":"audio","data":"AA=="}]})",
        R"({"content":[{"type":"resource"}]})",
        R"({"content":[{"type":"resource","resource":{"uri":"file:///a"}}]})",
        R"({"content":[{"type":"resource_link","name":"a"}]})",
        R"({"content":[{"type":"text","text":"t","annotations":"high"}]})",
        // Probe DB1: the SDK threw on these, or (the _meta ones) never settled the call.
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","mimeType":5}]})",
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","size":"big"}]})",
        // Probe FA2: JSON.parse reads 1e400 as Infinity, which the SDK's z.number() refuses.
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","size":1e400}]})",
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","size":-1E+999}]})",
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","icons":"x"}]})",
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","icons":[{"alt":"no src"}]}]})",
        // Probe FO1: the SDK's AnnotationsSchema threw on these.
        R"({"content":[{"type":"text","text":"t","annotations":{"audience":["robot"]}}]})",
        R"({"content":[{"type":"text","text":"t","annotations":{"audience":"user"}}]})",
        R"({"content":[{"type":"text","text":"t","annotations":{"priority":7}}]})",
        R"({"content":[{"type":"text","text":"t","annotations":{"priority":-1}}]})",
        R"({"content":[{"type":"text","text":"t","annotations":{"lastModified":5}}]})",
        R"({"content":[{"type":"text","text":"t","annotations":{"lastModified":"yesterday"}}]})",
        R"({"content":[{"type":"text","text":"t","annotations":{"lastModified":"2025-01-01t10:00:00z"}}]})",
        // Probe FL1: the SDK's IconSchema threw on these.
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","icons":[{"src":"s","theme":"blue"}]}]})",
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","icons":[{"src":"s","sizes":"48x48"}]}]})",
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","icons":[{"src":"s","sizes":[48]}]}]})",
        R"({"content":[{"type":"resource_link","uri":"u","name":"n","icons":[{"src":"s","mimeType":5}]}]})",
        R"({"content":[{"type":"resource","resource":{"uri":"u","text":"t","mimeType":5}}]})",
        R"({"content":[{"type":"resource","resource":{"uri":"u","text":"t","_meta":"x"}}]})",
        R"({"content":[],"_meta":{"progressToken":1.5}})",
        R"({"content":[],"_meta":{"progressToken":{}}})",
        R"({"content":[],"_meta":{"io.modelcontextprotocol/related-task":5}})",
        R"({"content":[{"type":"a-type-from-later","anything":1}]})"}) {
    const ResultShape shape = ShapeOf(result);
    EXPECT_TRUE(shape.object) << result;
    EXPECT_FALSE(shape.readable) << result;
  }
}

// Probe FL2: the SDK reads `data` and `blob` through `atob`; these are what Node 20's atob
// accepted and refused (checked with node -e).
TEST(ResultShapeTest, BinaryDataIsBase64AsTheSdkReadsIt) {
  const auto image = [](const std::string& data) {
    return R"({"content":[{"type":"image","mimeType":"image/png","data":")" + data + R"("}]})";
  };
  const auto blob = [](const std::string& data) {
    return R"({"content":[{"type":"resource","resource":{"uri":"u","blob":")" + data + R"("}}]})";
  };
  for (const char* accepted : {"", "AA==", "AAAAAA==", "AB", "ABC", "Zm9v", "AAA=", "QQ",
                               R"(AB C\n=)", R"(A B\tC\fD\r)", R"(AB==\n)", "AB = =",
                               R"(Zm\u0039v)", R"(a\/b+)"}) {
    EXPECT_TRUE(ShapeOf(image(accepted)).readable) << accepted;
    EXPECT_TRUE(ShapeOf(blob(accepted)).readable) << accepted;
  }
  for (const char* refused : {"A===", "====", "AA=", "=AAA", "AAAA==", "AAAAA===", "AAAAA",
                              "A", "AB=C", R"(AB\u000b)", "QQ=", "-_", "é", "AAA=A",
                              "data:image/png;base64,AA=="}) {
    EXPECT_FALSE(ShapeOf(image(refused)).readable) << refused;
    EXPECT_FALSE(ShapeOf(blob(refused)).readable) << refused;
  }
  EXPECT_FALSE(ShapeOf(R"({"content":[{"type":"audio","mimeType":"audio/wav","data":5}]})").readable);
  EXPECT_TRUE(ShapeOf(R"({"content":[{"type":"resource","resource":{"uri":"u","text":"t","blob":"!"}}]})")
                  .readable)
      << "the SDK reads a resource with a string text as text, whatever its blob";
}

TEST(ResultShapeTest, AResultThatIsNoObjectOrRepeatsAKeyIsNone) {
  for (const char* result : {R"([])", R"("text")", R"({"isError":true,"isError":false})",
                             R"({"content":[{"type":"text","text":"a","text":"b"}]})", "{"}) {
    EXPECT_FALSE(ShapeOf(result).object) << result;
  }
}

// What is wrong, in Las's words, for the operator's record (probes HN6, HP3).
TEST(ResultShapeTest, WhatIsWrongIsSaid) {
  EXPECT_EQ(ShapeOf(R"(["x"])").why, "the result is not a JSON object");
  EXPECT_EQ(ShapeOf(R"("x")").why, "the result is not a JSON object");
  EXPECT_EQ(ShapeOf("{").why, "the result is not valid JSON");
  EXPECT_EQ(ShapeOf(R"({"a":{"b":1,"b":2}})").why, "the result names a member twice");
  EXPECT_EQ(ShapeOf(R"({"t":"\ud800"})").why, "the result is not valid UTF-8, or escapes a lone surrogate");
  EXPECT_EQ(ShapeOf(std::string(100, '[') + std::string(100, ']')).why, "the result nests too deep");
  EXPECT_EQ(ShapeOf(R"({"isError":"yes","content":5})").why, "the result's isError is not a boolean")
      << "the first member clients cannot read";
  EXPECT_EQ(ShapeOf(R"({"content":[],"_meta":1})").why,
            "the result's _meta is not as MCP clients read it");
  EXPECT_EQ(ShapeOf(R"({"content":[{"type":"text"}]})").why,
            "the result's content is not an array of items MCP clients read");
  EXPECT_EQ(ShapeOf(R"({"structuredContent":[]})").why,
            "the result's structuredContent is not an object");
  EXPECT_EQ(ShapeOf(R"({"content":[]})").why, "");
}

}  // namespace
}  // namespace las::tools
