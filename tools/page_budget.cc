#include "tools/page_budget.h"

#include "base/json_string.h"

namespace las::tools {
namespace {

// What `json` adds to an ExactJsonResult: itself, and its escaped copy in the text item
// (JsonStringSize counts two quotes that an inner value does not have).
size_t ResponseShare(std::string_view json) { return json.size() + JsonStringSize(json) - 2; }

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
