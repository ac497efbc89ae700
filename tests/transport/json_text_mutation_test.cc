// Transport's JSON scanner (json_text.h) and JSON-RPC parser (jsonrpc.h) read what clients
// and children send, byte by byte, by hand. Here they are compared with nlohmann's parser
// on randomly mutated texts: the same verdict on well-formedness, the same decoded
// strings, and every raw piece ParseMessage hands out is itself one JSON value. Under the
// ASan+UBSan preset the same runs also check for out-of-bounds reads.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "transport/json_text.h"
#include "transport/jsonrpc.h"

namespace las::transport {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxDepth = 16;

// Valid JSON-RPC lines and values with escapes, multibyte UTF-8, numbers of every form.
const std::vector<std::string>& Corpus() {
  static const std::vector<std::string> corpus = {
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a__b","arguments":{"x":[1,2.5,-0,1e3]}}})",
      R"({"jsonrpc":"2.0","id":"r-\u00e9\n","method":"ping"})",
      R"({ "method" : "tools/list" , "jsonrpc" : "2.0" , "id" : 0 , "params" : { } })",
      R"({"jsonrpc":"2.0","method":"notifications/initialized","params":[true,false,null]})",
      R"({"jsonrpc":"2.0","id":-7.25E-2,"result":{"content":[{"type":"text","text":"\ud83d\ude00 \"q\" \\ \/"}]}})",
      R"({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found","data":{"a":[[],{}]}}})",
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"m\u00e9\",\"params\":{\"k\":\"\xe6\x97\xa5\xf0\x9f\x98\x80\"}}",
      R"([1,{"a":"b"},"c",[null,[true]]])",
      R"("\u0000\u001f\t\b\f\r")",
      R"(12345678901234567890123)",
      R"({"a":{"b":{"c":{"d":{"e":[[[[1]]]]}}}}})",
  };
  return corpus;
}

// Containers open at once in a text nlohmann accepted (strings skipped).
size_t DepthOf(std::string_view text) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

std::string Mutate(std::string text, std::mt19937_64& rng) {
  static const std::string kBytes = std::string("\"\\{}[],: 0-.eEuD8+tfn\t\n\x7f", 25) +
                                    std::string("\x00\x80\xbf\xc0\xc2\xe0\xed\xf0\xf4\xf5\xff", 11);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const int mutations = 1 + static_cast<int>(pick(3));
  for (int m = 0; m < mutations; ++m) {
    const size_t at = text.empty() ? 0 : pick(text.size());
    switch (pick(5)) {
      case 0:
        if (!text.empty()) text[at] = kBytes[pick(kBytes.size())];
        break;
      case 1: text.insert(text.begin() + static_cast<ptrdiff_t>(at), kBytes[pick(kBytes.size())]); break;
      case 2:
        if (!text.empty()) text.erase(at, 1);
        break;
      case 3: {
        const size_t length = pick(8) + 1;
        text.insert(at, text.substr(pick(text.size() + 1), length));
        break;
      }
      default: text.resize(at); break;
    }
  }
  return text;
}

// nlohmann's verdict on one JSON text, corrected for two of its own rules that are not
// JSON's: it stops at a NUL byte as if the text ended there (a raw NUL is never valid
// JSON), and it refuses a number too large for a double (the grammar allows it; transport
// checks grammar, trust/strict_json.h refuses such numbers later) — those are unknown.
enum class Reference { kValid, kInvalid, kUnknown };
Reference NlohmannVerdict(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return Reference::kInvalid;
  try {
    const Json parsed = Json::parse(text);
    (void)parsed;
    return Reference::kValid;
  } catch (const Json::out_of_range& e) {
    return e.id == 406 ? Reference::kUnknown : Reference::kInvalid;
  } catch (const Json::exception&) {
    return Reference::kInvalid;
  }
}
bool NlohmannAccepts(std::string_view text) { return NlohmannVerdict(text) == Reference::kValid; }

TEST(JsonTextMutation, ValidateJsonAgreesWithNlohmann) {
  std::mt19937_64 rng(20261201);
  size_t valid = 0;
  for (int round = 0; round < 40000; ++round) {
    const std::string& base = Corpus()[round % Corpus().size()];
    const std::string text = round < static_cast<int>(Corpus().size()) ? base : Mutate(base, rng);
    const JsonTextError got = ValidateJson(text, kMaxDepth);
    const Reference reference = NlohmannVerdict(text);
    if (reference == Reference::kUnknown) continue;
    const bool accepted = reference == Reference::kValid;
    if (accepted && DepthOf(text) > kMaxDepth) {
      EXPECT_EQ(got, JsonTextError::kTooDeep) << text;
      continue;
    }
    EXPECT_EQ(got == JsonTextError::kNone, accepted)
        << "ValidateJson says " << JsonTextErrorName(got) << ", nlohmann " << accepted << ": " << text;
    valid += accepted;
  }
  // Mutations must leave both kinds in numbers, or the comparison says little.
  EXPECT_GT(valid, 4000u);
  EXPECT_LT(valid, 36000u);
}

TEST(JsonTextMutation, DecodedStringsAgreeWithNlohmann) {
  std::mt19937_64 rng(7);
  const std::vector<std::string> strings = {R"("plain")", R"("\u00e9\ud83d\ude00\n\"\\\/")",
                                            "\"\xe6\x97\xa5\xf0\x9f\x98\x80\"", R"("\u0000\t")"};
  size_t decoded = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::string text = Mutate(strings[round % strings.size()], rng);
    const std::optional<std::string> ours = DecodeJsonString(text);
    Json theirs;
    bool their_ok = false;
    // A token: no whitespace around it, which a JSON text may have.
    if (NlohmannAccepts(text) && text.front() == '"' && text.back() == '"') {
      theirs = Json::parse(text);
      their_ok = theirs.is_string();
    }
    ASSERT_EQ(ours.has_value(), their_ok) << text;
    if (ours) {
      EXPECT_EQ(*ours, theirs.get<std::string>()) << text;
      ++decoded;
    }
  }
  EXPECT_GT(decoded, 1000u);
}

// Every piece of a parsed message is one JSON value of the right type, and the decoded
// method is nlohmann's; a line nlohmann refuses is never a message.
TEST(JsonTextMutation, ParseMessageAgreesWithNlohmann) {
  std::mt19937_64 rng(42);
  JsonRpcLimits limits;
  limits.max_depth = kMaxDepth;
  size_t messages = 0;
  for (int round = 0; round < 40000; ++round) {
    const std::string text = Mutate(Corpus()[round % 7], rng);  // the JSON-RPC lines
    const ParsedLine parsed = ParseMessage(text, limits);
    const Reference reference = NlohmannVerdict(text);
    if (reference == Reference::kUnknown) continue;
    const bool accepted = reference == Reference::kValid;
    if (!accepted) {
      ASSERT_FALSE(parsed.ok()) << text;
      EXPECT_EQ(parsed.error.code, kParseError) << ParseFailureName(parsed.error.reason) << ": " << text;
      continue;
    }
    if (!parsed.ok()) {
      if (parsed.error.code == kParseError) {
        EXPECT_EQ(parsed.error.reason, ParseFailure::kTooDeep) << text;
        EXPECT_GT(DepthOf(text), kMaxDepth) << text;
      }
      if (parsed.error.id) {
        EXPECT_TRUE(NlohmannAccepts(*parsed.error.id)) << text;
      }
      continue;
    }
    ++messages;
    const Message& m = *parsed.message;
    const Json whole = Json::parse(text);
    ASSERT_TRUE(whole.is_object()) << text;
    EXPECT_EQ(whole.at("jsonrpc"), "2.0") << text;
    if (!m.id.empty()) {
      const Json id = Json::parse(m.id);
      EXPECT_TRUE(id.is_string() || id.is_number() || (m.kind == MessageKind::kResponse && id.is_null()))
          << text;
      EXPECT_EQ(id, whole.at("id")) << text;
    }
    if (m.kind != MessageKind::kResponse) {
      EXPECT_EQ(m.method, whole.at("method").get<std::string>()) << text;
      if (!m.params.empty()) {
        const Json params = Json::parse(m.params);
        EXPECT_TRUE(params.is_object() || params.is_array()) << text;
        EXPECT_EQ(params, whole.at("params")) << text;
      }
    } else if (m.is_error) {
      EXPECT_TRUE(Json::parse(m.error).is_object()) << text;
    } else {
      EXPECT_EQ(Json::parse(m.result), whole.at("result")) << text;
    }
  }
  EXPECT_GT(messages, 2000u);
}

}  // namespace
}  // namespace las::transport
