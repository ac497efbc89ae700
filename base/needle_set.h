// NeedleSet: whether a text contains any of a fixed set of byte strings ("needles"), in one
// pass over the text whatever the number of needles — the credential scan looks for a
// dozen credentials' spellings (about eight each) in every result, and a search per
// needle made its cost grow with each credential (docs/PERFORMANCE.md, "Credential scan").
//
// How: every needle of kPrefixBytes or more is filed under its first kPrefixBytes bytes; a
// bit filter over those prefixes rules out almost every position of the text at the cost of
// one load, one multiply and one bit test, and only a position whose prefix is filed is
// compared with the needles filed there. Shorter needles are searched for one by one.
// Bytes are compared exactly (no case folding: fold the text and the needles first).
// RE2, which the project has, could answer the same with an alternation of the needles, but
// its DFA has a memory budget past which a search falls back to a slower engine (long
// credentials have long spellings); this is a few lines whose cost does not depend on them.
//
// Thread safety: immutable once built; FoundIn may be called from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace las {

class NeedleSet {
 public:
  static constexpr size_t kPrefixBytes = 4;

  NeedleSet() = default;
  // Empty needles are ignored (they would match every text).
  explicit NeedleSet(std::vector<std::string> needles);

  bool empty() const { return needles_.empty(); }
  // Whether some needle occurs in `text`.
  bool FoundIn(std::string_view text) const;

 private:
  static constexpr int kFilterBits = 16;
  static uint32_t FilterSlot(uint32_t prefix) {
    return (prefix * 0x9E3779B1u) >> (32 - kFilterBits);  // Fibonacci hashing
  }

  std::vector<std::string> needles_;
  std::vector<std::pair<uint32_t, uint32_t>> by_prefix_;  // (prefix, index in needles_), sorted
  std::vector<uint32_t> short_;                           // needles under kPrefixBytes
  std::array<uint64_t, (size_t{1} << kFilterBits) / 64> filter_{};
  size_t shortest_long_ = SIZE_MAX;  // the shortest needle filed by prefix
};

}  // namespace las
