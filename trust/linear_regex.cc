#include "trust/linear_regex.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <string>

namespace las::trust {
namespace {

// A quarter of RE2's default budget (8 MiB) per pattern: the program, and the DFA states
// cached while matching, stay small; a pattern that needs more is refused at compile.
constexpr int64_t kMaxProgramBytes = 2 << 20;

RE2::Options MatcherOptions(int64_t max_mem) {
  RE2::Options options;
  options.set_never_capture(true);
  options.set_log_errors(false);
  options.set_max_mem(max_mem);
  return options;
}

}  // namespace

namespace internal {
struct LinearRegexSetImpl {
  explicit LinearRegexSetImpl(const RE2::Options& options) : set(options, RE2::UNANCHORED) {}
  RE2::Set set;
};
}  // namespace internal

Result<LinearRegex> LinearRegex::Compile(std::string_view translated_pattern) {
  auto re = std::make_shared<const RE2>(re2::StringPiece(translated_pattern.data(), translated_pattern.size()),
                                        MatcherOptions(kMaxProgramBytes));
  switch (re->error_code()) {
    case RE2::NoError:
      return LinearRegex(std::move(re));
    case RE2::ErrorBadPerlOp:
      return Unsupported("the pattern uses look-ahead or another construct that needs a "
                         "backtracking matcher, valid in a u-flag ECMAScript pattern but not "
                         "supported by Las");
    case RE2::ErrorBadEscape:
      return Unsupported("the pattern uses a back-reference or another escape that needs a "
                         "backtracking matcher, valid in a u-flag ECMAScript pattern but not "
                         "supported by Las");
    case RE2::ErrorPatternTooLarge:
    case RE2::ErrorRepeatSize:
      return Unsupported("the pattern is too large to match in bounded time (a counted "
                         "repetition over 1000, or a program over the size bound), which Las "
                         "does not support");
    default:
      return InvalidArgument("the pattern is not a regular expression the matcher accepts");
  }
}

int LinearRegex::ProgramSize() const {
  int size = re_->ProgramSize();
  for (const auto& [must_match, condition] : conditions_) size += condition->ProgramSize();
  return size;
}

LinearRegex LinearRegex::WithConditions(LinearRegex main,
                                        std::vector<std::pair<bool, LinearRegex>> conditions) {
  for (auto& [must_match, condition] : conditions) {
    main.conditions_.emplace_back(must_match, std::move(condition.re_));
  }
  return main;
}

bool LinearRegex::Search(std::string_view subject) const {
  const re2::StringPiece text(subject.data(), subject.size());
  for (const auto& [must_match, condition] : conditions_) {
    if (RE2::PartialMatch(text, *condition) != must_match) return false;
  }
  return RE2::PartialMatch(text, *re_);
}

Result<LinearRegexSet> LinearRegexSet::Compile(const std::vector<std::string>& translated_patterns) {
  if (translated_patterns.empty()) return InvalidArgument("no patterns to match");
  // One program for all of them: the bound grows with their number, as theirs would apart.
  const int64_t budget = kMaxProgramBytes * static_cast<int64_t>(std::min<size_t>(translated_patterns.size(), 16));
  auto impl = std::make_shared<internal::LinearRegexSetImpl>(MatcherOptions(budget));
  for (const std::string& pattern : translated_patterns) {
    std::string error;
    if (impl->set.Add(re2::StringPiece(pattern.data(), pattern.size()), &error) < 0) {
      return InvalidArgument("a pattern is not a regular expression the matcher accepts");
    }
  }
  if (!impl->set.Compile()) {
    return Unsupported("the patterns together are too large to match in bounded time");
  }
  return LinearRegexSet(std::move(impl));
}

std::optional<std::vector<int>> LinearRegexSet::Matches(std::string_view subject) const {
  std::vector<int> matched;
  RE2::Set::ErrorInfo error{};
  if (!impl_->set.Match(re2::StringPiece(subject.data(), subject.size()), &matched, &error) &&
      error.kind != RE2::Set::kNoError) {
    return std::nullopt;
  }
  std::sort(matched.begin(), matched.end());
  return matched;
}

}  // namespace las::trust
