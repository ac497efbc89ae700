#include "base/needle_set.h"

#include <algorithm>
#include <cstring>

namespace las {

namespace {

uint32_t PrefixAt(const char* at) {
  uint32_t prefix;
  std::memcpy(&prefix, at, sizeof prefix);
  return prefix;
}

}  // namespace

NeedleSet::NeedleSet(std::vector<std::string> needles) {
  std::erase_if(needles, [](const std::string& needle) { return needle.empty(); });
  std::sort(needles.begin(), needles.end());
  needles.erase(std::unique(needles.begin(), needles.end()), needles.end());
  needles_ = std::move(needles);
  for (uint32_t index = 0; index < needles_.size(); ++index) {
    const std::string& needle = needles_[index];
    if (needle.size() < kPrefixBytes) {
      short_.push_back(index);
      continue;
    }
    const uint32_t prefix = PrefixAt(needle.data());
    by_prefix_.emplace_back(prefix, index);
    const uint32_t slot = FilterSlot(prefix);
    filter_[slot / 64] |= uint64_t{1} << (slot % 64);
    shortest_long_ = std::min(shortest_long_, needle.size());
  }
  std::sort(by_prefix_.begin(), by_prefix_.end());
}

bool NeedleSet::FoundIn(std::string_view text) const {
  for (uint32_t index : short_) {
    if (text.find(needles_[index]) != std::string_view::npos) return true;
  }
  if (by_prefix_.empty() || text.size() < shortest_long_) return false;
  const char* const begin = text.data();
  const size_t last = text.size() - shortest_long_;  // the last position a needle fits at
  for (size_t at = 0; at <= last; ++at) {
    const uint32_t prefix = PrefixAt(begin + at);
    const uint32_t slot = FilterSlot(prefix);
    if ((filter_[slot / 64] >> (slot % 64) & 1) == 0) continue;
    auto filed = std::lower_bound(by_prefix_.begin(), by_prefix_.end(),
                                  std::pair<uint32_t, uint32_t>{prefix, 0});
    for (; filed != by_prefix_.end() && filed->first == prefix; ++filed) {
      const std::string& needle = needles_[filed->second];
      if (needle.size() <= text.size() - at &&
          std::memcmp(begin + at + kPrefixBytes, needle.data() + kPrefixBytes,
                      needle.size() - kPrefixBytes) == 0) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace las
