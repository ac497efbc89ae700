#include "trust/leading_lookaheads.h"

namespace las::trust {
namespace {

// The index just past the `)` that closes the group opened before `from`, or npos when
// none does; `bar_at_top` is set when a `|` stands outside any nested group or class.
size_t GroupEnd(std::string_view pattern, size_t from, bool* bar_at_top) {
  int depth = 1;
  bool in_class = false;
  for (size_t i = from; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;  // the escaped character, whatever it is
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth == 0) return i + 1;
    } else if (c == '|' && depth == 1 && bar_at_top != nullptr) {
      *bar_at_top = true;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::optional<LookaheadSplit> SplitLeadingLookaheads(std::string_view pattern) {
  if (!pattern.starts_with("^(?!") && !pattern.starts_with("^(?=")) return std::nullopt;
  LookaheadSplit split;
  size_t at = 1;
  while (pattern.substr(at).starts_with("(?!") || pattern.substr(at).starts_with("(?=")) {
    const size_t end = GroupEnd(pattern, at + 3, nullptr);
    if (end == std::string_view::npos) return std::nullopt;
    split.conditions.push_back(
        {pattern[at + 2] == '=', "^(?:" + std::string(pattern.substr(at + 3, end - 1 - (at + 3))) + ")"});
    at = end;
  }
  // What follows, read as the body of a group that the end of the pattern closes.
  const std::string rest = std::string(pattern.substr(at)) + ")";
  bool bar_at_top = false;
  if (GroupEnd(rest, 0, &bar_at_top) != rest.size() || bar_at_top) return std::nullopt;
  split.rest = "^" + std::string(pattern.substr(at));
  return split;
}

}  // namespace las::trust
