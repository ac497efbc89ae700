#include "trust/linear_regex.h"

#include <re2/re2.h>

#include <string>

namespace las::trust {
namespace {

// RE2's default budget (8 MiB) admits patterns whose per-subject cost is still linear but
// large; a quarter of it keeps one search on a 1 KiB subject well under a millisecond.
constexpr int64_t kMaxProgramBytes = 2 << 20;

}  // namespace

Result<LinearRegex> LinearRegex::Compile(std::string_view byte_level_pattern) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_never_capture(true);
  options.set_log_errors(false);
  options.set_max_mem(kMaxProgramBytes);
  auto re = std::make_shared<const RE2>(re2::StringPiece(byte_level_pattern.data(), byte_level_pattern.size()),
                                        options);
  switch (re->error_code()) {
    case RE2::NoError:
      return LinearRegex(std::move(re));
    case RE2::ErrorBadPerlOp:
      return Unsupported("the pattern uses look-ahead or another construct that needs a "
                         "backtracking matcher; only patterns without look-around and "
                         "back-references are supported");
    case RE2::ErrorBadEscape:
      return Unsupported("the pattern uses a back-reference or an escape without a "
                         "linear-time matcher; only patterns without look-around and "
                         "back-references are supported");
    case RE2::ErrorPatternTooLarge:
    case RE2::ErrorRepeatSize:
      return Unsupported("the pattern is too large to match in bounded time (a counted "
                         "repetition over 1000, or a program over the size bound)");
    default:
      return InvalidArgument("the pattern is not a regular expression the matcher accepts");
  }
}

bool LinearRegex::Search(std::string_view subject) const {
  return RE2::PartialMatch(re2::StringPiece(subject.data(), subject.size()), *re_);
}

}  // namespace las::trust
