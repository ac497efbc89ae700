#include "tools/refusal_detail.h"

#include "base/utf8.h"

namespace las::tools {

std::string RefusalDetailForMessage(std::string_view detail) {
  constexpr std::string_view kSaidByTheMessage = "the arguments do not match the input schema";
  if (detail.starts_with(kSaidByTheMessage)) detail.remove_prefix(kSaidByTheMessage.size());
  if (detail.starts_with(": ")) detail.remove_prefix(2);
  std::string_view shown = Utf8PrefixOfAtMost(detail, kMaxRefusalDetailInMessage);
  if (shown.size() == detail.size()) return std::string(detail);
  // Between two failures where it can, not inside a pointer (probe IK1).
  if (const size_t last = shown.rfind("; "); last != std::string_view::npos) shown = shown.substr(0, last);
  return std::string(shown) + " ...";
}

}  // namespace las::tools
