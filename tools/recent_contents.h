// RecentContents: the contents of the last few handles read back from the log, kept so
// that reading a large handle span by span reads and verifies its event once instead of
// once per span (a 4 MiB child result read in 64 KiB spans would otherwise hash and copy
// 256 MiB on the loop). A handle's content never changes, so an entry is keyed by handle
// id and the sequence of its HandleCreated event and never goes stale.
//
// Bounded: at most `budget_bytes` of contents, least recently used evicted first; a
// content larger than the budget is never kept.
// Threading: not thread-safe; the loop thread only (tools/coordination.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>

namespace las::tools {

class RecentContents {
 public:
  explicit RecentContents(size_t budget_bytes) : budget_bytes_(budget_bytes) {}

  // The content kept for (id, sequence), now the most recently used; nullptr if none.
  std::shared_ptr<const std::string> Find(std::string_view id, uint64_t sequence);
  // Keeps `content` for (id, sequence), evicting the least recently used as needed.
  void Keep(std::string_view id, uint64_t sequence, std::shared_ptr<const std::string> content);

  size_t bytes() const { return bytes_; }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string id;
    uint64_t sequence = 0;
    std::shared_ptr<const std::string> content;
  };
  size_t budget_bytes_;
  size_t bytes_ = 0;
  std::list<Entry> entries_;  // most recently used first; a handful at most
};

}  // namespace las::tools
