// The flat fast path (trust/flat_argument_check_internal.h) held to the full path (strict
// tree + valijson): it may accept only what the full path accepts, and on plain instances
// it decides exactly as the full path does.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "trust/argument_schema.h"
#include "trust/flat_argument_check_internal.h"

namespace las::trust {
namespace {

using internal::FlatArgumentCheck;
using internal::Json;

std::optional<FlatArgumentCheck> FlatFor(const std::string& schema, bool draft04 = false) {
  return FlatArgumentCheck::For(Json::parse(schema), !draft04, StrictJsonLimits{1024 * 1024, 64});
}

ArgumentSchema FullPath(const std::string& schema) {
  ArgumentSchemaLimits limits;
  limits.fast_accept = false;
  Result<ArgumentSchema> compiled = CompileArgumentSchema(schema, limits);
  EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
  if (!compiled.ok()) std::abort();
  return std::move(compiled).value();
}

const std::string kCas =
    R"({"type":"object","properties":{)"
    R"("scope":{"type":"string","enum":["private","blackboard"],"description":"where"},)"
    R"("key":{"type":"string","minLength":1,"maxLength":8},)"
    R"("value":{"description":"any JSON value"},)"
    R"("expected_version":{"type":"integer","minimum":0,"maximum":100}},)"
    R"("required":["key","expected_version"],"additionalProperties":false})";

// Flat schemas of several shapes; the last one is draft-04.
const std::vector<std::string>& FlatSchemas() {
  static const std::vector<std::string> schemas = {
      kCas,
      R"({"$schema":"http://json-schema.org/draft-07/schema#","type":"object",)"
      R"("properties":{"message":{"type":"string","description":"Message to echo"}},)"
      R"("required":["message"],"additionalProperties":false})",
      R"({"properties":{"ratio":{"type":"number","minimum":0.5,"maximum":99.5},)"
      R"("label":{"type":["string","null"],"maxLength":3},"flag":{"type":"boolean"},)"
      R"("mode":{"enum":["a","b"]},"list":{"type":"array"},"map":{"type":"object"},"any":true}})",
      R"({"type":"object","properties":{"n":{"type":"integer","minimum":-5,"maximum":5},)"
      R"("s":{"type":"string","minLength":2}},"required":["n"]})",
      R"({"$schema":"http://json-schema.org/draft-04/schema#","type":"object",)"
      R"("properties":{"n":{"type":"integer"},"x":{"type":"number","maximum":10}},)"
      R"("additionalProperties":false})",
  };
  return schemas;
}

TEST(FlatArgumentCheck, FlatSchemasAreRecognized) {
  for (size_t i = 0; i < FlatSchemas().size(); ++i) {
    EXPECT_TRUE(FlatFor(FlatSchemas()[i], i + 1 == FlatSchemas().size())) << FlatSchemas()[i];
  }
  EXPECT_TRUE(FlatFor("{}"));
  EXPECT_TRUE(FlatFor(R"({"type":["object","null"],"title":"t","$comment":"c"})"));
}

TEST(FlatArgumentCheck, AnythingElseIsLeftToTheFullPath) {
  for (const char* schema : {
           R"(true)",
           R"({"type":"string"})",
           R"({"properties":{"a":{"type":"object","properties":{"b":{"type":"integer"}}}}})",
           R"({"properties":{"a":{"$ref":"#/definitions/x"}},"definitions":{"x":{}}})",
           R"({"properties":{"a":{"type":"string","pattern":"^a"}}})",
           R"({"properties":{"a":{"type":"string","format":"date"}}})",
           R"({"properties":{"a":{"const":1}}})",
           R"({"properties":{"a":{"type":"number","exclusiveMinimum":0}}})",
           R"({"properties":{"a":{"enum":["x",1]}}})",
           R"({"properties":{"a":{"type":"string","maxLength":3.0}}})",
           R"({"properties":{"a":{"type":"integer","maximum":18446744073709549568}}})",
           R"({"properties":{"a":false}})",
           R"({"properties":{"a":{"type":"strin"}}})",
           R"({"properties":{"a":{}},"additionalProperties":{"type":"string"}})",
           R"({"properties":{"a":{}},"required":["b"]})",
           R"({"patternProperties":{"^a":{}}})",
           R"({"properties":{"a":{}},"minProperties":1})",
           R"({"allOf":[{"properties":{"a":{}}}]})",
       }) {
    EXPECT_FALSE(FlatFor(schema)) << schema;
  }
}

TEST(FlatArgumentCheck, DecidesTheUsualCasesAsTheFullPathDoes) {
  auto check = FlatFor(kCas);
  ASSERT_TRUE(check);
  ArgumentSchema full = FullPath(kCas);
  struct Case {
    const char* arguments;
    bool valid;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"key":"k","expected_version":0})", true},
           {R"({"scope":"blackboard","key":"k","expected_version":7,"value":{"a":[1,{"b":null}]}})",
            true},
           {R"({"key":"k","expected_version":7.0})", true},  // draft-07: 7.0 is an integer
           {R"({"key":"k"})", false},                        // required
           {R"({"key":"","expected_version":1})", false},    // minLength
           {R"({"key":"日本語日本語日本","expected_version":1})", true},  // 8 code points
           {R"({"key":"日本語日本語日本語","expected_version":1})", false},
           {R"({"key":"k","expected_version":101})", false},                 // maximum
           {R"({"key":"k","expected_version":-1})", false},                  // minimum
           {R"({"key":"k","expected_version":7.5})", false},                 // not an integer
           {R"({"key":"k","expected_version":"7"})", false},                 // type
           {R"({"key":"k","expected_version":1,"scope":"shared"})", false},  // enum
           {R"({"key":"k","expected_version":1,"other":1})", false},         // additionalProperties
           {R"({"key":"k","expected_version":1,"key":"j"})", false},         // duplicate key
           {R"({"key":"k","expected_version":1,"value":{"a":1,"a":2}})",
            false},                                                        // nested duplicate
           {R"({"key":"k","expected_version":1,"value":1e999})", false},   // not finite
           {R"({"key":"k","expected_version":1} x)", false},               // trailing text
           {R"([{"key":"k","expected_version":1}])", false},               // not an object
           {"\xEF\xBB\xBF{\"key\":\"k\",\"expected_version\":1}", false},  // byte-order mark
           {"{\"key\":\"\xC0\xAF\",\"expected_version\":1}", false},       // invalid UTF-8
       }) {
    const bool full_ok = ValidateArguments(full, c.arguments).ok();
    EXPECT_EQ(full_ok, c.valid) << c.arguments;
    EXPECT_EQ(check->Accepts(c.arguments), c.valid) << c.arguments;
  }
}

TEST(FlatArgumentCheck, LeavesWhatItCannotDecideExactlyToTheFullPath) {
  auto check = FlatFor(kCas);
  ASSERT_TRUE(check);
  ArgumentSchema full = FullPath(kCas);
  // Valid, but not decided here: a NUL under a length bound, an integer beyond 2^53 under
  // a numeric bound (the full path decides both).
  const std::string nul = R"({"key":"a\u0000b","expected_version":1})";
  EXPECT_TRUE(ValidateArguments(full, nul).ok());
  EXPECT_FALSE(check->Accepts(nul));
  auto wide = FlatFor(R"({"properties":{"n":{"type":"integer","minimum":0}}})");
  ArgumentSchema wide_full = FullPath(R"({"properties":{"n":{"type":"integer","minimum":0}}})");
  const std::string big = R"({"n":9007199254740993})";
  EXPECT_TRUE(ValidateArguments(wide_full, big).ok());
  EXPECT_FALSE(wide->Accepts(big));
  EXPECT_FALSE(check->Accepts(""));  // no arguments: the full path reads it as {}
  // A raw NUL after the object (found by fuzzing): nlohmann's lexer stops there, so only
  // the full path, which refuses it, may decide.
  const std::string trailing_nul("{}\0{}", 5);
  EXPECT_FALSE(check->Accepts(trailing_nul));
  EXPECT_EQ(ValidateArguments(full, trailing_nul).reason(), Reason::kArgumentsInvalid);
}

TEST(FlatArgumentCheck, DraftFourIntegersAreIntegerTokens) {
  const std::string schema =
      R"({"$schema":"http://json-schema.org/draft-04/schema#","properties":{"n":{"type":"integer"}}})";
  auto draft04 = FlatFor(schema, /*draft04=*/true);
  ASSERT_TRUE(draft04);
  EXPECT_TRUE(draft04->Accepts(R"({"n":1})"));
  EXPECT_FALSE(draft04->Accepts(R"({"n":1.0})"));
  EXPECT_FALSE(ValidateArguments(FullPath(schema), R"({"n":1.0})").ok());
}

TEST(FlatArgumentCheck, DepthAndSizeAreBoundedAndManyKeysAreNotQuadratic) {
  auto tight = FlatArgumentCheck::For(Json::parse(R"({"properties":{"v":{}}})"), true,
                                      StrictJsonLimits{200, 3});
  ASSERT_TRUE(tight);
  EXPECT_TRUE(tight->Accepts(R"({"v":[[1]]})"));
  EXPECT_FALSE(tight->Accepts(R"({"v":[[[1]]]})"));
  EXPECT_FALSE(tight->Accepts(R"({"v":")" + std::string(200, 'x') + "\"}"));

  // 50,000 distinct keys, then one repeated: refused (the hash set finds it).
  auto open = FlatFor(R"({"properties":{"v":{}}})");
  std::string many = R"({"v":{)";
  for (int i = 0; i < 50000; ++i) many += "\"k" + std::to_string(i) + "\":1,";
  EXPECT_TRUE(open->Accepts(many.substr(0, many.size() - 1) + "}}"));
  EXPECT_FALSE(open->Accepts(many + "\"k123\":2}}"));
}

// ---------------------------------------------------------------------------------------
// Generated instances: every value kind at the edges of the schemas' bounds.

std::vector<std::string> PlainValues() {
  return {"null", "true", "false", "0", "-0", "1", "-1", "5", "6", "-5", "-6", "7", "100", "101",
          "1.0", "-0.0", "0.5", "0.49", "99.5", "99.51", "7.25", "1e2", "1E+2", "12345678901",
          "9007199254740992", "-9007199254740992", "\"\"", "\"a\"", "\"ab\"", "\"abc\"",
          "\"abcd\"", "\"\\u00e9\\u00e9\"", "\"日本\"", "\"😀😀😀\"", "\"😀😀😀😀\"", "\"private\"",
          "\"blackboard\"", "\"a\"", "\"b\"", "\"c\"", "\"12345678\"", "\"123456789\"",
          "\"tab\\there\"", "[]", "[1,\"x\",null]", "{}", "{\"n\":{\"m\":[true]}}"};
}

// Instances that are valid but left to the full path, or broken: soundness only.
std::vector<std::string> EdgeValues() {
  return {"\"a\\u0000b\"", "9007199254740993", "18446744073709551615", "-9223372036854775808",
          "1e400", "{\"a\":1,\"a\":2}", "[[[[[[[[1]]]]]]]]", "\"\xED\xA0\x80\"", "\"\\ud800\"",
          "01", "[1,]", "NaN"};
}

std::vector<std::string> KeysOf(const std::string& schema) {
  std::vector<std::string> keys = {"extra"};
  const Json properties = Json::parse(schema).value("properties", Json::object());
  for (const auto& [name, _] : properties.items()) {
    keys.push_back(name);
  }
  return keys;
}

std::string RandomObject(std::mt19937& rng, const std::vector<std::string>& keys,
                         const std::vector<std::string>& values) {
  std::string out = "{";
  const int members = std::uniform_int_distribution<int>(0, 5)(rng);
  std::vector<std::string> used;
  for (int i = 0; i < members; ++i) {
    const std::string& key = keys[rng() % keys.size()];
    if (std::find(used.begin(), used.end(), key) != used.end()) continue;  // plain: no duplicates
    used.push_back(key);
    if (out.size() > 1) out += ",";
    out += "\"" + key + "\":" + values[rng() % values.size()];
  }
  return out + "}";
}

TEST(FlatArgumentCheck, GeneratedInstancesAgreeWithTheFullPath) {
  std::mt19937 rng(20261130);
  const std::vector<std::string> plain = PlainValues();
  std::vector<std::string> edge = plain;
  for (const std::string& v : EdgeValues()) edge.push_back(v);
  int accepted = 0, refused = 0;
  for (size_t i = 0; i < FlatSchemas().size(); ++i) {
    const std::string& schema = FlatSchemas()[i];
    auto check = FlatFor(schema, i + 1 == FlatSchemas().size());
    ASSERT_TRUE(check);
    ArgumentSchema full = FullPath(schema);
    Result<ArgumentSchema> served = CompileArgumentSchema(schema);
    ASSERT_TRUE(served.ok());
    const std::vector<std::string> keys = KeysOf(schema);
    for (int n = 0; n < 4000; ++n) {
      const bool plain_instance = n % 2 == 0;
      const std::string arguments = RandomObject(rng, keys, plain_instance ? plain : edge);
      const Verdict expected = ValidateArguments(full, arguments);
      const bool fast = check->Accepts(arguments);
      if (fast) {
        EXPECT_TRUE(expected.ok())
            << schema << "\n  accepted, but the full path refuses: " << arguments << "\n  "
            << expected.ToString();
      }
      if (plain_instance) {
        EXPECT_EQ(fast, expected.ok()) << schema << "\n  " << arguments;
      }
      // As served (fast path first), the verdict is the full path's, detail included.
      EXPECT_EQ(ValidateArguments(*served, arguments).ToString(), expected.ToString()) << arguments;
      (fast ? accepted : refused)++;
    }
  }
  std::cout << "flat fast path: " << accepted << " generated instances accepted, " << refused
            << " left to the full path\n";
  EXPECT_GT(accepted, 2000);
  EXPECT_GT(refused, 2000);
}

// Valid arguments with random bytes flipped, inserted or removed (broken strings, escapes,
// numbers, brackets, UTF-8): never accepted unless the full path accepts them too.
TEST(FlatArgumentCheck, MutatedTextIsNeverWronglyAccepted) {
  std::mt19937 rng(7);
  const std::string seeds[] = {
      R"({"scope":"blackboard","key":"k\u00e9y","expected_version":41,)"
      R"("value":{"n":[1,2.5,"x"]}})",
      R"({"key":"日本","expected_version":0,"value_json":"{\"a\":null}"})",
  };
  const std::string alphabet = "{}[]\",:\\u0-9eE.+-tfnl \x01\x7f\xc3\xa9\xed\xa0\x80";
  auto check = FlatFor(kCas);
  ASSERT_TRUE(check);
  ArgumentSchema full = FullPath(kCas);
  int accepted = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string text = seeds[n % 2];
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
      const size_t at = rng() % text.size();
      const char byte = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: text[at] = byte; break;
        case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), byte); break;
        default: text.erase(at, 1); break;
      }
    }
    if (!check->Accepts(text)) continue;
    ++accepted;
    EXPECT_TRUE(ValidateArguments(full, text).ok())
        << "accepted, but the full path refuses: " << text;
  }
  std::cout << "mutated arguments accepted by the fast path (all checked): " << accepted << "\n";
  EXPECT_GT(accepted, 100);  // mutations that keep the text valid exercise the accept side
}

// The JSON Schema Test Suite (Debian package json-schema-test-suite): every case whose
// schema is flat, every test whose data is an object.
TEST(FlatArgumentCheck, SuiteInstancesAgreeWithTheFullPath) {
  namespace fs = std::filesystem;
  const fs::path root = "/usr/share/json-schema-test-suite/tests";
  if (!fs::is_directory(root)) {
    GTEST_SKIP() << "JSON Schema Test Suite not installed (" << root
                 << "); apt-get install json-schema-test-suite";
  }
  int compared = 0, accepted = 0;
  for (const char* draft : {"draft4", "draft6", "draft7"}) {
    for (const auto& entry : fs::directory_iterator(root / draft)) {
      if (entry.path().extension() != ".json") continue;
      std::ifstream in(entry.path());
      for (const Json& c : Json::parse(in)) {
        const bool draft04 = std::string(draft) == "draft4";
        Json with_dialect = c["schema"];
        if (draft04 && with_dialect.is_object() && !with_dialect.contains("$schema")) {
          with_dialect["$schema"] = "http://json-schema.org/draft-04/schema#";
        }
        const std::string schema = with_dialect.dump();
        auto check = FlatFor(schema, draft04);
        if (!check) continue;
        ArgumentSchemaLimits limits;
        limits.fast_accept = false;
        Result<ArgumentSchema> full = CompileArgumentSchema(schema, limits);
        if (!full.ok()) continue;  // refused at compile (kUnsupported): never served
        for (const Json& t : c["tests"]) {
          if (!t["data"].is_object()) continue;
          const std::string data = t["data"].dump();
          const bool full_ok = ValidateArguments(*full, data).ok();
          const bool fast = check->Accepts(data);
          ++compared;
          accepted += fast;
          EXPECT_TRUE(!fast || full_ok)
              << entry.path() << " / " << c["description"] << " / " << t["description"];
          EXPECT_EQ(full_ok, t["valid"].get<bool>())
              << entry.path() << " / " << c["description"] << " / " << t["description"];
        }
      }
    }
  }
  std::cout << "JSON Schema Test Suite: " << compared
            << " object instances of flat schemas compared, " << accepted
            << " accepted by the fast path\n";
  EXPECT_GT(compared, 50);
  EXPECT_GT(accepted, 10);
}

}  // namespace
}  // namespace las::trust
