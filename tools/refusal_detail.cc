#include "tools/refusal_detail.h"

#include "base/utf8.h"

namespace las::tools {

namespace {

// Where the last "; " between two failures begins in text[0, end), or npos: not one inside a
// quoted pointer (a key may hold "; ": probe IO1); a pointer escapes its quotes.
size_t LastFailureSeparator(std::string_view text, size_t end) {
  size_t last = std::string_view::npos;
  bool quoted = false;
  bool escaped = false;
  for (size_t i = 0; i + 1 < end; ++i) {
    const char c = text[i];
    if (quoted) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ';' && text[i + 1] == ' ') {
      last = i;
    }
  }
  return last;
}

}  // namespace

std::string RefusalDetailForMessage(std::string_view detail) {
  constexpr std::string_view kSaidByTheMessage = "the arguments do not match the input schema";
  if (detail.starts_with(kSaidByTheMessage)) detail.remove_prefix(kSaidByTheMessage.size());
  if (detail.starts_with(": ")) detail.remove_prefix(2);
  std::string_view shown = Utf8PrefixOfAtMost(detail, kMaxRefusalDetailInMessage);
  if (shown.size() == detail.size()) return std::string(detail);
  // Between two failures where it can, not inside a pointer (probes IK1, IO1).
  if (const size_t last = LastFailureSeparator(detail, shown.size()); last != std::string_view::npos) {
    shown = shown.substr(0, last);
  }
  return std::string(shown) + " ...";
}

}  // namespace las::tools
