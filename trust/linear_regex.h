// A JSON Schema pattern, matched in time linear in the subject.
//
// Patterns come from a tool's signed inputSchema, subjects from the caller's arguments. A
// backtracking matcher (std::regex's default) lets a subject make one call take 2^n steps
// (`^(a+)+$`), and libstdc++'s breadth-first executor is still O(n²·m) per search and slow
// per state. RE2 (libre2) guarantees O(n·m) and refuses what needs backtracking: look-
// ahead, back-references. So a pattern that uses them is not compiled at all (the tool's
// schema fails compile, kUnsupported) rather than matched with a cost nobody bounded.
//
// The text compiled is a pattern already rewritten by trust/utf8_pattern.h for RE2
// (PatternTarget::kRe2CodePoints: `.`, classes, `\s` and non-ASCII characters as classes
// of code points), which RE2 matches in its UTF-8 mode against the subject's UTF-8, so
// verdicts are those of the `u`-flag ECMAScript pattern. (Not its Latin-1 mode over a
// byte-level translation: libre2 2022-06-01 there misses alternatives that share a first
// byte of 0x80 or more, `\xE9a|\xE9b` on "\xE9a".) Search is unanchored (a match
// anywhere), as JSON Schema's `pattern` is; `^` and `$` hold only at the subject's ends.
//
// Look-aheads at the start of an anchored `pattern` are taken apart before this
// (trust/leading_lookaheads.h) and matched as conditions (WithConditions).
//
// Errors (never quoting the pattern): kUnsupported for look-ahead or look-behind, a back-
// reference, or a pattern over the program-size bound (such as `.{0,1000}` over UTF-8);
// kInvalidArgument for other syntax RE2 refuses.
//
// Thread safety: immutable after Compile; Search may run from any number of threads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace re2 {
class RE2;
}

namespace las::trust::internal {
struct LinearRegexSetImpl;  // linear_regex.cc: holds the re2::RE2::Set
}

namespace las::trust {

class LinearRegex {
 public:
  static Result<LinearRegex> Compile(std::string_view translated_pattern);

  // Whether the pattern matches somewhere in `subject` (UTF-8).
  bool Search(std::string_view subject) const;

  // The compiled programs' instructions: a measure of what compiling them cost.
  int ProgramSize() const;

  // `main` with the look-aheads at its start as conditions (trust/leading_lookaheads.h):
  // Search matches when each condition's regex matches the subject (must_match) or does
  // not, and `main` matches.
  static LinearRegex WithConditions(LinearRegex main,
                                    std::vector<std::pair<bool, LinearRegex>> conditions);

 private:
  explicit LinearRegex(std::shared_ptr<const re2::RE2> re) : re_(std::move(re)) {}
  std::shared_ptr<const re2::RE2> re_;  // never null
  std::vector<std::pair<bool, std::shared_ptr<const re2::RE2>>> conditions_;  // must_match, regex
};

// Several patterns matched at once: which of them match a subject, in one pass however
// many there are (a patternProperties with 3,000 patterns against 1,000 keys is 1,000
// passes, not 3,000,000). Each pattern must have compiled alone as a LinearRegex.
class LinearRegexSet {
 public:
  // Errors: kUnsupported when the patterns together exceed the program-size bound;
  // kInvalidArgument for an empty list.
  static Result<LinearRegexSet> Compile(const std::vector<std::string>& translated_patterns);

  // The indices (ascending) of the patterns that match somewhere in `subject`; nullopt
  // when the matcher ran out of its memory bound before it could tell.
  std::optional<std::vector<int>> Matches(std::string_view subject) const;

 private:
  explicit LinearRegexSet(std::shared_ptr<const internal::LinearRegexSetImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const internal::LinearRegexSetImpl> impl_;  // never null
};

}  // namespace las::trust
