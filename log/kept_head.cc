#include "log/kept_head.h"

#include <sodium.h>

#include <cstring>

#include "log/rocks_layout.h"

namespace las::log {
namespace {

// FORMAT.md §The kept head. The trailing NUL is part of the label, as in the chain's.
constexpr std::string_view kMagic = "las.kept";
constexpr uint32_t kVersion = 1;
constexpr std::string_view kMacLabel{"las.kept-head.v1\0", 17};
constexpr size_t kKeyIdSize = 8;
constexpr size_t kMacSize = 32;
// magic, version, key id, first, head sequence, head hash
constexpr size_t kBodySize = 8 + 4 + kKeyIdSize + 32 + 8 + 32;

Hash HashAtOffset(std::string_view record, size_t at) {
  Hash hash;
  std::memcpy(hash.data(), record.data() + at, hash.size());
  return hash;
}

}  // namespace

std::string EncodeKeptHead(const KeptHead& kept, const SnapshotKey& key) {
  std::string out(kMagic);
  out += layout::EncodeU32(kVersion);
  out += SealKeyId(key);
  out.append(reinterpret_cast<const char*>(kept.first.data()), kept.first.size());
  out += layout::EncodeSequenceKey(kept.head.sequence);
  out.append(reinterpret_cast<const char*>(kept.head.hash.data()), kept.head.hash.size());
  const auto mac = KeyedDomainHash(key, kMacLabel, out);
  out.append(reinterpret_cast<const char*>(mac.data()), mac.size());
  return out;
}

Result<KeptVerdict> JudgeKeptHead(std::optional<std::string_view> record, const SnapshotKey& key,
                                  const Head& head, const HashAt& hash_at) {
  KeptVerdict verdict;
  if (!record) return verdict;
  const bool readable = record->size() == kBodySize + kMacSize && record->starts_with(kMagic) &&
                        layout::DecodeU32(record->substr(8, 4)) == kVersion;
  if (!readable || record->substr(12, kKeyIdSize) != SealKeyId(key)) {
    verdict.state = KeptState::kOtherKey;
    return verdict;
  }
  const auto mac = KeyedDomainHash(key, kMacLabel, record->substr(0, kBodySize));
  if (sodium_memcmp(mac.data(), record->data() + kBodySize, kMacSize) != 0) {
    return Corruption("the kept head record was altered (its MAC does not match this key)");
  }
  verdict.kept.first = HashAtOffset(*record, 20);
  verdict.kept.head.sequence = *layout::DecodeSequenceKey(record->substr(52, 8));
  verdict.kept.head.hash = HashAtOffset(*record, 60);
  auto first = HeldHash(hash_at, 1);
  if (!first.ok()) return first.status();
  if (*first != verdict.kept.first) {
    verdict.state = KeptState::kOtherLog;
    return verdict;
  }
  LAS_RETURN_IF_ERROR(CheckLogHolds(verdict.kept.head, head, hash_at,
                                    {"this key's writer left it at", "it was rolled back or cut",
                                     "the one this key's writer left at the head", "kept"}));
  verdict.state = KeptState::kHolds;
  return verdict;
}

}  // namespace las::log
