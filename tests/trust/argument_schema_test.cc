#include "trust/argument_schema.h"
#include "trust/canonical_json.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace las::trust {
namespace {

// The JSON Schema Test Suite (Debian's json-schema-test-suite), draft 7.
const char* kSuiteDir = "/usr/share/json-schema-test-suite/tests/draft7";

// A value that must never appear in any detail.
const std::string kSecret = "sk-live-9f8e7d6c5b4a-SECRET-VALUE";

// The shape MCP servers list: draft-07 (zod-to-json-schema) with required, types, enums,
// additionalProperties false, nested objects, arrays, bounds.
const char* kSearchSchema = R"({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 200},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "mode": {"type": "string", "enum": ["fast", "full"]},
    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "options": {
      "type": "object",
      "properties": {
        "depth": {"type": "integer", "minimum": 0},
        "follow": {"type": "boolean"}
      },
      "required": ["depth"],
      "additionalProperties": false
    },
    "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"},
             "minItems": 1, "maxItems": 3, "uniqueItems": true}
  },
  "required": ["query"],
  "additionalProperties": false
})";

ArgumentSchema Compile(const std::string& schema) {
  Result<ArgumentSchema> s = CompileArgumentSchema(schema);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) std::abort();
  return std::move(s).value();
}

// Rejected with kArgumentsSchemaViolation, the detail naming `pointer` and `keyword` (as
// "\"<pointer>\" fails <keyword>", or "... cannot be checked against <keyword>" for
// arguments refused as not checked) and not containing kSecret.
void ExpectViolation(const ArgumentSchema& schema, const std::string& args, const std::string& pointer,
                     const std::string& keyword) {
  Verdict v = ValidateArguments(schema, args);
  ASSERT_FALSE(v.ok()) << args;
  EXPECT_EQ(v.reason(), Reason::kArgumentsSchemaViolation) << v.ToString();
  const bool not_checked = v.detail().starts_with("the arguments are not checked");
  EXPECT_NE(v.detail().find("\"" + pointer + (not_checked ? "\" cannot be checked against " : "\" fails ") +
                            keyword),
            std::string::npos)
      << "want " << pointer << " " << keyword << " in: " << v.detail();
  EXPECT_EQ(v.ToString().find(kSecret), std::string::npos) << v.ToString();
  EXPECT_EQ(v.ToString().find("SECRET"), std::string::npos) << v.ToString();
}

TEST(ArgumentSchema, ReasonIsAppendedWithAStableName) {
  EXPECT_EQ(static_cast<int>(Reason::kArgumentsSchemaViolation), 29);
  EXPECT_EQ(ReasonName(Reason::kArgumentsSchemaViolation), "arguments-schema-violation");
  EXPECT_EQ(ReasonFromName("arguments-schema-violation"), Reason::kArgumentsSchemaViolation);
  EXPECT_EQ(Reject(Reason::kArgumentsSchemaViolation, "x").ToStatus().code(), Code::kInvalidArgument);
}

TEST(ArgumentSchema, AcceptsValidTypicalArguments) {
  ArgumentSchema s = Compile(kSearchSchema);
  EXPECT_EQ(s.dialect(), "draft-07");
  for (const char* ok : {
           R"({"query":"x"})",
           R"({"query":"rust async","limit":100,"mode":"full","ratio":0.5})",
           R"({"query":"q","options":{"depth":0,"follow":true},"tags":["a","bc"]})",
           R"({"query":"q","limit":1.0})",  // 1.0 is an integer in JSON Schema
       }) {
    Verdict v = ValidateArguments(s, ok);
    EXPECT_TRUE(v.ok()) << ok << " -> " << v.ToString();
  }
}

TEST(ArgumentSchema, EachTypicalViolationNamesPointerAndKeyword) {
  ArgumentSchema s = Compile(kSearchSchema);
  const std::string q = R"("query":"q")";
  ExpectViolation(s, R"({"limit":3})", "/query", "required");
  ExpectViolation(s, "{" + q + R"(,"limit":"sk-live-9f8e7d6c5b4a-SECRET-VALUE"})", "/limit", "type");
  ExpectViolation(s, "{" + q + R"(,"limit":101})", "/limit", "maximum");
  ExpectViolation(s, "{" + q + R"(,"limit":0})", "/limit", "minimum");
  ExpectViolation(s, "{" + q + R"(,"limit":2.5})", "/limit", "type");
  ExpectViolation(s, "{" + q + R"(,"ratio":1})", "/ratio", "exclusiveMaximum");
  ExpectViolation(s, "{" + q + R"(,"ratio":0})", "/ratio", "exclusiveMinimum");
  ExpectViolation(s, "{" + q + ",\"mode\":\"" + kSecret + "\"}", "/mode", "enum");
  ExpectViolation(s, R"({"query":""})", "/query", "minLength");
  ExpectViolation(s, "{\"query\":\"" + kSecret + std::string(200, 'x') + "\"}", "/query", "maxLength");
  ExpectViolation(s, "{" + q + ",\"extra\":\"" + kSecret + "\"}", "/extra", "additionalProperties");
  ExpectViolation(s, "{" + q + R"(,"options":{"follow":true}})", "/options/depth", "required");
  ExpectViolation(s, "{" + q + R"(,"options":{"depth":-1}})", "/options/depth", "minimum");
  ExpectViolation(s, "{" + q + R"(,"options":{"depth":1,"x":1}})", "/options/x", "additionalProperties");
  ExpectViolation(s, "{" + q + R"(,"tags":[]})", "/tags", "minItems");
  ExpectViolation(s, "{" + q + R"(,"tags":["a","b","c","d"]})", "/tags", "maxItems");
  ExpectViolation(s, "{" + q + R"(,"tags":["a","a"]})", "/tags", "uniqueItems");
  ExpectViolation(s, "{" + q + ",\"tags\":[\"ok\",\"" + kSecret + "\"]}", "/tags/1", "pattern");
  ExpectViolation(s, "{" + q + R"(,"tags":["ok",7]})", "/tags/1", "type");
}

TEST(ArgumentSchema, SeveralFailuresAreAllNamedAndBounded) {
  ArgumentSchema s = Compile(kSearchSchema);
  Verdict v = ValidateArguments(s, R"({"limit":0,"mode":"slow","zz":1})");
  ASSERT_FALSE(v.ok());
  for (const char* want : {"\"/query\" fails required", "\"/limit\" fails minimum", "\"/mode\" fails enum",
                           "\"/zz\" fails additionalProperties"}) {
    EXPECT_NE(v.detail().find(want), std::string::npos) << want << " in " << v.detail();
  }
  // Wrapper entries ("a property failed") are dropped when a specific failure exists.
  EXPECT_EQ(v.detail().find("fails properties"), std::string::npos) << v.detail();

  ArgumentSchemaLimits limits;
  limits.max_reported_errors = 2;
  Result<ArgumentSchema> few = CompileArgumentSchema(kSearchSchema, limits);
  ASSERT_TRUE(few.ok());
  Verdict w = ValidateArguments(*few, R"({"limit":0,"mode":"slow","zz":1})");
  EXPECT_NE(w.detail().find("and 2 more"), std::string::npos) << w.detail();
}

TEST(ArgumentSchema, KeysInPointersAreEscapedAndBounded) {
  ArgumentSchema s = Compile(R"({"type":"object","additionalProperties":false})");
  Verdict v = ValidateArguments(s, R"({"a/b~c\u001b[31m":1})");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.detail().find("\"/a~1b~0c\\x1b[31m\" fails additionalProperties"), std::string::npos)
      << v.detail();
  EXPECT_EQ(v.detail().find('\x1b'), std::string::npos);
  Verdict longkey = ValidateArguments(s, "{\"" + std::string(5000, 'k') + "\":1}");
  ASSERT_FALSE(longkey.ok());
  EXPECT_LT(longkey.detail().size(), 300u) << longkey.detail();
}

TEST(ArgumentSchema, ArgumentsMustBeAStrictJsonObject) {
  ArgumentSchema s = Compile(R"({"type":"object"})");
  EXPECT_TRUE(ValidateArguments(s, "").ok());  // no arguments means {}
  EXPECT_TRUE(ValidateArguments(s, "{}").ok());
  for (const char* bad : {"[]", "\"x\"", "1", "null", "true"}) {
    Verdict v = ValidateArguments(s, bad);
    EXPECT_EQ(v.reason(), Reason::kArgumentsInvalid) << bad << " " << v.ToString();
  }
  Verdict dup = ValidateArguments(s, "{\"a\":\"" + kSecret + "\",\"a\":\"other\"}");
  EXPECT_EQ(dup.reason(), Reason::kArgumentsInvalid) << dup.ToString();
  EXPECT_NE(dup.detail().find("duplicate"), std::string::npos) << dup.detail();
  EXPECT_EQ(dup.ToString().find(kSecret), std::string::npos);
  // A repeated key is shown as text, its unsafe characters escaped (probe JX2: "\xc3\xa9").
  Verdict dup_text = ValidateArguments(s, "{\"x\":{\"\\u00e9\\u202e\":1,\"\xc3\xa9\xe2\x80\xae\":2}}");
  EXPECT_NE(dup_text.detail().find("duplicate object key \"\xc3\xa9\\u{202E}\" in the object at $.x"),
            std::string::npos)
      << dup_text.detail();
  Verdict utf8 = ValidateArguments(s, "{\"a\":\"\xc0\xaf\"}");
  EXPECT_EQ(utf8.reason(), Reason::kArgumentsInvalid) << utf8.ToString();
  // A parser error that would quote the input ("last read: ...") is not passed on.
  Verdict broken = ValidateArguments(s, "{\"a\":" + kSecret + "}");
  EXPECT_EQ(broken.reason(), Reason::kArgumentsInvalid);
  EXPECT_EQ(broken.ToString().find("SECRET"), std::string::npos) << broken.ToString();
  // A number beyond a double's range is named as such, without its digits.
  for (bool fast_accept : {true, false}) {
    ArgumentSchemaLimits limits;
    limits.fast_accept = fast_accept;
    Result<ArgumentSchema> flat = CompileArgumentSchema(R"({"type":"object"})", limits);
    ASSERT_TRUE(flat.ok());
    Verdict huge = ValidateArguments(*flat, "{\"n\":" + std::string(401, '7') + "}");
    EXPECT_EQ(huge.reason(), Reason::kArgumentsInvalid);
    EXPECT_EQ(huge.detail(), "arguments: a number is out of range") << huge.ToString();
  }
  Verdict trailing = ValidateArguments(s, "{\"a\":\"" + kSecret + "\"");
  EXPECT_EQ(trailing.reason(), Reason::kArgumentsInvalid);
  EXPECT_EQ(trailing.ToString().find("SECRET"), std::string::npos) << trailing.ToString();
}

TEST(ArgumentSchema, ArgumentSizeAndDepthAreBounded) {
  ArgumentSchemaLimits limits;
  limits.max_argument_bytes = 64;
  limits.max_argument_depth = 2;
  Result<ArgumentSchema> s = CompileArgumentSchema(R"({"type":"object"})", limits);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(ValidateArguments(*s, R"({"a":{"b":1}})").ok());
  EXPECT_EQ(ValidateArguments(*s, R"({"a":{"b":{"c":1}}})").reason(), Reason::kArgumentsInvalid);
  EXPECT_EQ(ValidateArguments(*s, "{\"a\":\"" + std::string(100, 'x') + "\"}").reason(),
            Reason::kArgumentsInvalid);
  // Defaults: 1 MiB of arguments is fine, past it is not.
  ArgumentSchema d = Compile(R"({"type":"object","properties":{"text":{"type":"string"}}})");
  EXPECT_TRUE(ValidateArguments(d, "{\"text\":\"" + std::string(1000 * 1000, 'x') + "\"}").ok());
  EXPECT_EQ(ValidateArguments(d, "{\"text\":\"" + std::string(1024 * 1024, 'x') + "\"}").reason(),
            Reason::kArgumentsInvalid);
}

// Las's injected credentials do not count against the client's byte limit, and a refusal
// says the client's size: its detail never tells a secret's length.
TEST(ArgumentSchema, TheByteLimitCountsOnlyTheClientsTextAfterInjection) {
  ArgumentSchemaLimits limits;
  limits.max_argument_bytes = 64;
  limits.fast_accept = false;  // the full path, where the text is parsed within the limit
  Result<ArgumentSchema> s = CompileArgumentSchema(
      R"({"type":"object","properties":{"data":{"type":"string"},"token":{"type":"string"}}})", limits);
  ASSERT_TRUE(s.ok());
  const std::string client = "{\"data\":\"" + std::string(50, 'x') + "\"}";  // 61 bytes
  ASSERT_EQ(client.size(), 61u);
  const std::string injected = client.substr(0, client.size() - 1) + ",\"token\":\"" + kSecret + "\"}";
  EXPECT_FALSE(ValidateArguments(*s, injected).ok()) << "the whole text is over the limit";
  EXPECT_TRUE(ValidateInjectedArguments(*s, injected, client.size(), {"token"}).ok());

  const std::string longer = "{\"data\":\"" + std::string(60, 'x') + "\"}";  // 71 bytes
  const std::string longer_injected =
      longer.substr(0, longer.size() - 1) + ",\"token\":\"" + kSecret + "\"}";
  const Verdict refused = ValidateInjectedArguments(*s, longer_injected, longer.size(), {"token"});
  EXPECT_EQ(refused.reason(), Reason::kArgumentsInvalid);
  EXPECT_EQ(refused.detail(), "arguments: JSON text is 71 bytes, more than the limit of 64");
  EXPECT_EQ(CheckArgumentsSize(*s, longer.size()).detail(), refused.detail());
  EXPECT_EQ(ValidateArguments(*s, longer).detail(), refused.detail())
      << "the same words as for the text itself";
  EXPECT_TRUE(CheckArgumentsSize(*s, 64).ok());
}

// A schema that refuses what Las fills in says so without the keyword: "fails maxLength"
// would tell the client a secret's length (with pattern or enum: its shape).
TEST(ArgumentSchema, ARefusalOfAFilledArgumentDoesNotDescribeTheSecret) {
  for (const char* schema :
       {R"({"type":"object","properties":{"mode":{"type":"string"},"token":{"type":"string","maxLength":4}}})",
        R"({"type":"object","properties":{"mode":{"type":"string"}},"additionalProperties":false})",
        R"({"type":"object","properties":{"token":{"type":"string","pattern":"^x"}}})"}) {
    Result<ArgumentSchema> s = CompileArgumentSchema(schema);
    ASSERT_TRUE(s.ok()) << schema;
    const std::string client = R"({"mode":"plain"})";
    const std::string injected = std::string(R"({"token":")") + kSecret + R"(","mode":"plain"})";
    const Verdict refused = ValidateInjectedArguments(*s, injected, client.size(), {"token"});
    EXPECT_EQ(refused.reason(), Reason::kArgumentsSchemaViolation) << schema;
    EXPECT_EQ(refused.detail(),
              "the tool's signed input schema refuses the value Las fills in for argument \"token\" "
              "(a release or credential problem; no call to this tool can pass)")
        << schema;
    EXPECT_NE(ValidateArguments(*s, injected).detail(), refused.detail()) << "unfilled, the detail is the usual one";
  }
  // The client's own mistakes are still described.
  Result<ArgumentSchema> s = CompileArgumentSchema(
      R"({"type":"object","properties":{"mode":{"type":"string","maxLength":3},"token":{"type":"string"}}})");
  ASSERT_TRUE(s.ok());
  const Verdict own = ValidateInjectedArguments(*s, std::string(R"({"token":")") + kSecret + R"(","mode":"plain"})",
                                                16, {"token"});
  EXPECT_NE(own.detail().find("\"/mode\" fails maxLength"), std::string::npos) << own.detail();
}

// Probe AC4: with if/then/else on a filled argument, which failure shows depended on the
// secret ("/hint_a" fails required for sk-a..., "/hint_other" for others): the client
// learned whether the secret matched ^sk-a. A refusal's detail is now the same for every
// secret; so is `las check`'s finding of a schema that refuses every secret.
TEST(ArgumentSchema, ARefusalsDetailIsTheSameWhateverTheFilledSecret) {
  const std::vector<std::string> secrets = {"sk-abcdef", "sk-zzzzzz", "x", kSecret, ""};
  for (const char* schema : {
           R"({"type":"object","properties":{"token":{"type":"string"}},
               "if":{"properties":{"token":{"pattern":"^sk-a"}}},
               "then":{"required":["hint_a"]},"else":{"required":["hint_other"]}})",
           R"({"type":"object","required":["token","q"],
               "oneOf":[{"properties":{"token":{"maxLength":5}}},{"properties":{"q":{"type":"string"}}}]})",
           R"({"type":"object","properties":{"token":{"enum":["sk-abcdef"]},"q":{"type":"integer"}}})",
           R"({"type":"object","dependencies":{"q":{"properties":{"token":{"minLength":7}}}}})"}) {
    for (const char* client : {"{}", R"({"q":"text"})", R"({"q":1})", R"({"hint_a":1})"}) {
      std::set<std::string> details;
      for (const std::string& secret : secrets) {
        std::string injected = R"({"token":")" + secret + "\"";
        injected += std::string_view(client) == "{}" ? "}" : "," + std::string(client + 1);
        const Verdict v = ValidateInjectedArguments(Compile(schema), injected, std::string_view(client).size(),
                                                    {"token"});
        if (!v.ok()) details.insert(v.detail());
        EXPECT_EQ(v.detail().find(secret.empty() ? "\x01" : secret), std::string::npos) << v.detail();
      }
      EXPECT_LE(details.size(), 1u) << schema << " with " << client << ": " << ::testing::PrintToString(details);
    }
  }
  // The client's own mistakes are still named, and one that only the secret explains is
  // told as the filled value's, naming every filled argument.
  const ArgumentSchema s = Compile(R"({"type":"object","required":["q","token","key"],
      "properties":{"q":{"type":"integer"},"token":{"maxLength":4},"key":{}}})");
  EXPECT_EQ(ValidateInjectedArguments(s, R"({"token":"sk-abcdef","key":"k","q":"x"})", 7, {"token", "key"}).detail(),
            "the arguments do not match the input schema: \"/q\" fails type");
  EXPECT_EQ(ValidateInjectedArguments(s, R"({"token":"sk-abcdef","key":"k","q":1})", 7, {"token", "key"}).detail(),
            std::string(kFilledArgumentRefused) +
                "\"token\", \"key\" (a release or credential problem; no call to this tool can pass)");
  EXPECT_TRUE(ValidateInjectedArguments(s, R"({"token":"sk-a","key":"k","q":1})", 7, {"token", "key"}).ok());
  // `las check` (the operator's side) still finds a schema that refuses the filled value.
  EXPECT_TRUE(RefusesFilledValues(s, R"({"token":"sk-abcdef","key":"k"})", {"token", "key"}));
  EXPECT_FALSE(RefusesFilledValues(s, R"({"token":"sk-a","key":"k"})", {"token", "key"}));
}

TEST(ArgumentSchema, SchemaSizeAndDepthAreBounded) {
  ArgumentSchemaLimits limits;
  limits.max_schema_bytes = 100;
  EXPECT_EQ(CompileArgumentSchema(kSearchSchema, limits).status().code(), Code::kInvalidArgument);
  std::string deep = R"({"type":"object")";
  std::string tail = "}";
  for (int i = 0; i < 40; ++i) {
    deep += R"(,"properties":{"a":{"type":"object")";
    tail += "}}";
  }
  Result<ArgumentSchema> r = CompileArgumentSchema(deep + tail);
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("deeper"), std::string::npos) << r.status().ToString();
}

TEST(ArgumentSchema, PydanticStyleDefsAndRecursiveRefsWork) {
  // FastMCP / pydantic: no $schema, $defs with $ref and annotation siblings.
  ArgumentSchema s = Compile(R"({
    "type": "object",
    "$defs": {
      "Node": {"type": "object", "properties": {
        "name": {"type": "string"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
        "required": ["name"], "additionalProperties": false}
    },
    "properties": {"tree": {"$ref": "#/$defs/Node", "description": "a tree", "title": "Tree"}},
    "required": ["tree"]
  })");
  EXPECT_TRUE(ValidateArguments(s, R"({"tree":{"name":"a","children":[{"name":"b","children":[]}]}})").ok());
  ExpectViolation(s, R"({"tree":{"name":"a","children":[{"children":[]}]}})", "/tree/children/0/name",
                  "required");
}

// pydantic (no $schema) and zod 4 (2020-12) write a tuple as prefixItems, with `items`
// beside it for the items after; valijson knows only draft-07's array-form items. The
// cases are the JSON Schema Test Suite's (2020-12 prefixItems.json and items.json).
TEST(ArgumentSchema, TuplesAreRead2020_12sWay) {
  struct Case {
    const char* schema;
    const char* value;
    bool valid;
  };
  const std::string v2020 = R"("$schema":"https://json-schema.org/draft/2020-12/schema",)";
  const Case cases[] = {
      {R"({"prefixItems":[{"type":"integer"},{"type":"string"}]})", R"([1,"foo"])", true},
      {R"({"prefixItems":[{"type":"integer"},{"type":"string"}]})", R"(["foo",1])", false},
      {R"({"prefixItems":[{"type":"integer"},{"type":"string"}]})", R"([1])", true},
      {R"({"prefixItems":[{"type":"integer"},{"type":"string"}]})", R"([1,"foo",true])", true},
      {R"({"prefixItems":[{"type":"integer"},{"type":"string"}]})", R"([])", true},
      {R"({"prefixItems":[{"type":"integer"},{"type":"string"}]})", R"({"0":"invalid","length":2})", true},
      {R"({"prefixItems":[true,false]})", R"([1])", true},
      {R"({"prefixItems":[true,false]})", R"([1,"foo"])", false},
      {R"({"prefixItems":[{"type":"null"}]})", R"([null])", true},
      {R"({"prefixItems":[{},{},{}],"items":false})", R"([1,2,3])", true},
      {R"({"prefixItems":[{},{},{}],"items":false})", R"([1,2,3,4])", false},
      {R"({"prefixItems":[{"type":"string"}],"items":{"type":"integer"}})", R"(["x",2,3])", true},
      {R"({"prefixItems":[{"type":"string"}],"items":{"type":"integer"}})", R"(["x","y"])", false},
      // items beside no prefixItems (here: one in an allOf) applies to every item.
      {R"({"allOf":[{"prefixItems":[{"minimum":3}]}],"items":{"minimum":5}})", R"([5,5])", true},
      {R"({"allOf":[{"prefixItems":[{"minimum":3}]}],"items":{"minimum":5}})", R"([3,5])", false},
      // A tuple's item through $ref, and a tuple nested in a tuple.
      {R"({"$defs":{"s":{"type":"string"}},"prefixItems":[{"$ref":"#/properties/t/$defs/s"}],"items":false})", R"(["a"])", true},
      {R"({"$defs":{"s":{"type":"string"}},"prefixItems":[{"$ref":"#/properties/t/$defs/s"}],"items":false})", R"([1])", false},
      {R"({"prefixItems":[{"prefixItems":[{"type":"string","pattern":"^a"}],"items":false}]})", R"([["ab"]])", true},
      {R"({"prefixItems":[{"prefixItems":[{"type":"string","pattern":"^a"}],"items":false}]})", R"([["b"]])", false},
      {R"({"prefixItems":[{"prefixItems":[{"type":"string","pattern":"^a"}],"items":false}]})", R"([["a","b"]])", false},
  };
  for (const Case& c : cases) {
    for (const bool declared : {false, true}) {
      const std::string rooted =
          "{" + (declared ? v2020 : std::string()) + R"("type":"object","properties":{"t":)" + c.schema + "}}";
      Result<ArgumentSchema> compiled = CompileArgumentSchema(rooted);
      ASSERT_TRUE(compiled.ok()) << rooted << ": " << compiled.status().ToString();
      const Verdict verdict = ValidateArguments(*compiled, R"({"t":)" + std::string(c.value) + "}");
      EXPECT_EQ(verdict.ok(), c.valid) << rooted << " with " << c.value << ": " << verdict.ToString();
    }
  }
  // pydantic's tuple[int, str] and Optional[tuple[float, float]], as it writes them.
  ArgumentSchema pydantic = Compile(R"({"properties": {
      "pair": {"maxItems": 2, "minItems": 2, "prefixItems": [{"type": "integer"}, {"type": "string"}],
               "title": "Pair", "type": "array"},
      "point": {"anyOf": [{"maxItems": 2, "minItems": 2, "prefixItems": [{"type": "number"}, {"type": "number"}],
                           "type": "array"}, {"type": "null"}], "default": null, "title": "Point"}},
      "required": ["pair"], "title": "M", "type": "object"})");
  EXPECT_TRUE(pydantic.unknown_keywords().empty());
  EXPECT_TRUE(ValidateArguments(pydantic, R"({"pair":[1,"a"],"point":[0.5,2]})").ok());
  EXPECT_TRUE(ValidateArguments(pydantic, R"({"pair":[1,"a"],"point":null})").ok());
  ExpectViolation(pydantic, R"({"pair":["a",1]})", "/pair/0", "type");
  ExpectViolation(pydantic, R"({"pair":[1,"a","b"]})", "/pair", "maxItems");
  // valijson's copy holds the items after a tuple as additionalItems: named as written.
  ArgumentSchema rest = Compile(R"({"type":"object","properties":{
      "t":{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}},
      "u":{"prefixItems":[{}],"items":false}}})");
  ExpectViolation(rest, R"({"t":["a","b"]})", "/t/1", "type");
  ExpectViolation(rest, R"({"u":[1,2]})", "/u", "items (after prefixItems)");
}

// Probe GL4: valijson resolves JSON pointers only; a "#name" anchor failed compile with
// its message, which quoted the child's text. Las names the anchor's pointer instead.
TEST(ArgumentSchema, AnAnchorReferenceIsRefusedNamingItsPointer) {
  for (const char* schema : {
           R"({"definitions":{"s":{"$id":"#sx","type":"string"}},"properties":{"a":{"$ref":"#sx"}}})",
           R"({"$schema":"http://json-schema.org/draft-04/schema#",)"
           R"("definitions":{"s":{"id":"#sx","type":"string"}},"properties":{"a":{"$ref":"#sx"}}})"}) {
    Result<ArgumentSchema> refused = CompileArgumentSchema(schema);
    ASSERT_FALSE(refused.ok()) << schema;
    EXPECT_EQ(refused.status().code(), Code::kUnsupported);
    EXPECT_NE(refused.status().message().find(
                  "\"#sx\" names an anchor, which the validator does not resolve; refer to it by "
                  "its pointer \"#/definitions/s\""),
              std::string::npos)
        << refused.status().ToString();
  }
}

// Probe GL2: each pattern is bounded, but 1,000 of `^.{1000}$` took 19 s and 220 MB to
// compile (release build). The schema's patterns together are bounded too.
TEST(ArgumentSchema, ASchemasPatternsTogetherAreBounded) {
  auto schema_of = [](int properties, const std::string& pattern) {
    std::string members;
    for (int i = 0; i < properties; ++i) {
      members += (i == 0 ? "" : ",") + ("\"p" + std::to_string(i) + "\":{\"pattern\":\"") + pattern +
                 "|^z" + std::to_string(i) + "$\"}";
    }
    return R"({"type":"object","properties":{)" + members + "}}";
  };
  ArgumentSchemaLimits limits;
  limits.max_pattern_instructions = 30'000;  // one `^.{1000}$` takes 24,007
  Result<ArgumentSchema> refused = CompileArgumentSchema(schema_of(2, "^.{1000}$"), limits);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kUnsupported);
  EXPECT_NE(refused.status().message().find("#/properties/p1/pattern: the schema's patterns together "
                                            "compile to more than 30000 matcher instructions"),
            std::string::npos)
      << refused.status().ToString();
  EXPECT_TRUE(CompileArgumentSchema(schema_of(1, "^.{1000}$"), limits).ok());
  EXPECT_TRUE(CompileArgumentSchema(schema_of(80, "^[a-z][a-z0-9_-]{0,63}$"), limits).ok());
  EXPECT_EQ(ArgumentSchemaLimits().max_pattern_instructions, 500'000u);
}

// Probe GL6: a misspelt `maxlength` or OpenAPI's `nullable` is ignored by every validator;
// the schema names them so that `las release draft` can say nothing checks them.
TEST(ArgumentSchema, KeysThatAreNoKeywordAreNamed) {
  ArgumentSchema s = Compile(R"({"type":"object","nullable":true,"properties":{
      "a":{"type":"string","maxlength":2,"title":"A","contentEncoding":"base64"},
      "maxlength":{"type":"string","maxlength":3}}})");
  EXPECT_EQ(s.unknown_keywords(), (std::vector<std::string>{"nullable", "maxlength"}));
  EXPECT_TRUE(ValidateArguments(s, R"({"a":"abcdef"})").ok()) << "ignored, as every validator does";
  EXPECT_TRUE(Compile(R"({"type":"object","properties":{"a":{"type":"string","maxLength":2,
      "format":"email","examples":["x"],"$comment":"c","x-order":1}}})").unknown_keywords().empty());
  // pydantic's tagged union (probe GM3): oneOf and const decide what discriminator says.
  EXPECT_TRUE(Compile(R"({"type":"object","properties":{"pet":{"discriminator":{"propertyName":"kind"},
      "oneOf":[{"properties":{"kind":{"const":"cat"}}},{"properties":{"kind":{"const":"dog"}}}]}}})")
                  .unknown_keywords()
                  .empty());
}

// Probe KG5: only date, time and date-time are checked; the others are named, once each.
TEST(ArgumentSchema, FormatsLasDoesNotCheckAreNamed) {
  ArgumentSchema s = Compile(R"({"type":"object","properties":{"a":{"type":"string","format":"uri"},
      "b":{"type":"string","format":"date"},"c":{"type":"string","format":"uri"},
      "d":{"type":"string","format":"ipv4"}}})");
  EXPECT_EQ(s.unchecked_formats(), (std::vector<std::string>{"uri", "ipv4"}));
  EXPECT_TRUE(ValidateArguments(s, R"({"a":"not a uri"})").ok()) << "not checked";
  EXPECT_FALSE(ValidateArguments(s, R"({"b":"2026-02-30"})").ok()) << "checked";
}

TEST(ArgumentSchema, BooleanAndEmptySchemas) {
  EXPECT_TRUE(ValidateArguments(Compile("{}"), R"({"anything":[1,2]})").ok());
  EXPECT_TRUE(ValidateArguments(Compile("true"), R"({"a":1})").ok());
  Verdict v = ValidateArguments(Compile("false"), "{}");
  EXPECT_EQ(v.reason(), Reason::kArgumentsSchemaViolation) << v.ToString();
}

TEST(ArgumentSchema, DialectsAndUnsupportedFeaturesFailCompileClearly) {
  struct Case {
    const char* schema;
    Code code;
    const char* mentions;
  };
  const Case cases[] = {
      {R"({"$ref":"http://example.com/schema.json"})", Code::kUnsupported, "never fetches"},
      {R"({"properties":{"a":{"$ref":"other.json#/definitions/x"}}})", Code::kUnsupported, "#/properties/a/$ref"},
      {R"({"$ref":"#/definitions/missing"})", Code::kInvalidArgument, "resolves to nothing"},
      {R"({"$ref":"#"})", Code::kInvalidArgument, "loops"},
      {R"({"definitions":{"a":{"$ref":"#/definitions/b"},"b":{"$ref":"#/definitions/a"}},"$ref":"#/definitions/a"})",
       Code::kInvalidArgument, "loops"},
      {R"({"enum":[{"unevaluatedProperties":false}],"properties":{"a":{"$ref":"#/enum/0"}}})",
       Code::kUnsupported, "points at enum or const data"},
      {R"({"$schema":"http://json-schema.org/draft-03/schema#"})", Code::kUnsupported, "dialect"},
      {R"({"$schema":"https://example.com/my-meta"})", Code::kUnsupported, "dialect"},
      {R"({"$schema":"http://json-schema.org/draft-07/schema#","prefixItems":[{"type":"string"}]})",
       Code::kUnsupported, "#/prefixItems: a 2020-12 keyword in a draft-07 schema"},
      {R"({"$schema":"https://json-schema.org/draft/2019-09/schema","prefixItems":[{"type":"string"}]})",
       Code::kUnsupported, "#/prefixItems: a 2020-12 keyword in a 2019-09 schema"},
      {R"({"prefixItems":[{"type":"string"}],"items":[{"type":"string"}]})", Code::kUnsupported,
       "#/prefixItems beside array-form items"},
      {R"({"prefixItems":[{"type":"string"}],"additionalItems":false})", Code::kUnsupported,
       "#/prefixItems beside additionalItems"},
      {R"({"prefixItems":{"type":"string"}})", Code::kInvalidArgument, "#/prefixItems is not an array"},
      {R"({"prefixItems":[],"items":false})", Code::kInvalidArgument, "#/prefixItems is empty"},
      {R"({"properties":{"p":{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}},)"
       R"("q":{"$ref":"#/properties/p/prefixItems/0"}}})",
       Code::kUnsupported, "points into a prefixItems"},
      {R"({"properties":{"p":{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}},)"
       R"("q":{"$ref":"#/properties/p/items"}}})",
       Code::kUnsupported, "points into a prefixItems"},
      {R"({"$schema":"https://json-schema.org/draft/2020-12/schema","items":[{"type":"string"}]})",
       Code::kUnsupported, "2020-12"},
      {R"({"properties":{"a":{"type":"object","unevaluatedProperties":false}}})", Code::kUnsupported,
       "#/properties/a/unevaluatedProperties"},
      {R"({"dependentRequired":{"a":["b"]}})", Code::kUnsupported, "dependentRequired"},
      {R"({"properties":{"a":{"$ref":"#/definitions/s","maxLength":3}},"definitions":{"s":{"type":"string"}}})",
       Code::kUnsupported, "#/properties/a/maxLength"},
      {R"({"properties":{"a":{"$id":"http://example.com/other","type":"string"}}})", Code::kUnsupported,
       "another schema resource"},
      {R"({"properties":{"a":{"type":"string","pattern":"(unclosed"}}})", Code::kInvalidArgument,
       "#/properties/a/pattern"},
      {R"({"patternProperties":{"[z-a]":{}}})", Code::kInvalidArgument, "#/patternProperties/[z-a]"},
      {"5", Code::kInvalidArgument, "not a schema"},
      {R"({"properties":{"a":7}})", Code::kInvalidArgument, "#/properties/a"},
      {R"({"a":1,"a":2})", Code::kInvalidArgument, "duplicate"},
      {R"({"type":"nonsense"})", Code::kInvalidArgument, "valijson"},
  };
  for (const Case& c : cases) {
    Result<ArgumentSchema> r = CompileArgumentSchema(c.schema);
    ASSERT_FALSE(r.ok()) << c.schema;
    EXPECT_EQ(r.status().code(), c.code) << c.schema << " -> " << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.mentions), std::string::npos)
        << c.schema << " -> " << r.status().ToString();
  }
  struct Dialect {
    const char* schema;
    const char* name;
  };
  for (const Dialect& d : std::initializer_list<Dialect>{
           {R"({"type":"object"})", "draft-07"},
           {R"({"$schema":"http://json-schema.org/draft-07/schema"})", "draft-07"},
           {R"({"$schema":"https://json-schema.org/draft-07/schema#"})", "draft-07"},
           {R"({"$schema":"http://json-schema.org/draft-06/schema#"})", "draft-06"},
           {R"({"$schema":"http://json-schema.org/draft-04/schema#","type":"object"})", "draft-04"},
           {R"({"$schema":"https://json-schema.org/draft/2019-09/schema"})", "2019-09"},
           {R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
               "$defs":{"a":{"type":"integer"}},"properties":{"n":{"$ref":"#/$defs/a"}}})", "2020-12"},
       }) {
    Result<ArgumentSchema> r = CompileArgumentSchema(d.schema);
    ASSERT_TRUE(r.ok()) << d.schema << " -> " << r.status().ToString();
    EXPECT_EQ(r->dialect(), d.name);
  }
  // 2020-12 within the compatible subset validates as expected.
  ArgumentSchema s = Compile(R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
      "$defs":{"a":{"type":"integer"}},"properties":{"n":{"$ref":"#/$defs/a"}}})");
  ExpectViolation(s, R"({"n":"x"})", "/n", "type");
  // draft-04: exclusiveMaximum is a boolean modifier there.
  ArgumentSchema d4 = Compile(R"({"$schema":"http://json-schema.org/draft-04/schema#",
      "properties":{"n":{"type":"number","maximum":5,"exclusiveMaximum":true}}})");
  EXPECT_TRUE(ValidateArguments(d4, R"({"n":4})").ok());
  EXPECT_FALSE(ValidateArguments(d4, R"({"n":5})").ok());
}

TEST(ArgumentSchema, RegexWorkIsBoundedWithoutCrashing) {
  // std::regex recurses per character: ~30k characters overflow an 8 MiB stack. A string
  // that a pattern could apply to is refused past the bound, not handed to std::regex.
  ArgumentSchema s = Compile(R"({"type":"object","properties":{
      "id":{"type":"string","pattern":"^[a-z]+$"},
      "when":{"type":"string","format":"date-time"},
      "body":{"type":"string"},
      "either":{"anyOf":[{"type":"integer"},{"type":"string","pattern":"^x+$"}]},
      "meta":{"type":"object","propertyNames":{"pattern":"^[a-z]+$"}}}})");
  const std::string big(200 * 1000, 'a');
  ExpectViolation(s, "{\"id\":\"" + big + "\"}", "/id", "pattern");
  Verdict v = ValidateArguments(s, "{\"id\":\"" + big + "\"}");
  EXPECT_NE(v.detail().find("1024-byte bound"), std::string::npos) << v.detail();
  ExpectViolation(s, "{\"when\":\"" + std::string(100 * 1000, '1') + "\"}", "/when", "format");
  ExpectViolation(s, "{\"either\":\"" + std::string(100 * 1000, 'x') + "\"}", "/either", "pattern");
  ExpectViolation(s, "{\"meta\":{\"" + big + "\":1}}", "/meta/" + std::string(64, 'a') + "...",
                  "propertyNames");
  // A long string no pattern applies to is fine, even beside patterned fields.
  EXPECT_TRUE(ValidateArguments(s, "{\"id\":\"abc\",\"body\":\"" + big + "\"}").ok());
  EXPECT_TRUE(ValidateArguments(s, "{\"id\":\"" + std::string(1024, 'a') + "\"}").ok());
  EXPECT_TRUE(ValidateArguments(s, R"({"when":"2024-02-29T10:00:00Z"})").ok());
  ExpectViolation(s, R"({"when":"yesterday"})", "/when", "format");
}

// Nested quantifiers make std::regex's default (backtracking) executor take 2^n steps on n
// characters that almost match: one call could stall the gateway for hours. Patterns run
// on RE2 (trust/linear_regex.h), so these answer at once.
TEST(ArgumentSchema, NestedQuantifiersCannotStallValidation) {
  ArgumentSchema s = Compile(R"({"type":"object","properties":{
      "host":{"type":"string","pattern":"^([a-z0-9]+[-.]?)+$"},
      "a":{"type":"string","pattern":"^(a+)+$"}}})");
  const std::string run(1000, 'a');
  ExpectViolation(s, "{\"a\":\"" + run + "!\"}", "/a", "pattern");
  ExpectViolation(s, "{\"host\":\"" + run + "!\"}", "/host", "pattern");
  EXPECT_TRUE(ValidateArguments(s, "{\"a\":\"" + run + "\"}").ok());
  EXPECT_TRUE(ValidateArguments(s, R"({"host":"api.example-1.org"})").ok());
}

// What only a backtracking matcher can do — back-references, look-ahead — fails compile,
// wherever a pattern stands:
// `(a|a)*$|(b)\2` took 8.8 s on 25 characters, `(?=.*(?=.*x))` 5.6 s on 256.
TEST(ArgumentSchema, PatternsThatNeedBacktrackingFailCompile) {
  for (const char* pattern : {R"(^(ab)\\1$)", R"(^(a|a)*$|(b)\\2)", R"((?=.*x))", R"((?!^)b)",
                              R"((?=.*(?=.*x)))"}) {
    for (const std::string& schema :
         {std::string(R"({"properties":{"q":{"pattern":")") + pattern + R"("}}})",
          std::string(R"({"propertyNames":{"pattern":")") + pattern + R"("}})",
          std::string(R"({"patternProperties":{")") + pattern + R"(":{}}})"}) {
      Result<ArgumentSchema> refused = CompileArgumentSchema(schema);
      ASSERT_FALSE(refused.ok()) << schema;
      EXPECT_EQ(refused.status().code(), Code::kUnsupported) << refused.status().ToString();
      if (schema.find("patternProperties") == std::string::npos) {  // there it is the location
        EXPECT_EQ(refused.status().message().find(pattern), std::string::npos) << "never quoted";
      }
    }
  }
  // Large but linear is fine: one pass over 1 KiB.
  ArgumentSchema s = Compile(R"({"properties":{"q":{"pattern":".{0,1000}x"}}})");
  ExpectViolation(s, "{\"q\":\"" + std::string(1024, 'a') + "\"}", "/q", "pattern");
  EXPECT_TRUE(ValidateArguments(s, "{\"q\":\"" + std::string(1000, 'a') + "x\"}").ok());
}

// A pattern longer than Las checks fails compile before any regex engine sees it: 20,000
// nested groups overflowed the stack in std::regex's recursive compiler (a crash at
// startup, from a schema), and 16 KiB of `.` took 0.8 s to refuse. Long but real
// patterns (1,100 alternatives, 15 KiB) are fine.
TEST(ArgumentSchema, APatternLongerThanLasChecksFailsCompile) {
  const std::string nested = std::string(20000, '(') + "a" + std::string(20000, ')');
  for (const std::string& schema :
       {R"({"properties":{"q":{"pattern":")" + nested + R"("}}})",
        R"({"patternProperties":{")" + nested + R"(":{}}})",
        R"({"properties":{"q":{"pattern":")" + std::string(kMaxPatternBytes + 1, 'a') + R"("}}})"}) {
    Result<ArgumentSchema> refused = CompileArgumentSchema(schema);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), Code::kUnsupported) << refused.status().ToString();
    EXPECT_NE(refused.status().message().find("longer than"), std::string::npos)
        << refused.status().ToString();
  }
  std::string zones = "^(";
  for (int i = 0; i < 1100; ++i) zones += (i ? "|Zone/City" : "Zone/City") + std::to_string(1000 + i);
  zones += ")$";
  ASSERT_LE(zones.size(), kMaxPatternBytes);
  ArgumentSchema s = Compile(R"({"properties":{"q":{"pattern":")" + zones + R"("}}})");
  EXPECT_TRUE(ValidateArguments(s, R"({"q":"Zone/City2099"})").ok());
  ExpectViolation(s, R"({"q":"Zone/City2100"})", "/q", "pattern");
}

// The same for patternProperties keys, which valijson would match with the backtracking
// executor itself: Las decides which keys each pattern matches (breadth-first) and hands
// valijson those keys as plain properties.
TEST(ArgumentSchema, NestedQuantifiersInPatternPropertiesCannotStallValidation) {
  ArgumentSchema s = Compile(R"({"type":"object",
      "definitions":{"counts":{"type":"object","patternProperties":{"^(a+)+$":{"type":"integer"}},
                               "additionalProperties":false}},
      "properties":{"direct":{"$ref":"#/definitions/counts"},
                    "maybe":{"anyOf":[{"type":"null"},{"$ref":"#/definitions/counts"}]}},
      "patternProperties":{"^([a-z0-9]+[-.]?)+\\.b$":{"type":"string"}}})");
  const std::string run(40, 'a');  // 2^40 steps for the backtracking executor
  ExpectViolation(s, "{\"direct\":{\"" + run + "!\":1}}", "/direct/" + run + "!", "additionalProperties");
  ExpectViolation(s, "{\"maybe\":{\"" + run + "!\":1}}", "/maybe", "anyOf");
  EXPECT_TRUE(ValidateArguments(s, "{\"direct\":{\"" + run + "\":1}}").ok());
  ExpectViolation(s, "{\"direct\":{\"" + run + "\":\"x\"}}", "/direct/" + run, "type");
  EXPECT_TRUE(ValidateArguments(s, "{\"" + run + "!\":1}").ok());  // matches no pattern
  ExpectViolation(s, "{\"" + run + ".b\":1}", "/" + run + ".b", "type");
  EXPECT_TRUE(ValidateArguments(s, "{\"" + run + ".b\":\"x\",\"maybe\":null}").ok());
}

// A polynomial pattern such as (.*.*.*.*=) is scanned once over its subject, not once
// from every starting position.
TEST(ArgumentSchema, UnanchoredPatternsScanTheSubjectOnce) {
  ArgumentSchema s = Compile(R"js({"type":"object","properties":{
      "kv":{"type":"string","pattern":"(.*.*.*.*=)"},
      "mid":{"type":"string","pattern":"b{2}c"},
      "start":{"type":"string","pattern":"^ab|cd$"}},
      "patternProperties":{"(x.*.*.*.*=)":{"type":"integer"}}})js");
  const std::string subject(1024, 'a');
  ExpectViolation(s, "{\"kv\":\"" + subject + "\"}", "/kv", "pattern");
  EXPECT_TRUE(ValidateArguments(s, "{\"kv\":\"" + subject.substr(1) + "=\"}").ok());
  EXPECT_TRUE(ValidateArguments(s, "{\"x" + subject.substr(1) + "\":\"s\"}").ok());
  ExpectViolation(s, "{\"x" + subject.substr(2) + "=\":\"s\"}", "/x" + std::string(63, 'a') + "...", "type");
  // Anchors keep their meaning inside the wrapped search.
  EXPECT_TRUE(ValidateArguments(s, R"({"mid":"abbbcd","start":"abz"})").ok());
  EXPECT_TRUE(ValidateArguments(s, R"({"start":"zzcd"})").ok());
  ExpectViolation(s, R"({"start":"zab"})", "/start", "pattern");
  ExpectViolation(s, R"({"start":"cdz"})", "/start", "pattern");
  ExpectViolation(s, R"({"mid":"bcbc"})", "/mid", "pattern");
}

// Keys matched by patternProperties are given to valijson as properties; everything the
// keyword means stays: several patterns on one key, a key also under properties, keys that
// match nothing going to additionalProperties, draft-04, nested pattern schemas.
TEST(ArgumentSchema, PatternPropertiesKeepTheirMeaning) {
  for (const char* dialect : {"", R"("$schema":"http://json-schema.org/draft-04/schema#",)"}) {
    ArgumentSchema s = Compile(std::string("{") + dialect + R"("type":"object",
        "properties":{"ab":{"maxLength":2},"nested":{"type":"object",
            "patternProperties":{"^n":{"type":"object","patternProperties":{"^m":{"type":"integer"}}}}}},
        "patternProperties":{"^a":{"type":"string"},"b$":{"minLength":2}},
        "additionalProperties":false,
        "allOf":[{"required":["ab"]}]})");
    EXPECT_TRUE(ValidateArguments(s, R"({"ab":"xy"})").ok());
    ExpectViolation(s, R"({"ab":"xyz"})", "/ab", "maxLength");
    ExpectViolation(s, R"({"ab":1})", "/ab", "type");
    ExpectViolation(s, R"({"ab":"x"})", "/ab", "minLength");
    EXPECT_TRUE(ValidateArguments(s, R"({"ab":"xy","ac":"z","cb":"zz"})").ok());
    ExpectViolation(s, R"({"ab":"xy","cb":"z"})", "/cb", "minLength");
    ExpectViolation(s, R"({"ab":"xy","zz":1})", "/zz", "additionalProperties");
    ExpectViolation(s, R"({"ac":"z"})", "/ab", "required");
    EXPECT_TRUE(ValidateArguments(s, R"({"ab":"xy","nested":{"n1":{"m1":1,"z":"s"},"q":1}})").ok());
    ExpectViolation(s, R"({"ab":"xy","nested":{"n1":{"m1":"s"}}})", "/nested/n1/m1", "type");
    // The same key elsewhere, where no pattern applies, is not touched.
    EXPECT_TRUE(ValidateArguments(s, R"({"ab":"xy","nested":{"ac":1,"m1":"s"}})").ok());
  }
  // A reference into a patternProperties subschema cannot follow it to where it is moved.
  Result<ArgumentSchema> into = CompileArgumentSchema(R"({"patternProperties":{"^a":{"type":"string"}},
      "properties":{"b":{"$ref":"#/patternProperties/%5Ea"}}})");
  ASSERT_FALSE(into.ok());
  EXPECT_EQ(into.status().code(), Code::kUnsupported) << into.status().ToString();
  EXPECT_NE(into.status().message().find("#/properties/b/$ref"), std::string::npos) << into.status().message();
  // A reference that validators could resolve to different places is refused.
  for (const char* ref : {"#/definitions//a", "#/definitions/a%2Fb", "#/definitions/a/", "#/definitions/%7E1",
                          "#/definitions/~%31"}) {
    Result<ArgumentSchema> ambiguous = CompileArgumentSchema(
        std::string(R"({"definitions":{"":{"a":{"properties":{"x1":{"type":"integer"}}}},"a":{},
            "a/b":{},"~1":{},"/":{}},"properties":{"p":{"$ref":")") + ref + R"("}}})");
    ASSERT_FALSE(ambiguous.ok()) << ref;
    EXPECT_EQ(ambiguous.status().code(), Code::kUnsupported) << ambiguous.status().ToString();
  }
  // Patterns that translate alike (é, [é]) keep both subschemas; a patternProperties under
  // a pattern that translation rewrites is still found.
  ArgumentSchema alike = Compile(R"({"patternProperties":{"\u00e9":{"type":"integer"},"[\u00e9]":{"minimum":5}}})");
  ExpectViolation(alike, R"({"\u00e9":1})", "/\\xc3\\xa9", "minimum");
  ExpectViolation(alike, R"({"\u00e9":"s"})", "/\\xc3\\xa9", "type");
  ArgumentSchema nested = Compile(R"({"patternProperties":{"^[a-z]+$":{"patternProperties":{"^v":{"type":"string"}}}}})");
  EXPECT_TRUE(ValidateArguments(nested, "{}").ok());
  EXPECT_TRUE(ValidateArguments(nested, R"({"ab":{"v1":"s"}})").ok());
  ExpectViolation(nested, R"({"ab":{"v1":1}})", "/ab/v1", "type");
  // The empty pattern matches every key; a patternProperties under a property named ""
  // cannot be reached by a reference and is refused.
  ArgumentSchema every = Compile(R"({"patternProperties":{"":{"type":"integer"},"^z":{"type":"string"}}})");
  ExpectViolation(every, R"({"a":"s"})", "/a", "type");
  ExpectViolation(every, R"({"z":"s"})", "/z", "type");
  EXPECT_TRUE(ValidateArguments(every, R"({"a":1,"":2})").ok());
  Result<ArgumentSchema> unnamed = CompileArgumentSchema(
      R"({"properties":{"":{"patternProperties":{"^x":{"type":"integer"}}}}})");
  ASSERT_FALSE(unnamed.ok());
  EXPECT_EQ(unnamed.status().code(), Code::kUnsupported) << unnamed.status().ToString();
  // A reference that makes data or a map of names a schema is refused: Las's copy for
  // valijson renames keywords in schemas, which would change that data.
  for (const char* schema : {R"({"properties":{"p":{"enum":[{"pattern":"^a$"}]},"q":{"$ref":"#/properties/p/enum/0"}}})",
                             R"({"properties":{"p":{"const":{"patternProperties":{"^a":{}}}},"q":{"$ref":"#/properties/p/const"}}})",
                             R"({"properties":{"b":{"properties":{"patternProperties":{"not":{}}}},"a":{"$ref":"#/properties/b/properties"}}})"}) {
    Result<ArgumentSchema> data = CompileArgumentSchema(schema);
    ASSERT_FALSE(data.ok()) << schema;
    EXPECT_EQ(data.status().code(), Code::kUnsupported) << data.status().ToString();
  }
  // A reference to the object that holds patternProperties is fine.
  EXPECT_TRUE(CompileArgumentSchema(R"({"definitions":{"m":{"patternProperties":{"^a":{"type":"string"}}}},
      "properties":{"b":{"$ref":"#/definitions/m"}}})").ok());
}

// Patterns match characters, not UTF-8 bytes (trust/utf8_pattern.h), also as
// patternProperties keys and under propertyNames.
TEST(ArgumentSchema, PatternsReadCharactersNotBytes) {
  ArgumentSchema s = Compile(R"({"type":"object",
      "properties":{"name":{"type":"string","pattern":"^[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff ]+$"},
                    "tags":{"type":"object","propertyNames":{"pattern":"^.{1,2}$"}}},
      "patternProperties":{"^\u00e9.$":{"type":"integer"}},
      "additionalProperties":false})");
  EXPECT_TRUE(ValidateArguments(s, R"({"name":"Jos\u00e9"})").ok());
  ExpectViolation(s, R"({"name":"\u00d7"})", "/name", "pattern");  // was accepted
  EXPECT_TRUE(ValidateArguments(s, R"({"\u00e9\u65e5":1})").ok());
  ExpectViolation(s, R"({"\u00e9\u65e5":"one"})", "/\\xc3\\xa9\\xe6\\x97\\xa5", "type");  // pointers print bytes
  ExpectViolation(s, R"({"\u00e9\u65e5\u65e5":1})", "/\\xc3\\xa9\\xe6\\x97\\xa5\\xe6\\x97\\xa5",
                  "additionalProperties");
  EXPECT_TRUE(ValidateArguments(s, R"({"tags":{"\u65e5\u672c":1}})").ok());
  // valijson reports no detail for propertyNames, only the property that holds it.
  EXPECT_FALSE(ValidateArguments(s, R"({"tags":{"\u65e5\u672c\u8a9e":1}})").ok());
}

// Alternatives that share a first UTF-8 byte (é, ê: 0xC3) — libre2 2022-06-01 missed them
// in its Latin-1 mode, which under `not` accepted what it should refuse — and escapes that
// mean something else on another engine (RE2's \z, \A, \C, \pL, \Q) are refused.
TEST(ArgumentSchema, NonAsciiAlternativesMatchAndForeignEscapesFailCompile) {
  ArgumentSchema s = Compile(R"js({"type":"object","properties":{
      "accent":{"type":"string","pattern":"^(\u00e9|\u00ea)$"},
      "cafe":{"type":"string","pattern":"^(caf\u00e9|caf\u00e8)$"},
      "face":{"type":"string","pattern":"^[\ud83d\ude00-\ud83d\ude4f]$"},
      "city":{"type":"string","not":{"pattern":"(\u00e4|\u00f6)"}},
      "control":{"type":"string","pattern":"^a\\cJb\\0\\-\\.$"}},
      "propertyNames":{"not":{"pattern":"^(\u00e9|\u00e8)"}}})js");
  EXPECT_TRUE(ValidateArguments(s, R"({"accent":"\u00ea","cafe":"caf\u00e8","face":"\ud83d\ude03"})").ok());
  ExpectViolation(s, R"({"accent":"\u00eb"})", "/accent", "pattern");
  ExpectViolation(s, R"({"city":"\u00e4"})", "/city", "not");
  EXPECT_TRUE(ValidateArguments(s, R"({"city":"Z\u00fcrich"})").ok());
  EXPECT_FALSE(ValidateArguments(s, R"({"\u00e9t\u00e9":1})").ok());
  EXPECT_TRUE(ValidateArguments(s, R"({"control":"a\nb\u0000-."})").ok());
  ExpectViolation(s, R"({"control":"a\nb\u0000x."})", "/control", "pattern");
  for (const char* pattern : {R"(^[a-z]+\\z)", R"(\\Aadmin)", R"(^\\C$)", R"(^\\pL+$)", R"(\\Q.\\E)", R"(\\a)",
                              R"(\\01)", R"(\\c)"}) {
    Result<ArgumentSchema> refused =
        CompileArgumentSchema(std::string(R"({"properties":{"q":{"pattern":")") + pattern + R"("}}})");
    ASSERT_FALSE(refused.ok()) << pattern;
    EXPECT_EQ(refused.status().code(), Code::kInvalidArgument) << pattern << ": " << refused.status().ToString();
  }
}

// Inside a class as outside: an escape a u-flag pattern reads as something Las does not
// implement (\p{..}, \P{..}, \u{..}) is refused as unsupported, and an identity escape
// of a letter or '_' (invalid under the u flag) as invalid. Before, `[\p{Lu}]` was a class
// of "p", "{", "L", "u", "}" and `[\q]` one of "q".
TEST(ArgumentSchema, EscapesInClassesMeanWhatTheyMeanOutsideOrFailCompile) {
  auto compile = [](const char* pattern) {
    return CompileArgumentSchema(std::string(R"({"properties":{"q":{"pattern":")") + pattern + R"("}}})");
  };
  for (const char* unsupported : {R"(^[\\p{Lu}]$)", R"(^[\\P{L}]$)", R"(^[a\\u{1F600}]$)", R"([^\\p{Lu}])",
                                  R"(^\\p{Lu}$)", R"(^\\u{1F600}$)"}) {
    Result<ArgumentSchema> refused = compile(unsupported);
    ASSERT_FALSE(refused.ok()) << unsupported;
    EXPECT_EQ(refused.status().code(), Code::kUnsupported) << unsupported << ": " << refused.status().ToString();
    EXPECT_NE(refused.status().message().find("not supported by Las"), std::string::npos)
        << refused.status().ToString();
  }
  for (const char* invalid : {R"(^[\\q]$)", R"(^[\\k]$)", R"(^[\\_]$)", R"(^[\\B]$)", R"(^[\\z]$)", R"(^[a\\y]$)",
                              R"(^[\\pL]$)", R"(^[\\u12]$)", R"(^[\\x4]$)", R"(^\\q$)", R"(^\\_$)"}) {
    Result<ArgumentSchema> refused = compile(invalid);
    ASSERT_FALSE(refused.ok()) << invalid;
    EXPECT_EQ(refused.status().code(), Code::kInvalidArgument) << invalid << ": " << refused.status().ToString();
    EXPECT_NE(refused.status().message().find("not valid in a u-flag ECMAScript pattern"), std::string::npos)
        << refused.status().ToString();
  }
  // The escapes a u-flag class does have keep their meaning.
  ArgumentSchema s = Compile(R"({"properties":{
      "a":{"pattern":"^[\\b\\-\\d\\]\\^\\/\\cJ\\x41\\u00e9]+$"},
      "b":{"pattern":"^[\\w\\s]$"}}})");
  EXPECT_TRUE(ValidateArguments(s, R"({"a":"\b-1]^/\nA\u00e9","b":"_"})").ok());
  ExpectViolation(s, R"({"a":"q"})", "/a", "pattern");
  ExpectViolation(s, R"({"b":"-"})", "/b", "pattern");
}

// A valid u-flag pattern Las does not implement is "not supported by Las" (kUnsupported),
// never called invalid; what is not ECMAScript at all is invalid (kInvalidArgument).
TEST(ArgumentSchema, ValidButUnsupportedPatternsAreToldApartFromInvalidOnes) {
  auto compile = [](const char* pattern) {
    return CompileArgumentSchema(std::string(R"({"properties":{"q":{"pattern":")") + pattern + R"("}}})");
  };
  for (const char* unsupported : {R"(^\\p{L}+$)", R"(^\\u{1F600}$)", R"(^(?<year>\\d{4})$)", R"((?<=a)b)",
                                  R"((?<!a)b)", R"(^(.{1000}){1000}$)", R"((?<x>a)\\k<x>)", R"(^(a)\\1$)",
                                  R"((?=a))"}) {
    Result<ArgumentSchema> refused = compile(unsupported);
    ASSERT_FALSE(refused.ok()) << unsupported;
    EXPECT_EQ(refused.status().code(), Code::kUnsupported) << unsupported << ": " << refused.status().ToString();
    EXPECT_NE(refused.status().message().find("not supported by Las"), std::string::npos)
        << unsupported << ": " << refused.status().ToString();
    EXPECT_EQ(refused.status().message().find("not valid"), std::string::npos) << refused.status().ToString();
  }
  for (const char* invalid : {R"(^\\pL$)", R"(a**)", R"((?P<x>a))", R"(^(a$)", R"([z-a])", R"(\\k)"}) {
    Result<ArgumentSchema> refused = compile(invalid);
    ASSERT_FALSE(refused.ok()) << invalid;
    EXPECT_EQ(refused.status().code(), Code::kInvalidArgument) << invalid << ": " << refused.status().ToString();
    EXPECT_EQ(refused.status().message().find("supported"), std::string::npos) << refused.status().ToString();
  }
}

// date, time and date-time are RFC 3339 exactly (trust/date_time_format.h): valijson's own
// check took February 29 of any year, any number of year digits, '|' as an offset sign, and
// refused non-strings, which a format does not apply to.
TEST(ArgumentSchema, DateAndTimeFormatsAreRfc3339Exactly) {
  ArgumentSchema s = Compile(R"({"properties":{"d":{"format":"date"},"t":{"format":"time"},
                                               "dt":{"format":"date-time"}}})");
  struct Case {
    const char* key;
    const char* value;
    bool valid;
  };
  const Case cases[] = {
      {"d", "2024-02-29", true},   {"d", "2000-02-29", true},   {"d", "2023-02-29", false},
      {"d", "1900-02-29", false},  {"d", "2023-04-31", false},  {"d", "2023-13-01", false},
      {"d", "2023-00-10", false},  {"d", "12023-01-01", false}, {"d", "823-01-01", false},
      {"d", "2023-1-01", false},   {"d", "\u09ea023-01-01", false},
      {"t", "08:30:06.283185Z", true}, {"t", "08:30:06+02:00", true}, {"t", "08:30:06|02:00", false},
      {"t", "08:30:06", false},    {"t", "24:00:00Z", false},   {"t", "08:60:00Z", false},
      {"t", "08:30:06+24:00", false}, {"t", "08:30:06.Z", false}, {"t", "23:59:60Z", true},
      {"t", "22:59:60Z", false},   {"t", "15:59:60-08:00", true}, {"t", "23:59:60+01:00", false},
      {"dt", "1963-06-19T08:30:06.283185Z", true}, {"dt", "1963-06-19t08:30:06z", true},
      {"dt", "1937-01-01T12:00:27.87+00:20", true}, {"dt", "1990-02-31T15:59:59-08:00", false},
      {"dt", "2023-02-29T10:00:00Z", false}, {"dt", "1963-06-19 08:30:06Z", false},
      {"dt", "1963-06-19T08:30:06Z ", false},
  };
  for (const Case& c : cases) {
    const std::string args = std::string(R"({")") + c.key + R"(":")" + c.value + R"("})";
    if (c.valid) {
      EXPECT_TRUE(ValidateArguments(s, args).ok()) << args;
    } else {
      ExpectViolation(s, args, std::string("/") + c.key, "format");
    }
  }
  EXPECT_TRUE(ValidateArguments(s, R"({"d":20240229,"t":null,"dt":["x"]})").ok()) << "formats apply to strings";
  // A long string is simply not a date (no bound needed: no regex runs).
  ExpectViolation(s, "{\"dt\":\"" + std::string(100 * 1000, '1') + "\"}", "/dt", "format");
  // The suite's optional format tests, where the package has them.
  namespace fs = std::filesystem;
  for (const char* name : {"date.json", "time.json", "date-time.json"}) {
    const fs::path file = fs::path(kSuiteDir) / "optional" / "format" / name;
    if (!fs::exists(file)) continue;
    std::ifstream in(file);
    for (const auto& group : nlohmann::json::parse(in)) {
      Result<ArgumentSchema> schema = CompileArgumentSchema(group["schema"].dump());
      ASSERT_TRUE(schema.ok()) << schema.status().ToString();
      for (const auto& t : group["tests"]) {
        EXPECT_EQ(ValidateInstance(*schema, t["data"].dump()).ok(), t["valid"].get<bool>())
            << name << ": " << t["description"] << " " << t["data"].dump();
      }
    }
  }
}

// Other formats are annotations to Las (docs/RELEASES.md). valijson read the value as a
// string before its type, and a non-empty array or object threw (probe HE1: pydantic's
// `Path | list[Path]` refused every list; a type mismatch was blamed on the validator).
TEST(ArgumentSchema, AnAnnotationFormatNeitherThrowsNorHidesATypeFailure) {
  ArgumentSchema s = Compile(R"({"type":"object","properties":{
      "paths":{"anyOf":[{"format":"path","type":"string"},
                        {"items":{"format":"path","type":"string"},"type":"array"},{"type":"null"}]},
      "em":{"anyOf":[{"type":"string","format":"email"},
                     {"type":"object","additionalProperties":{"type":"string","format":"email"}}]},
      "url":{"type":"string","format":"uri"}}})");
  for (const char* args : {R"({"paths":["/a","/b"]})", R"({"paths":"/a"})", R"({"paths":null})",
                           R"({"em":{"a":"a@b.co"}})", R"({"url":"not checked"})"}) {
    EXPECT_TRUE(ValidateArguments(s, args).ok()) << args << ": " << ValidateArguments(s, args).ToString();
  }
  ExpectViolation(s, R"({"url":[1,"a"]})", "/url", "type");
  ExpectViolation(s, R"({"url":{"k":1}})", "/url", "type");
  ExpectViolation(s, R"({"paths":[1]})", "/paths", "anyOf");
}

// valijson reads a bound written as a string as the number it spells — "nan" too, which no
// comparison fails (probe BY3) — and a failing propertyNames records no error of its own
// (probe BY4: the detail named "" and properties, or blamed the validator).
TEST(ArgumentSchema, BoundsAreNumbersAndPropertyNamesFailuresAreNamed) {
  for (const char* bound : {R"({"properties":{"n":{"type":"number","maximum":"nan"}}})",
                            R"({"properties":{"n":{"minimum":"5"}}})",
                            R"({"properties":{"s":{"maxLength":"3"}}})"}) {
    Result<ArgumentSchema> refused = CompileArgumentSchema(bound);
    ASSERT_FALSE(refused.ok()) << bound;
    EXPECT_EQ(refused.status().code(), Code::kUnsupported);
    EXPECT_NE(refused.status().message().find("a bound written as a string"), std::string::npos)
        << refused.status().ToString();
  }
  // Probe GS5: OpenAPI 3.0's boolean exclusiveMinimum in a schema read as draft-07.
  Result<ArgumentSchema> open_api = CompileArgumentSchema(
      R"({"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}})");
  ASSERT_FALSE(open_api.ok());
  EXPECT_EQ(open_api.status().code(), Code::kUnsupported);
  EXPECT_NE(open_api.status().message().find(
                "#/properties/n/exclusiveMinimum: a boolean, draft-04's form, in a draft-07 schema"),
            std::string::npos)
      << open_api.status().ToString();
  EXPECT_TRUE(CompileArgumentSchema(R"({"$schema":"http://json-schema.org/draft-04/schema#",)"
                                    R"("properties":{"n":{"minimum":0,"exclusiveMinimum":true}}})")
                  .ok());
  ArgumentSchema root = Compile(R"({"type":"object","propertyNames":{"$ref":"#/definitions/n"},
      "definitions":{"n":{"maxLength":3}}})");
  ExpectViolation(root, R"({"abcdefgh":1})", "", "propertyNames");
  ArgumentSchema nested = Compile(R"({"type":"object","properties":{"v":{"type":"object",
      "propertyNames":{"pattern":"^[a-z]+$"}}}})");
  ExpectViolation(nested, R"({"v":{"A":1}})", "/v", "propertyNames");
  // A subschema `false` fails without an entry of its own too (probe GL3: it was named
  // propertyNames in a schema that has none).
  ArgumentSchema never = Compile(R"({"type":"object","properties":{"yes":true,"no":false}})");
  ExpectViolation(never, R"({"no":1})", "/no", "a false schema");
  EXPECT_TRUE(ValidateArguments(never, R"({"yes":1})").ok());
  ArgumentSchema both = Compile(R"({"type":"object","properties":{"no":false,
      "v":{"type":"object","propertyNames":{"maxLength":1}}}})");
  ExpectViolation(both, R"({"no":null})", "/no", "propertyNames or a false schema");
}

// valijson counts a string's characters up to a NUL, and cut patterns at one.
TEST(ArgumentSchema, NulCharactersAreCountedAndMatched) {
  ArgumentSchema s = Compile(R"({"type":"object",
      "properties":{"short":{"maxLength":3},"long":{"minLength":3},"p":{"pattern":"^a\u0000b$"},
                    "names":{"type":"object","propertyNames":{"maxLength":2}},
                    "via_ref":{"type":"object","propertyNames":{"$ref":"#/definitions/name"}},
                    "via_all":{"type":"object","propertyNames":{"allOf":[{"maxLength":3}]}},
                    "via_not":{"type":"object","propertyNames":{"not":{"minLength":2}}},
                    "keys":{"type":"object","patternProperties":{"^a\u0000b$":{"type":"integer"}}}},
      "definitions":{"name":{"type":"string","maxLength":3}}})");
  auto not_checked = [&](const std::string& args, const std::string& pointer, const std::string& keyword) {
    Verdict v = ValidateArguments(s, args);
    ASSERT_FALSE(v.ok()) << args;
    EXPECT_NE(v.detail().find("not checked"), std::string::npos) << v.detail();
    EXPECT_NE(v.detail().find("\"" + pointer + "\" cannot be checked against " + keyword), std::string::npos)
        << v.detail();
  };
  not_checked(R"({"short":"a\u0000bbbbbbb"})", "/short", "maxLength");  // was accepted
  EXPECT_TRUE(ValidateArguments(s, R"({"short":"a\u0000b"})").ok());
  not_checked(R"({"long":"\u0000bbbbbbb"})", "/long", "minLength");  // was "fails minLength"
  ExpectViolation(s, R"({"long":"\u0000b"})", "/long", "minLength");
  not_checked(R"({"names":{"a\u0000bcd":1}})", "/names/a\\x00bcd", "maxLength");
  // Also where the bound is reached through $ref, allOf or not (probe BY2: accepted).
  not_checked(R"({"via_ref":{"a\u0000bcdefgh":1}})", "/via_ref/a\\x00bcdefgh", "maxLength");
  not_checked(R"({"via_all":{"a\u0000bcdefgh":1}})", "/via_all/a\\x00bcdefgh", "maxLength");
  not_checked(R"({"via_not":{"a\u0000bc":1}})", "/via_not/a\\x00bc", "minLength");
  EXPECT_TRUE(ValidateArguments(s, R"({"via_ref":{"a\u0000b":1}})").ok());
  ExpectViolation(s, R"({"via_ref":{"abcdefgh":1}})", "/via_ref", "propertyNames");
  ExpectViolation(s, R"({"p":"a"})", "/p", "pattern");  // was accepted: the pattern was "^a"
  EXPECT_TRUE(ValidateArguments(s, R"({"p":"a\u0000b"})").ok());
  EXPECT_TRUE(ValidateArguments(s, R"({"keys":{"a":"x"}})").ok());  // was "fails type"
  // valijson cuts property names at a NUL: a key holding one that a pattern matches, and
  // a schema that names one, are refused rather than misread.
  not_checked(R"({"keys":{"a\u0000b":1}})", "/keys/a\\x00b", "patternProperties");
  EXPECT_TRUE(ValidateArguments(s, R"({"keys":{"a\u0000c":"x"}})").ok());
  for (const char* named : {R"({"properties":{"a\u0000b":{}}})", R"({"required":["a\u0000b"]})",
                            R"({"dependencies":{"a":["a\u0000b"]}})"}) {
    Result<ArgumentSchema> refused = CompileArgumentSchema(named);
    ASSERT_FALSE(refused.ok()) << named;
    EXPECT_EQ(refused.status().code(), Code::kUnsupported) << refused.status().ToString();
    EXPECT_NE(refused.status().message().find("NUL"), std::string::npos) << refused.status().message();
  }
}

TEST(ArgumentSchema, UniqueItemsWorkIsBounded) {
  ArgumentSchema s = Compile(R"({"type":"object","properties":{
      "ids":{"type":"array","uniqueItems":true},"any":{"type":"array"}}})");
  std::string many = "[";
  for (int i = 0; i < 5000; ++i) many += (i ? "," : "") + std::to_string(i);
  many += "]";
  ExpectViolation(s, "{\"ids\":" + many + "}", "/ids", "uniqueItems");
  EXPECT_TRUE(ValidateArguments(s, "{\"any\":" + many + "}").ok());
}

TEST(ArgumentSchema, MovableAndSafeToShareAcrossThreads) {
  ArgumentSchema a = Compile(kSearchSchema);
  ArgumentSchema b = std::move(a);
  a = Compile("{}");
  EXPECT_TRUE(ValidateArguments(a, R"({"x":1})").ok());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&b, &wrong, t] {
      for (int i = 0; i < 200; ++i) {
        const bool good = (i + t) % 2 == 0;
        Verdict v = ValidateArguments(
            b, good ? R"({"query":"q","tags":["ab","cd"],"limit":5})" : R"({"query":"q","tags":["AB"]})");
        if (v.ok() != good) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

// ---------------------------------------------------------------------------------------
// The official JSON Schema Test Suite (Debian package json-schema-test-suite), draft 7.


// Files not run, with the reason (documented in trust/argument_schema.h).
const std::map<std::string, std::string>& SkippedFiles() {
  static const std::map<std::string, std::string> skipped = {
      {"refRemote.json", "remote $ref: never fetched (compile refuses it)"},
  };
  return skipped;
}

// Individual suite tests where this policy knowingly differs from the suite, by
// "file / case / test". Each is a documented decision or a known valijson deviation.
const std::map<std::string, std::string>& KnownDeviations() {
  static const std::map<std::string, std::string> known = {};
  return known;
}

// valijson reads every integer as an int64_t: an unsigned integer above 2^63-1 wrapped to
// a negative number in bounds, enum and const, and an integer multipleOf truncated a
// non-integral instance. Each row was decided wrongly before (or is a neighbour of one).
TEST(ArgumentSchema, IntegersBeyondInt64AndMultipleOfAreDecidedOrRefusedNeverWrapped) {
  enum Want { kAccepted, kViolates, kNotChecked };
  struct Case {
    const char* property;  // the schema of "n"
    const char* n;
    Want want;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"type":"integer","maximum":100})", "10000000000000000000", kNotChecked},  // was accepted
           {R"({"type":"integer","minimum":0})", "10000000000000000000", kNotChecked},
           {R"({"type":"integer","multipleOf":3})", "10000000000000000000", kNotChecked},  // was accepted
           {R"({"enum":[-1]})", "18446744073709551615", kNotChecked},                     // was accepted
           {R"({"const":-1})", "18446744073709551615", kNotChecked},                      // was accepted
           {R"({"enum":[18446744073709549568]})", "18446744073709549568", kNotChecked},
           {R"({"type":"number","exclusiveMinimum":9223372036854775808})", "9223372036854775809",
            kNotChecked},
           {R"({"type":"integer"})", "18446744073709551615", kAccepted},  // no keyword reads it
           {R"({"type":"integer"})", "100000000000000000000", kNotChecked},
           {R"({"type":["integer","number"]})", "100000000000000000000", kAccepted},
           {R"({"type":"number","maximum":1e300})", "100000000000000000000", kAccepted},
           {R"({"type":"integer"})", "9100000000000000000.0", kAccepted},  // was "fails type"
           // 2^64 - 2048: above 2^63-1, and a double exactly (a schema integer must be one).
           {R"({"type":"integer","maximum":18446744073709549568})", "5", kAccepted},   // was refused
           {R"({"type":"integer","maximum":18446744073709549568})", "-5", kAccepted},  // was refused
           {R"({"type":"integer","minimum":18446744073709549568})", "5", kViolates},   // was accepted
           {R"({"type":"integer","minimum":-10})", "-9223372036854775808", kViolates},
           {R"({"type":"number","multipleOf":2})", "6.5", kViolates},  // was accepted
           {R"({"type":"number","multipleOf":2})", "4.0", kAccepted},
           {R"({"type":"integer","multipleOf":2})", "7", kViolates},
           {R"({"type":"integer","multipleOf":2})", "9007199254740992", kAccepted},
           {R"({"type":"number","multipleOf":2})", "1e20", kAccepted},
           {R"({"type":"number","multipleOf":3})", "1e20", kViolates},
           {R"({"type":"number","multipleOf":0.5})", "1.5", kAccepted},
           {R"({"type":"number","multipleOf":1})", "1e-17", kViolates},  // was accepted
           {R"({"type":"number","multipleOf":2})", "4.000000000000001", kViolates},
           // The double is 3, the tool would get 3.0000000000000001: not decided by a double.
           {R"({"type":"number","multipleOf":1})", "3.0000000000000001", kNotChecked},
           // multipleOf is decided on decimals: a number stands for the decimal it was
           // written as, a fractional divisor for its double's shortest form.
           {R"({"type":"number","multipleOf":0.01})", "0.07", kAccepted},
           {R"({"type":"number","multipleOf":0.01})", "19.99", kAccepted},    // was refused
           {R"({"type":"number","multipleOf":0.01})", "1234.56", kAccepted},  // was refused
           {R"({"type":"number","multipleOf":0.01})", "100", kAccepted},      // was refused
           {R"({"type":"number","multipleOf":0.01})", "1999e-2", kAccepted},
           {R"({"type":"number","multipleOf":0.01})", "19.999", kViolates},
           {R"({"type":"number","multipleOf":0.1})", "2.3", kAccepted},       // was refused
           {R"({"type":"number","multipleOf":0.1})", "0.30000000000000004", kViolates},
           {R"({"type":"number","multipleOf":1e-2})", "99999999.99", kAccepted},
           {R"({"type":"number","multipleOf":2.5})", "7.5", kAccepted},
           // An integral double beyond 2^53 that two spellings read differently (1e23 and
           // 99999999999999991611392 are one double), where the answers differ.
           {R"({"type":"number","multipleOf":5})", "1e23", kNotChecked},
           {R"({"type":"number","multipleOf":7})", "1e23", kViolates},
           {R"({"type":"number","multipleOf":2})", "1e23", kAccepted},
           {R"({"enum":[2]})", "2.0", kAccepted},
           // Argument integers a double does not hold exactly (above 2^53): valijson compares
           // them as doubles. Where that decides differently, "not checked"; where not, its
           // verdict. (Schema integers are doubles exactly, or the schema fails compile.)
           {R"({"type":"integer","maximum":9007199254740992})", "9007199254740993", kNotChecked},  // was accepted
           {R"({"type":"integer","maximum":9007199254740994})", "9007199254740993", kAccepted},
           {R"({"type":"integer","minimum":9007199254740996})", "9007199254740995", kNotChecked},  // was accepted
           {R"({"type":"integer","exclusiveMaximum":9007199254740992})", "9007199254740993", kViolates},
           {R"({"type":"integer","exclusiveMinimum":9007199254740992})", "9007199254740993", kNotChecked},
           {R"({"type":"integer","maximum":9223372036854774784})", "9223372036854774785", kNotChecked},
           {R"({"type":"integer","maximum":9223372036854775808})", "9223372036854775807", kAccepted},
           {R"({"type":"integer","minimum":-9223372036854774784})", "-9223372036854774785", kNotChecked},
           {R"({"type":"integer","minimum":0})", "9007199254740993", kAccepted},
           {R"({"type":"number","maximum":9007199254740992.0})", "9007199254740993", kNotChecked},
           {R"({"anyOf":[{"maximum":9007199254740992},{"type":"string"}]})", "9007199254740993", kNotChecked},
           // multipleOf is decided on the integer as written.
           {R"({"type":"integer","multipleOf":2})", "9007199254740993", kViolates},  // was accepted
           {R"({"type":"integer","multipleOf":3})", "9007199254740993", kAccepted},  // was "fails"
           {R"({"type":"integer","multipleOf":3})", "9007199254740994", kViolates},
           {R"({"type":"integer","multipleOf":9007199254740994})", "18014398509481988", kAccepted},
           {R"({"type":"integer","multipleOf":9007199254740994})", "18014398509481989", kViolates},
           {R"({"enum":[9007199254740992]})", "9007199254740993", kNotChecked},  // was accepted
           {R"({"enum":[9007199254740992,9007199254740994]})", "9007199254740994", kAccepted},
           {R"({"enum":[[9007199254740992]]})", "[9007199254740993]", kNotChecked},
           {R"({"enum":[9007199254740992.0]})", "9007199254740993", kNotChecked},
           {R"({"const":9007199254740994})", "9007199254740994", kAccepted},
           {R"({"const":9007199254740992})", "9007199254740993", kNotChecked},  // was accepted
           {R"({"const":{"a":9007199254740992}})", "{\"a\":9007199254740993}", kNotChecked},
           {R"({"uniqueItems":true})", "[9007199254740992,9007199254740993]", kNotChecked},  // was "fails"
           {R"({"uniqueItems":true})", "[9007199254740993,9007199254740993]", kViolates},
           {R"({"uniqueItems":true})", "[[9007199254740993],[9007199254740992],1]", kNotChecked},
       }) {
    for (const char* dialect : {"http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-04/schema#"}) {
      const std::string schema =
          std::string(R"({"$schema":")") + dialect + R"(","type":"object","properties":{"n":)" + c.property + "}}";
      if (std::string_view(dialect).find("draft-04") != std::string_view::npos &&
          (std::string_view(c.n).find_first_of(".e") != std::string_view::npos ||
           std::string_view(c.property).find("exclusive") != std::string_view::npos)) {
        continue;  // draft-04 reads 4.0 and 1e20 as non-integers, and exclusive* as flags
      }
      for (bool fast_accept : {true, false}) {  // flat schemas: both paths
        ArgumentSchemaLimits limits;
        limits.fast_accept = fast_accept;
        Result<ArgumentSchema> compiled = CompileArgumentSchema(schema, limits);
        ASSERT_TRUE(compiled.ok()) << schema << ": " << compiled.status().ToString();
        Verdict v = ValidateArguments(*compiled, std::string(R"({"n":)") + c.n + "}");
        const std::string what = schema + " with " + c.n + (fast_accept ? "" : " (full path)") + ": " +
                                 v.ToString();
        if (c.want == kAccepted) {
          EXPECT_TRUE(v.ok()) << what;
          continue;
        }
        if (v.ok()) {
          ADD_FAILURE() << what;
          continue;
        }
        EXPECT_EQ(v.reason(), Reason::kArgumentsSchemaViolation) << what;
        const bool not_checked = v.detail().find("not checked") != std::string::npos;
        EXPECT_EQ(not_checked, c.want == kNotChecked) << what;
        EXPECT_NE(v.detail().find(not_checked ? "\"/n\" cannot be checked against " : "\"/n\" fails "),
                  std::string::npos)
            << what;
      }
    }
  }
}

// A release binds a schema by the digest of its JCS form, which reads every number as a
// double; Las enforces the schema as written, integers exactly. So a schema integer a
// double does not hold would be enforced as a number the digest never bound (a child could
// serve 10000000000000001 where 10000000000000000 was signed): it fails compile, wherever
// it stands, and the message names where without repeating it.
TEST(ArgumentSchema, AnIntegerADoubleDoesNotHoldFailsCompile) {
  struct Case {
    const char* schema;
    const char* number;
    const char* pointer;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}})",
            "9007199254740993", "#/properties/n/maximum"},
           {R"({"properties":{"e":{"enum":[1,10000000000000001]}}})", "10000000000000001",
            "#/properties/e/enum/1"},
           {R"({"const":9223372036854775807})", "9223372036854775807", "#/const"},
           {R"({"properties":{"n":{"minimum":-9007199254740993}}})", "9007199254740993",
            "#/properties/n/minimum"},
           {R"({"properties":{"n":{"multipleOf":9007199254740995}}})", "9007199254740995",
            "#/properties/n/multipleOf"},
           {R"({"properties":{"n":{"default":18446744073709551615}}})", "18446744073709551615",
            "#/properties/n/default"},
           {R"({"examples":[{"id":100000000000000000000000}]})", "100000000000000000000000",
            "#/examples/0/id"},
           {R"({"definitions":{"x":{"const":{"a/b":[0,9007199254740995]}}}})", "9007199254740995",
            "#/definitions/x/const/a~1b/1"},
       }) {
    Result<ArgumentSchema> compiled = CompileArgumentSchema(c.schema);
    ASSERT_FALSE(compiled.ok()) << c.schema;
    EXPECT_EQ(compiled.status().code(), Code::kUnsupported) << compiled.status().ToString();
    const std::string& message = compiled.status().message();
    EXPECT_NE(message.find(c.pointer), std::string::npos) << message;
    EXPECT_NE(message.find("double"), std::string::npos) << message;
    EXPECT_EQ(message.find(c.number), std::string::npos) << message;
  }
  // Why: the signed schema and the served one have one digest.
  EXPECT_EQ(CanonicalizeJson(R"({"enum":[10000000000000001]})").value(),
            CanonicalizeJson(R"({"enum":[10000000000000000]})").value());

  // Numbers a double holds exactly, and fractions and exponents (read as their double by
  // the digest and the validator alike), compile.
  for (const char* number :
       {"9007199254740992", "10000000000000000", "9223372036854775808", "-9223372036854775808",
        "18446744073709549568", "18446744073709551616", "99999999999999991611392", "0.1", "1.50",
        "-0.0", "-0", "1e16", "10000000000000001.0", "9007199254740993e0", "0.10000000000000001",
        "1e-400"}) {
    const std::string schema = std::string(R"({"properties":{"n":{"maximum":)") + number +
                               R"(,"enum":[)" + number + R"(],"default":)" + number + "}}}";
    EXPECT_TRUE(CompileArgumentSchema(schema).ok()) << schema;
  }
  // Beyond a double's range: not strict JSON at all.
  for (const std::string& number : {std::string("1e400"), std::string("-1e400"), "1" + std::string(400, '0')}) {
    Result<ArgumentSchema> compiled = CompileArgumentSchema(R"({"maximum":)" + number + "}");
    EXPECT_FALSE(compiled.ok()) << number;
  }
}

// valijson accepts any divisor and divides by it: multipleOf 0 (or -1 with the smallest
// int64) stopped the process with SIGFPE. JSON Schema requires a number above 0.
// A number whose text holds more than its double: the validator compares the double, the
// tool gets the text. Where a keyword compares that number such a call is refused as not
// checked (never misread); elsewhere it passes, and "0.1", "1.50" or "-0.0" never count.
TEST(ArgumentSchema, NumbersBeyondADoublesPrecisionAreRefusedWhereNumbersAreCompared) {
  for (bool fast_accept : {true, false}) {
    ArgumentSchemaLimits limits;
    limits.fast_accept = fast_accept;
    auto compile = [&](const std::string& schema) {
      auto compiled = CompileArgumentSchema(schema, limits);
      EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
      return std::move(compiled).value();
    };
    const ArgumentSchema bounded =
        compile(R"({"type":"object","properties":{"m":{"type":"number","maximum":10}}})");
    for (const char* args : {R"({"m":10.0000000000000001})", R"({"m":1e-400})",
                             R"({"m":9007199254740992.5})"}) {
      Verdict v = ValidateArguments(bounded, args);
      ASSERT_FALSE(v.ok()) << args;
      EXPECT_EQ(v.reason(), Reason::kArgumentsSchemaViolation) << v.ToString();
      EXPECT_NE(v.detail().find("not checked"), std::string::npos) << v.detail();
      EXPECT_NE(v.detail().find("\"/m\" cannot be checked against maximum (a number a double does not hold as written"),
                std::string::npos)
          << v.detail();
    }
    // Probe BN1: a number below a schema's minimum was said to fail its maximum, the first
    // bound found; every bound it could not be compared with is named.
    const ArgumentSchema between = compile(
        R"({"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":100}}})");
    for (const char* args : {R"({"limit":-9223372036854775809})", R"({"limit":1e-400})",
                             R"({"limit":18446744073709551615})"}) {
      Verdict v = ValidateArguments(between, args);
      ASSERT_FALSE(v.ok()) << args;
      EXPECT_NE(v.detail().find("\"/limit\" cannot be checked against maximum, minimum ("), std::string::npos)
          << v.detail();
    }
    for (const char* args : {R"({"m":10.0})", R"({"m":0.1})", R"({"m":1.50})", R"({"m":-0.0})",
                             R"({"m":1e1})", R"({"m":100e-2})"}) {
      EXPECT_TRUE(ValidateArguments(bounded, args).ok()) << args;
    }
    const ArgumentSchema nested = compile(
        R"({"type":"object","properties":{"a":{"type":"array","items":{"const":2}}}})");
    Verdict v = ValidateArguments(nested, R"({"a":[2,2.0000000000000001]})");
    EXPECT_NE(v.detail().find("\"/a/1\" cannot be checked against const"), std::string::npos) << v.ToString();
    // Probe BP5: a structured value names every whole-value keyword it cannot be checked against.
    const ArgumentSchema both = compile(
        R"({"type":"object","properties":{"o":{"type":"array","enum":[[1,2]],"const":[1,2]}}})");
    v = ValidateArguments(both, R"({"o":[1,2.0000000000000000001]})");
    EXPECT_NE(v.detail().find("\"/o\" cannot be checked against enum, const ("), std::string::npos)
        << v.ToString();
    // An integer beyond 64 bits that its double does not hold exactly, although the
    // double's shortest form (1e+23) names the same digits.
    const ArgumentSchema constant = compile(
        R"({"type":"object","properties":{"v":{"const":99999999999999991611392}}})");
    v = ValidateArguments(constant, R"({"v":100000000000000000000000})");
    EXPECT_NE(v.detail().find("\"/v\" cannot be checked against const"), std::string::npos) << v.ToString();
    EXPECT_TRUE(ValidateArguments(bounded, R"({"m":-18446744073709551616})").ok())
        << "2^64 is a double exactly";
    // Nothing compares that number: the text reaches the tool as written, even where other
    // properties have bounds.
    const ArgumentSchema typed = compile(
        R"({"type":"object","properties":{"m":{"type":"number"},"n":{"maximum":3},"o":{}}})");
    EXPECT_TRUE(ValidateArguments(typed, R"({"m":10.0000000000000001,"n":2})").ok());
    EXPECT_TRUE(ValidateArguments(typed, R"({"o":{"deep":[100000000000000000000000]}})").ok());
  }
}

// Probe AC5: a tool's arguments are one JSON object, and MCP clients (the official SDK
// refuses the whole tools/list otherwise) read its inputSchema as an object schema. A root
// that admits no object fails compile for a tool; CompileArgumentSchema takes any schema.
TEST(ArgumentSchema, AToolInputSchemaMustAdmitObjects) {
  for (const char* admits : {R"({"type":"object"})", R"({"properties":{"a":{"type":"string"}}})", R"({})",
                             R"({"type":["object","null"]})"}) {
    EXPECT_TRUE(CompileToolInputSchema(admits).ok()) << admits;
  }
  for (const char* refused : {R"({"type":"string"})", R"({"type":["array","null"]})", R"(false)", R"(true)",
                              R"({"type":"integer","minimum":1})"}) {
    Result<ArgumentSchema> s = CompileToolInputSchema(refused);
    ASSERT_FALSE(s.ok()) << refused;
    EXPECT_EQ(s.status().code(), Code::kUnsupported) << s.status().ToString();
    EXPECT_NE(s.status().message().find("\"type\": \"object\""), std::string::npos) << s.status().ToString();
    EXPECT_TRUE(CompileArgumentSchema(refused).ok()) << refused;
  }
}

// Probe BY1: the bound per value let the values of one call multiply it: 1,000 items (2 KB)
// against a ten-level oneOf chain (5,117 evaluations each) held the loop for 18 s. A call
// whose values and member names times the schema's cost per value exceed
// max_call_evaluations is refused before the validator runs, and ValidationCostBound
// tells a caller that from the text alone.
TEST(ArgumentSchema, ACallWhoseValuesMultiplyTheSchemasCostBeyondTheBoundIsRefused) {
  std::string definitions;
  for (int i = 0; i < 10; ++i) {
    const std::string next = "{\"$ref\":\"#/definitions/d" + std::to_string(i + 1) + "\"}";
    definitions += "\"d" + std::to_string(i) + "\":{\"oneOf\":[" + next + ",{\"allOf\":[" + next + "]}]},";
  }
  definitions += "\"d10\":{\"type\":\"string\"}";
  const ArgumentSchema chain = Compile(
      R"({"type":"object","properties":{"v":{"type":"array","items":{"$ref":"#/definitions/d0"}}},)"
      R"("definitions":{)" + definitions + "}}");
  std::string items;
  for (int i = 0; i < 1000; ++i) items += (i == 0 ? "0" : ",0");
  const std::string many = R"({"v":[)" + items + "]}";
  EXPECT_GE(ValidationCostBound(chain, many), 1000u * 5117u);
  const Verdict refused = ValidateArguments(chain, many);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.reason(), Reason::kArgumentsSchemaViolation);
  EXPECT_NE(refused.detail().find("values and member names, each checked by up to 5117 subschema "
                                  "evaluations and enum comparisons of this tool's schema: more "
                                  "than the 2000000 one call may cost"),
            std::string::npos)
      << refused.ToString();

  // An enum compares a value with each entry (probe CC1: 63 KB against 36,000 entries held
  // the loop for 9 s); a uniqueItems compares each item with the others.
  std::string entries;
  for (int i = 0; i < 10000; ++i) entries += (i == 0 ? "" : ",") + std::to_string(i);
  const ArgumentSchema large_enum = Compile(
      R"({"type":"object","properties":{"v":{"type":"array","items":{"enum":[)" + entries + "]}}}}");
  EXPECT_TRUE(ValidateArguments(large_enum, R"({"v":[1,2,3]})").ok());
  std::string values;
  for (int i = 0; i < 5000; ++i) values += (i == 0 ? "7" : ",7");
  EXPECT_EQ(ValidateArguments(large_enum, R"({"v":[)" + values + "]}").reason(),
            Reason::kArgumentsSchemaViolation);
  const ArgumentSchema unique = Compile(
      R"({"type":"object","properties":{"v":{"type":"array","uniqueItems":true}}})");
  const ArgumentSchema plain = Compile(R"({"type":"object","properties":{"v":{"type":"array"}}})");
  EXPECT_EQ(ValidationCostBound(unique, R"({"v":[1,2]})"),
            512 * ValidationCostBound(plain, R"({"v":[1,2]})"));
  // Probe GL1: 512 near-equal items of 900 numbers each (within the byte limit and the
  // uniqueItems bound) held the check for seconds; each item may be compared with every
  // other at up to its size. 512 short strings stay well within the bound.
  std::string long_item;
  for (int i = 0; i < 900; ++i) long_item += "0,";
  std::string near_equal;
  for (int i = 0; i < 512; ++i) near_equal += (i == 0 ? "[" : ",[") + long_item + std::to_string(i) + "]";
  const Verdict comparisons = ValidateArguments(unique, R"({"v":[)" + near_equal + "]}");
  EXPECT_EQ(comparisons.reason(), Reason::kArgumentsSchemaViolation) << comparisons.ToString();
  EXPECT_NE(comparisons.detail().find("uniqueItems value comparisons"), std::string::npos)
      << comparisons.ToString();
  EXPECT_TRUE(ValidateArguments(plain, R"({"v":[)" + near_equal + "]}").ok());
  std::string strings;
  for (int i = 0; i < 512; ++i) strings += (i == 0 ? "\"s" : ",\"s") + std::to_string(i) + "\"";
  EXPECT_TRUE(ValidateArguments(unique, R"({"v":[)" + strings + "]}").ok());
  // Probe GM1: only arrays a uniqueItems applies to count; a large array beside a short
  // unique one is no costlier than without it. And an array over the 512-item bound is
  // named by that bound, not the cost (GM4).
  const ArgumentSchema tags = Compile(
      R"({"type":"object","properties":{"tags":{"type":"array","uniqueItems":true}}})");
  std::string data;
  for (int i = 0; i < 4000; ++i) data += (i == 0 ? "" : ",") + std::to_string(i);
  EXPECT_TRUE(ValidateArguments(tags, R"({"tags":["x","y"],"data":[)" + data + "]}").ok());
  const Verdict long_tags = ValidateArguments(tags, R"({"tags":[)" + data + "]}");
  EXPECT_NE(long_tags.detail().find("an array longer than the 512-item bound for uniqueItems"),
            std::string::npos)
      << long_tags.ToString();

  // The bound counts every value and member name of the call.
  ArgumentSchemaLimits limits;
  limits.max_call_evaluations = 20;
  Result<ArgumentSchema> simple = CompileArgumentSchema(
      R"({"type":"object","properties":{"v":{"type":"array","items":{"type":"integer"}}}})", limits);
  ASSERT_TRUE(simple.ok()) << simple.status().ToString();
  EXPECT_TRUE(ValidateArguments(*simple, R"({"v":[1,2,3]})").ok());
  EXPECT_EQ(ValidateArguments(*simple, R"({"v":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]})")
                .reason(),
            Reason::kArgumentsSchemaViolation);
  EXPECT_LT(ValidationCostBound(*simple, R"({"v":[1,2,3]})"), ValidationCostBound(*simple, many));
}

// Probe AC2: valijson evaluates a shared subschema once per path to it, so 1.6 KiB of
// oneOf chains over shared $refs made one check of {"x":1} take 8.4 s (17 levels; twice as
// long per level more). A schema whose worst-case count of subschema evaluations of one
// value is over the budget fails compile (trust/schema_cost_internal.h).
TEST(ArgumentSchema, ASchemaWhoseValidationCouldTakeExponentialTimeFailsCompile) {
  auto chain = [](int levels) {
    std::string definitions;
    for (int i = 0; i < levels; ++i) {
      const std::string next = "{\"$ref\":\"#/definitions/d" + std::to_string(i + 1) + "\"}";
      definitions += "\"d" + std::to_string(i) + "\":{\"oneOf\":[" + next + ",{\"allOf\":[" + next + "]}]},";
    }
    definitions += "\"d" + std::to_string(levels) + "\":{\"type\":\"string\"}";
    return R"({"type":"object","properties":{"x":{"$ref":"#/definitions/d0"}},"definitions":{)" + definitions + "}}";
  };
  for (int levels : {16, 30}) {
    Result<ArgumentSchema> refused = CompileArgumentSchema(chain(levels));
    ASSERT_FALSE(refused.ok()) << levels;
    EXPECT_EQ(refused.status().code(), Code::kUnsupported) << refused.status().ToString();
    EXPECT_NE(refused.status().message().find("the schema's validation could take exponential time: "),
              std::string::npos)
        << refused.status().ToString();
    EXPECT_NE(refused.status().message().find("subschema evaluations of one argument value, at most 10000"),
              std::string::npos)
        << refused.status().ToString();
  }
  // Eight levels stay within the budget, and are checked at once.
  const auto start = std::chrono::steady_clock::now();
  ExpectViolation(Compile(chain(8)), R"({"x":1})", "/x", "oneOf");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  // An applicator cycle that never descends would never end.
  for (const char* cycle : {R"({"allOf":[{"$ref":"#"}]})", R"({"definitions":{"a":{"anyOf":[{"$ref":"#/definitions/b"}]},
                              "b":{"not":{"$ref":"#/definitions/a"}}},"properties":{"p":{"$ref":"#/definitions/a"}}})"}) {
    Result<ArgumentSchema> refused = CompileArgumentSchema(cycle);
    ASSERT_FALSE(refused.ok()) << cycle;
    EXPECT_NE(refused.status().message().find("unbounded"), std::string::npos) << refused.status().ToString();
  }
  // Recursion that descends costs per level what one level costs: trees and any-JSON
  // values compile, however deep an argument may nest.
  for (const char* recursive :
       {R"({"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}}})",
        R"({"type":"object","additionalProperties":{"$ref":"#/definitions/value"},"definitions":{"value":{"anyOf":[
            {"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"null"},
            {"type":"array","items":{"$ref":"#/definitions/value"}},
            {"type":"object","additionalProperties":{"$ref":"#/definitions/value"}}]}}})",
        // Unions whose branches descend through members of different names: a value meets
        // one branch's member only (probe AD4: counted as 2^depth and refused).
        R"({"type":"object","properties":{"x":{"$ref":"#/$defs/e"}},"$defs":{"e":{"anyOf":[
            {"type":"object","properties":{"l":{"$ref":"#/$defs/e"}}},
            {"type":"object","properties":{"r":{"$ref":"#/$defs/e"}}}]}}})",
        R"({"type":"object","properties":{"filter":{"$ref":"#/$defs/f"}},"$defs":{"f":{"anyOf":[
            {"type":"object","properties":{"and":{"type":"array","items":{"$ref":"#/$defs/f"}}},"required":["and"]},
            {"type":"object","properties":{"or":{"type":"array","items":{"$ref":"#/$defs/f"}}},"required":["or"]},
            {"type":"object","properties":{"not":{"$ref":"#/$defs/f"}},"required":["not"]},
            {"type":"object","properties":{"field":{"type":"string"},"value":{}},"required":["field"]}]}}})"}) {
    Result<ArgumentSchema> compiled = CompileArgumentSchema(recursive);
    EXPECT_TRUE(compiled.ok()) << recursive << "\n" << compiled.status().ToString();
  }
  // Branches that descend through the same member do add up, at every level: a value 64
  // members deep meets 2^64 paths.
  Result<ArgumentSchema> doubling = CompileArgumentSchema(
      R"({"$defs":{"e":{"anyOf":[{"properties":{"a":{"$ref":"#/$defs/e"}}},{"properties":{"a":{"$ref":"#/$defs/e"}}}]}},
          "properties":{"x":{"$ref":"#/$defs/e"}}})");
  ASSERT_FALSE(doubling.ok());
  EXPECT_NE(doubling.status().message().find("more than 10^18 (growing with every level of nesting)"),
            std::string::npos)
      << doubling.status().ToString();
}

TEST(ArgumentSchema, MultipleOfMustBePositive) {
  for (const char* divisor : {"0", "-1", "-0.5", "0.0", "\"2\"", "null"}) {
    const std::string schema = std::string(R"({"properties":{"n":{"multipleOf":)") + divisor + "}}}";
    Result<ArgumentSchema> s = CompileArgumentSchema(schema);
    ASSERT_FALSE(s.ok()) << schema;
    EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status().ToString();
    EXPECT_NE(s.status().message().find("multipleOf is not a number greater than 0"), std::string::npos)
        << s.status().ToString();
  }
  EXPECT_TRUE(ValidateArguments(Compile(R"({"properties":{"n":{"multipleOf":0.5}}})"), R"({"n":1.5})").ok());
}

TEST(ArgumentSchemaSuite, Draft7) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(kSuiteDir)) {
    GTEST_SKIP() << "JSON Schema Test Suite not installed (" << kSuiteDir
                 << "); apt-get install json-schema-test-suite";
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kSuiteDir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  int passed = 0, failed = 0, deviations = 0, unsupported_cases = 0, unsupported_tests = 0,
      skipped_files = 0;
  std::ostringstream report;
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    if (auto it = SkippedFiles().find(name); it != SkippedFiles().end()) {
      ++skipped_files;
      report << "  skipped file " << name << ": " << it->second << "\n";
      continue;
    }
    std::ifstream in(file);
    nlohmann::json cases = nlohmann::json::parse(in);
    for (const auto& c : cases) {
      const std::string case_name = c["description"].get<std::string>();
      Result<ArgumentSchema> schema = CompileArgumentSchema(c["schema"].dump());
      if (!schema.ok()) {
        if (schema.status().code() == Code::kUnsupported) {
          ++unsupported_cases;
          unsupported_tests += static_cast<int>(c["tests"].size());
          report << "  unsupported " << name << " / " << case_name << ": " << schema.status().message() << "\n";
        } else {
          failed += static_cast<int>(c["tests"].size());
          ADD_FAILURE() << name << " / " << case_name << ": compile failed: " << schema.status().ToString();
        }
        continue;
      }
      for (const auto& t : c["tests"]) {
        const std::string key = name + " / " + case_name + " / " + t["description"].get<std::string>();
        const bool want = t["valid"].get<bool>();
        Verdict v = ValidateInstance(*schema, t["data"].dump());
        if (v.ok() == want) {
          ++passed;
        } else if (KnownDeviations().contains(key)) {
          ++deviations;
          report << "  known deviation " << key << ": " << KnownDeviations().at(key) << "\n";
        } else {
          ++failed;
          ADD_FAILURE() << key << ": want " << (want ? "valid" : "invalid") << ", got " << v.ToString();
        }
      }
    }
  }
  std::cout << "JSON Schema Test Suite draft7: " << passed << " passed, " << failed << " failed, "
            << deviations << " known deviations, " << unsupported_tests << " tests in " << unsupported_cases
            << " cases refused at compile as unsupported, " << skipped_files << " files skipped\n"
            << report.str();
  RecordProperty("passed", passed);
  RecordProperty("failed", failed);
  EXPECT_GT(passed, 0);
}

}  // namespace
}  // namespace las::trust
