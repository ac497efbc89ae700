#include "tools/page_budget.h"

#include "base/json_string.h"
#include "transport/line_breaks.h"

namespace las::tools {
namespace {

// What `json` adds to an ExactJsonResult: itself, and its escaped copy in the text item
// (JsonStringSize counts two quotes that an inner value does not have), each as written to
// the line, where a raw U+0085, U+2028 or U+2029 becomes its \u escape (probe JX1: pages of
// such text were counted at half their size).
size_t ResponseShare(std::string_view json) {
  return json.size() + JsonStringSize(json) - 2 + 2 * transport::LineBreakEscapeGrowth(json);
}

}  // namespace

bool PageBudget::TryTake(std::string_view item, std::string_view next_json) {
  const size_t share = ResponseShare(item) + 2;  // and a comma in each copy
  if (count_ > 0 && taken_ + share + ResponseShare(next_json) + kPageFrameBytes > kMaxPageBytes) {
    return false;
  }
  taken_ += share;
  ++count_;
  return true;
}

}  // namespace las::tools
