// Transport's JSON scanner (json_text.h) and JSON-RPC parser (jsonrpc.h) read what clients
// and children send, byte by byte, by hand. Here they are compared with nlohmann's parser
// on randomly mutated texts: the same verdict on well-formedness, the same decoded
// strings, and every raw piece ParseMessage hands out is itself one JSON value. Under the
// ASan+UBSan preset the same runs also check for out-of-bounds reads.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "transport/json_text.h"
#include "transport/jsonrpc.h"
#include "tests/support/json_mutation.h"

namespace las::transport {
namespace {

using Json = nlohmann::json;

constexpr size_t kMaxDepth = 16;

// Valid JSON-RPC lines (the first kJsonRpcLines) and values with escapes, multibyte
// UTF-8, numbers of every form.
constexpr size_t kJsonRpcLines = 7;
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

using testing::JsonDepth;
using testing::JsonReference;
using testing::MutateJsonText;
using testing::NlohmannVerdict;

bool NlohmannAccepts(std::string_view text) { return NlohmannVerdict(text) == JsonReference::kValid; }

TEST(JsonTextMutation, ValidateJsonAgreesWithNlohmann) {
  std::mt19937_64 rng(20261201);
  size_t valid = 0;
  for (int round = 0; round < 40000; ++round) {
    const std::string& base = Corpus()[round % Corpus().size()];
    const std::string text = round < static_cast<int>(Corpus().size()) ? base : MutateJsonText(base, rng);
    const JsonTextError got = ValidateJson(text, kMaxDepth);
    const JsonReference reference = NlohmannVerdict(text);
    if (reference == JsonReference::kUnknown) continue;
    const bool accepted = reference == JsonReference::kValid;
    if (accepted && JsonDepth(text) > kMaxDepth) {
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
    const std::string text = MutateJsonText(strings[round % strings.size()], rng);
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
    const std::string text = MutateJsonText(Corpus()[round % kJsonRpcLines], rng);
    const ParsedLine parsed = ParseMessage(text, limits);
    const JsonReference reference = NlohmannVerdict(text);
    if (reference == JsonReference::kUnknown) continue;
    const bool accepted = reference == JsonReference::kValid;
    if (!accepted) {
      ASSERT_FALSE(parsed.ok()) << text;
      EXPECT_EQ(parsed.error.code, kParseError) << ParseFailureName(parsed.error.reason) << ": " << text;
      continue;
    }
    if (!parsed.ok()) {
      if (parsed.error.code == kParseError) {
        EXPECT_EQ(parsed.error.reason, ParseFailure::kTooDeep) << text;
        EXPECT_GT(JsonDepth(text), kMaxDepth) << text;
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

// The salvaged id (SalvageTopLevelMember from the start, SalvageTrailingMember from any
// suffix, as an over-long line's end is) of a text that is one JSON object is its top-level
// `id` member, or nothing: never a nested `id`, a string's content or another member.
TEST(JsonTextMutation, SalvagedIdsAreTheTopLevelIdOrNothing) {
  const std::vector<std::string> lines = {
      R"({"method":"tools/call","params":{"name":"a","arguments":{"id":5,"t":"\",\"id\":6}"}},"jsonrpc":"2.0","id":7})",
      R"({"params":{"x":[[["id"]]],"s":"a\\\"b\\"},"id":"q\"\\x"})",
      R"({"result":{"id":1},"id":-2.5e3})",
      R"({"id":{"id":3},"x":"}"})",
  };
  std::mt19937_64 rng(20261204);
  size_t found = 0;
  size_t found_at_end = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::string& base = lines[round % lines.size()];
    const std::string text = round < static_cast<int>(lines.size()) ? base : MutateJsonText(base, rng);
    if (NlohmannVerdict(text) != JsonReference::kValid) continue;
    std::vector<JsonMember> members;
    if (ObjectMembers(text, &members, 1000) != JsonTextError::kNone) continue;
    const JsonMember* first_id = nullptr;
    for (const JsonMember& member : members) {
      if (member.key == "id" && first_id == nullptr) first_id = &member;
    }
    if (auto salvaged = SalvageTopLevelMember(text, "id", 4)) {
      ASSERT_NE(first_id, nullptr) << text;
      EXPECT_EQ(*salvaged, first_id->raw) << text;
      ++found;
    }
    for (size_t cut = 0; cut < text.size(); ++cut) {
      if (auto salvaged = SalvageTrailingMember(std::string_view(text).substr(cut), "id")) {
        ASSERT_TRUE(!members.empty() && members.back().key == "id") << cut << ": " << text;
        EXPECT_EQ(*salvaged, members.back().raw) << cut << ": " << text;
        ++found_at_end;
      }
    }
  }
  // Mutations must leave many ids to find, or the comparison says little.
  EXPECT_GT(found, 1000u);
  EXPECT_GT(found_at_end, 10000u);
}

}  // namespace
}  // namespace las::transport
