// The byte bound of a list or history page (docs/STATE.md): at most kMaxPageBytes of
// tools/call response. An ExactJsonResult carries the answer twice, as JSON in
// structuredContent and escaped again in the text item, so each item is counted as both.
// kPageFrameBytes is kept for the rest: the JSON-RPC envelope with a request id of up to
// 256 bytes as sent (kMaxRequestIdBytes, tools/mcp_endpoint.h) — up to 764 as written,
// each raw 2-byte U+0085 going out as a 6-byte escape (probe KD1) — the result's frame and
// the answer's other members.
#pragma once

#include <cstddef>
#include <string_view>

namespace las::tools {

inline constexpr size_t kMaxPageBytes = 64 * 1024;
inline constexpr size_t kPageFrameBytes = 1024;

class PageBudget {
 public:
  // Takes `item` when it fits beside the items already taken and a `next` member whose
  // JSON is `next_json`; the first item is always taken (a page makes progress).
  bool TryTake(std::string_view item, std::string_view next_json = {});

 private:
  size_t taken_ = 0;
  size_t count_ = 0;
};

}  // namespace las::tools
