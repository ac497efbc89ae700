// Feeds: arbitrary bytes to transport/json_text.h (ValidateJson, ObjectMembers with and
// without duplicate rejection, ArrayElements, DecodeJsonString, SalvageTopLevelMember,
// SalvageTrailingMember, FindInvalidUtf8) and to transport/jsonrpc.h (ParseMessage,
// CancelledRequestId) — the scanners every client and child line goes through.
// Checks, besides no crash: what ValidateJson accepts, nlohmann accepts too (but for a
// number beyond a double's range, which only nlohmann refuses), and what nlohmann accepts
// (no BOM, no NUL byte, no deep nesting) ValidateJson accepts; each member or element
// handed out is itself valid JSON of the type reported; a decoded string re-quoted
// decodes to the same bytes; a salvaged id is a valid string or number and, in a whole
// object, the id member's own text (from the end: the last member's, `id`);
// FindInvalidUtf8 agrees with trust's; a parsed message's raw pieces are valid JSON and
// every error response built is valid JSON.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_check.h"
#include "fuzz/nlohmann_overflows.h"
#include "transport/json_text.h"
#include "transport/jsonrpc.h"
#include "trust/strict_json.h"

namespace {

namespace t = las::transport;

bool Valid(std::string_view text) { return t::ValidateJson(text) == t::JsonTextError::kNone; }

size_t BracketCount(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += (c == '[' || c == '{') ? 1 : 0;
  return n;
}

void CheckMembers(std::string_view text, t::DuplicateKeys duplicates) {
  std::vector<t::JsonMember> members;
  bool is_object = false;
  const auto error = t::ObjectMembers(text, &members, t::kDefaultMaxDepth, &is_object, duplicates);
  if (error != t::JsonTextError::kNone) return;
  LAS_FUZZ_CHECK(is_object, "ObjectMembers accepted a non-object");
  for (size_t i = 0; i < members.size(); ++i) {
    LAS_FUZZ_CHECK(Valid(members[i].raw), "a member's raw text is not valid JSON");
    LAS_FUZZ_CHECK(t::JsonTypeOf(members[i].raw) == members[i].type, "a member's type differs");
    LAS_FUZZ_CHECK(!t::FindInvalidUtf8(members[i].key), "a decoded key is not UTF-8");
    if (duplicates == t::DuplicateKeys::kRejected) {
      for (size_t j = 0; j < i; ++j) {
        LAS_FUZZ_CHECK(members[j].key != members[i].key, "a duplicate key passed kRejected");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const bool valid = Valid(text);
  const bool nlohmann_accepts = nlohmann::json::accept(text);
  if (valid && !nlohmann_accepts) {
    LAS_FUZZ_CHECK(las::fuzz::NlohmannOverflows(text), "ValidateJson accepted what nlohmann refuses");
  }
  // nlohmann skips a leading BOM and stops at a NUL byte (its end of input); nesting past
  // 64 is ValidateJson's bound.
  if (nlohmann_accepts && !text.starts_with("\xEF\xBB\xBF") &&
      text.find('\0') == std::string_view::npos && BracketCount(text) < 64) {
    LAS_FUZZ_CHECK(valid, "nlohmann accepted what ValidateJson refuses");
  }

  CheckMembers(text, t::DuplicateKeys::kAllowed);
  CheckMembers(text, t::DuplicateKeys::kRejected);

  std::vector<std::string_view> elements;
  if (t::ArrayElements(text, &elements) == t::JsonTextError::kNone) {
    for (auto element : elements) LAS_FUZZ_CHECK(Valid(element), "an element is not valid JSON");
  }

  if (auto decoded = t::DecodeJsonString(text)) {
    LAS_FUZZ_CHECK(valid, "DecodeJsonString accepted invalid JSON");
    const std::string quoted = t::QuoteJsonString(*decoded);
    LAS_FUZZ_CHECK(Valid(quoted), "QuoteJsonString made invalid JSON");
    auto again = t::DecodeJsonString(quoted);
    LAS_FUZZ_CHECK(again && *again == *decoded, "quote and decode do not round-trip");
  }

  const auto invalid_utf8 = t::FindInvalidUtf8(text);
  LAS_FUZZ_CHECK(invalid_utf8 == las::trust::FindInvalidUtf8(text),
                 "transport and trust disagree on UTF-8");

  if (auto id = t::SalvageTopLevelMember(text, "id")) {
    const auto type = Valid(*id) ? t::JsonTypeOf(*id) : t::JsonType::kNull;
    LAS_FUZZ_CHECK(type == t::JsonType::kString || type == t::JsonType::kNumber,
                   "a salvaged id is not a string or number");
    std::vector<t::JsonMember> members;
    if (t::ObjectMembers(text, &members) == t::JsonTextError::kNone) {
      for (const auto& member : members) {
        if (member.key != "id") continue;
        LAS_FUZZ_CHECK(member.raw == *id, "the salvaged id is not the id member");
        break;
      }
    }
  }

  // From any suffix (an over-long line's end): nothing, or the object's last member, `id`.
  for (size_t cut = 0; cut < text.size(); cut += 1 + cut / 8) {
    auto id = t::SalvageTrailingMember(text.substr(cut), "id");
    if (!id) continue;
    std::vector<t::JsonMember> members;
    if (t::ObjectMembers(text, &members, 1000) != t::JsonTextError::kNone) continue;
    LAS_FUZZ_CHECK(!members.empty() && members.back().key == "id" && members.back().raw == *id,
                   "the id salvaged from the end is not the last member, id");
  }

  const t::ParsedLine parsed = t::ParseMessage(text);
  if (parsed.ok()) {
    const t::Message& m = *parsed.message;
    if (!m.id.empty()) LAS_FUZZ_CHECK(Valid(m.id), "a message id is not valid JSON");
    if (!m.params.empty()) LAS_FUZZ_CHECK(Valid(m.params), "params are not valid JSON");
    if (!m.result.empty()) LAS_FUZZ_CHECK(Valid(m.result), "a result is not valid JSON");
    if (m.kind == t::MessageKind::kRequest) {
      LAS_FUZZ_CHECK(Valid(t::MakeResultResponse(m.id, "{}")), "a response is not valid JSON");
      LAS_FUZZ_CHECK(Valid(t::MakeErrorResponse(m.id, t::kInvalidParams)),
                     "an error response is not valid JSON");
    }
  } else {
    if (parsed.error.id) LAS_FUZZ_CHECK(Valid(*parsed.error.id), "an error's id is not JSON");
    LAS_FUZZ_CHECK(Valid(t::ErrorResponse(parsed.error)), "ErrorResponse is not valid JSON");
  }
  if (auto request = t::CancelledRequestId(text)) {
    LAS_FUZZ_CHECK(Valid(*request), "a cancelled requestId is not valid JSON");
  }
  return 0;
}
