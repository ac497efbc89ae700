// Feeds: a JSON Schema `pattern` and a subject ("PATTERN\0SUBJECT"; no NUL: the subject is
// empty) through the path a schema's pattern takes: trust/utf8_pattern.h's TranslatePattern
// for std::regex (UTF-8 bytes) and for RE2 (code points), the std::regex compile that
// CompileArgumentSchema uses to refuse non-ECMAScript patterns, LinearRegex::Compile and
// Search, and a one-pattern LinearRegexSet.
// Checks, besides no crash and no timeout: a pattern that translates one way translates
// the other; LinearRegexSet and LinearRegex agree on the subject; and, for short patterns
// and subjects (where backtracking stays cheap), std::regex_search over the byte
// translation and RE2 over the code-point translation give the same verdict on a
// well-formed UTF-8 subject — both stand for the same u-flag ECMAScript pattern.
#include <cstddef>
#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "trust/argument_schema.h"
#include "trust/linear_regex.h"
#include "trust/strict_json.h"
#include "trust/utf8_pattern.h"

namespace {

using las::trust::PatternTarget;

constexpr size_t kMaxDifferentialPattern = 24;
constexpr size_t kMaxDifferentialSubject = 16;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view pattern = input.substr(0, nul);
  const std::string_view subject =
      nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
  // CompileArgumentSchema refuses longer patterns before any engine sees them.
  if (pattern.size() > las::trust::kMaxPatternBytes) return 0;

  auto as_bytes = las::trust::TranslatePattern(pattern, PatternTarget::kStdRegexUtf8Bytes);
  auto as_code_points = las::trust::TranslatePattern(pattern, PatternTarget::kRe2CodePoints);
  LAS_FUZZ_CHECK(as_bytes.ok() == as_code_points.ok(), "the two translations disagree on validity");
  if (!as_code_points.ok()) return 0;

  bool std_regex_ok = false;
  std::regex compiled;
  try {
    compiled = std::regex(*as_bytes);
    std_regex_ok = true;
  } catch (const std::exception&) {
  }

  auto linear = las::trust::LinearRegex::Compile(*as_code_points);
  if (!linear.ok()) return 0;
  const bool found = linear->Search(subject);

  auto set = las::trust::LinearRegexSet::Compile({*as_code_points});
  if (set.ok()) {
    auto matches = set->Matches(subject);
    if (matches) LAS_FUZZ_CHECK(matches->empty() != found, "LinearRegexSet and LinearRegex disagree");
  }

  if (std_regex_ok && pattern.size() <= kMaxDifferentialPattern &&
      subject.size() <= kMaxDifferentialSubject && !las::trust::FindInvalidUtf8(subject)) {
    bool std_found = false;
    try {
      std_found = std::regex_search(subject.begin(), subject.end(), compiled);
    } catch (const std::exception&) {
      return 0;  // std::regex's own complexity limit: no verdict to compare
    }
    LAS_FUZZ_CHECK(std_found == found, "std::regex (byte translation) and RE2 (code points) differ");
  }
  return 0;
}
