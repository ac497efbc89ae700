#include "tools/recent_contents.h"

namespace las::tools {

std::shared_ptr<const std::string> RecentContents::Find(std::string_view id, uint64_t sequence) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->sequence == sequence && it->id == id) {
      entries_.splice(entries_.begin(), entries_, it);
      return entries_.front().content;
    }
  }
  return nullptr;
}

void RecentContents::Keep(std::string_view id, uint64_t sequence,
                          std::shared_ptr<const std::string> content) {
  if (content == nullptr || content->size() > budget_bytes_ || Find(id, sequence) != nullptr) {
    return;
  }
  while (!entries_.empty() && bytes_ + content->size() > budget_bytes_) {
    bytes_ -= entries_.back().content->size();
    entries_.pop_back();
  }
  bytes_ += content->size();
  entries_.push_front({std::string(id), sequence, std::move(content)});
}

}  // namespace las::tools
