// Look-aheads at the start of an anchored `pattern`, taken apart so that a linear matcher
// can check them.
//
// RE2 has no look-ahead, so a pattern with one cannot be matched in linear time as it
// stands, and its tool was left out. But generators put them in one place: pydantic writes
// every `Decimal` as `^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$` (probe GS2). A look-ahead at the very
// start of a pattern anchored by `^`, before anything else, tests the subject from its
// first character: `^(?!A)(?=B)R` matches exactly when `^(?:A)` does not match, `^(?:B)`
// does and `^R` does. So such a pattern is split into those parts, each matched by RE2.
//
// Split applies only when the pattern starts with `^(?!` or `^(?=`, its leading look-aheads
// are closed groups (escapes and classes read as u-flag ECMAScript reads them), and what
// follows them has no `|` outside a group or class (`^(?!a)b|c` applies the look-ahead to
// `b` only); nullopt otherwise. The items at the end of the rest that can match the empty
// string are dropped (a search finds a match with them exactly when it does without):
// pydantic's constrained Decimal hides a look-ahead in such a group. The parts may still
// hold constructs RE2 refuses (another look-ahead inside): compiling them says so.
//
// Thread safety: a pure function.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace las::trust {

struct LookaheadSplit {
  struct Condition {
    bool must_match;      // (?=...) true, (?!...) false
    std::string pattern;  // "^(?:...)": the look-ahead's body, anchored at the start
  };
  std::vector<Condition> conditions;
  std::string rest;  // "^" and what follows the look-aheads
};

std::optional<LookaheadSplit> SplitLeadingLookaheads(std::string_view pattern);

}  // namespace las::trust
