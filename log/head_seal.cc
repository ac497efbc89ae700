#include "log/head_seal.h"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "base/hex.h"
#include "log/rocks_layout.h"

namespace las::log {
namespace {

// FORMAT.md §The head seal. The trailing NULs are part of the labels, as in the chain's.
constexpr std::string_view kMagic = "las.seal";
constexpr uint32_t kVersion = 1;
constexpr std::string_view kMacLabel{"las.head-seal.v1\0", 17};
constexpr std::string_view kKeyIdLabel{"las.seal-key-id.v1\0", 19};
constexpr size_t kKeyIdSize = 8;
constexpr size_t kMacSize = 32;
// magic, version, key id, head sequence, head hash, span count
constexpr size_t kFixedSize = 8 + 4 + kKeyIdSize + 8 + 32 + 4;
constexpr size_t kSpanSize = 16;

uint64_t U64At(std::string_view bytes, size_t at) {
  return *layout::DecodeSequenceKey(bytes.substr(at, 8));
}

struct Parsed {
  HeadSeal seal;
  std::string_view body;  // everything the MAC covers
  std::string_view mac;
};

// The key id a record names, readable as a seal or not; nullopt when it names none.
std::optional<std::string_view> NamedKeyId(std::string_view record) {
  if (record.size() < 12 + kKeyIdSize || !record.starts_with(kMagic)) return std::nullopt;
  return record.substr(12, kKeyIdSize);
}

// nullopt for bytes that are not a seal record of this version.
std::optional<Parsed> Parse(std::string_view record) {
  if (record.size() < kFixedSize + kMacSize || !record.starts_with(kMagic)) return std::nullopt;
  if (layout::DecodeU32(record.substr(8, 4)) != kVersion) return std::nullopt;
  const uint32_t count = *layout::DecodeU32(record.substr(kFixedSize - 4, 4));
  if (count > kMaxUnvouchedSpans ||
      record.size() != kFixedSize + size_t{count} * kSpanSize + kMacSize) {
    return std::nullopt;
  }
  Parsed parsed;
  parsed.seal.head.sequence = U64At(record, 12 + kKeyIdSize);
  std::memcpy(parsed.seal.head.hash.data(), record.data() + 28, 32);
  for (uint32_t i = 0; i < count; ++i) {
    const size_t at = kFixedSize + size_t{i} * kSpanSize;
    parsed.seal.unvouched.push_back({U64At(record, at), U64At(record, at + 8)});
  }
  parsed.body = record.substr(0, record.size() - kMacSize);
  parsed.mac = record.substr(record.size() - kMacSize);
  return parsed;
}

// Spans as a writer of this key stores them: ascending, disjoint, non-empty, within the head.
bool WellFormed(const HeadSeal& seal) {
  uint64_t after = 0;
  for (const SequenceSpan& span : seal.unvouched) {
    if (span.first <= after || span.last < span.first || span.last > seal.head.sequence) {
      return false;
    }
    after = span.last;
  }
  return true;
}

}  // namespace

Result<std::optional<Hash>> HeldHash(const HashAt& hash_at, uint64_t sequence) {
  auto stored = hash_at(sequence);
  if (stored.ok()) return std::optional<Hash>(*stored);
  if (stored.status().code() == Code::kNotFound) return std::optional<Hash>();
  return stored.status();
}

namespace {
constexpr std::string_view kCutBelowClaim = "the log ends at event ";
}  // namespace

bool SaysTheLogWasCut(const Status& status) {
  return status.code() == Code::kCorruption && status.message().starts_with(kCutBelowClaim);
}

Status CheckLogHolds(const Head& claimed, const Head& head, const HashAt& hash_at,
                     const HeadClaim& words) {
  const std::string named = "event " + std::to_string(claimed.sequence);
  if (claimed.sequence > head.sequence) {
    return Corruption(std::string(kCutBelowClaim) + std::to_string(head.sequence) + ", but " +
                      std::string(words.claims) + " " + named + ": " + std::string(words.cut));
  }
  auto stored = HeldHash(hash_at, claimed.sequence);
  if (!stored.ok()) return stored.status();
  if (*stored != claimed.hash) {
    return Corruption(named + " is not " + std::string(words.the_one) + " (hash " +
                      (*stored ? ToHex(**stored) : std::string("missing")) + ", " +
                      std::string(words.label) + " " + ToHex(claimed.hash) +
                      "): the log was rewritten from there or before");
  }
  return Status::Ok();
}

std::string SealKeyId(const SnapshotKey& key) {
  const auto hash = KeyedDomainHash(key, kKeyIdLabel, {});
  return std::string(reinterpret_cast<const char*>(hash.data()), kKeyIdSize);
}

std::string EncodeHeadSeal(const HeadSeal& seal, const SnapshotKey& key) {
  std::string out(kMagic);
  out += layout::EncodeU32(kVersion);
  out += SealKeyId(key);
  out += layout::EncodeSequenceKey(seal.head.sequence);
  out.append(reinterpret_cast<const char*>(seal.head.hash.data()), seal.head.hash.size());
  out += layout::EncodeU32(static_cast<uint32_t>(seal.unvouched.size()));
  for (const SequenceSpan& span : seal.unvouched) {
    out += layout::EncodeSequenceKey(span.first);
    out += layout::EncodeSequenceKey(span.last);
  }
  const auto mac = KeyedDomainHash(key, kMacLabel, out);
  out.append(reinterpret_cast<const char*>(mac.data()), mac.size());
  return out;
}

std::string UnvouchedNote(const SealVerdict& verdict, uint64_t head) {
  if (verdict.state == SealState::kNoKey || verdict.state == SealState::kOtherKey ||
      verdict.unvouched.empty()) {
    return "";
  }
  const std::string all = std::to_string(head) + (head == 1 ? " event" : " events");
  if (verdict.state == SealState::kAbsent) {
    return "the log has no head seal (never sealed, or its seal was removed): none of its " +
           all + " is vouched for";
  }
  const std::string listed = SpansText(verdict.unvouched);
  const bool one = verdict.unvouched.size() == 1 && verdict.unvouched[0].first == verdict.unvouched[0].last;
  return (one ? "event " : "events ") + listed + " of the log " + (one ? "carries" : "carry") +
         " no seal of this snapshot key (appended by a writer without it — one with another "
         "key, or with the seal off — or forged)";
}

std::string SpansText(const std::vector<SequenceSpan>& spans) {
  std::string listed;
  for (const SequenceSpan& span : spans) {
    listed += (listed.empty() ? "" : ", ") + std::to_string(span.first);
    if (span.last != span.first) listed += "-" + std::to_string(span.last);
  }
  return listed;
}

void AddUnvouched(std::vector<SequenceSpan>& spans, SequenceSpan added) {
  if (!spans.empty() && added.first <= spans.back().last + 1) {
    spans.back().last = std::max(spans.back().last, added.last);
  } else {
    spans.push_back(added);
  }
  while (spans.size() > kMaxUnvouchedSpans) {
    spans[1].first = spans[0].first;
    spans.erase(spans.begin());
  }
}

Result<SealVerdict> JudgeHeadSeal(std::optional<std::string_view> record, const SnapshotKey* key,
                                  const Head& head, const HashAt& hash_at) {
  SealVerdict verdict;
  if (key == nullptr) return verdict;
  const std::optional<std::string_view> named = record ? NamedKeyId(*record) : std::nullopt;
  if (!named || *named != SealKeyId(*key)) {
    verdict.state = record ? SealState::kOtherKey : SealState::kAbsent;
    if (named) {
      verdict.other_key_id = ToHex({reinterpret_cast<const uint8_t*>(named->data()), named->size()});
    }
    if (head.sequence > 0) verdict.unvouched.push_back({1, head.sequence});
    return verdict;
  }
  const std::optional<Parsed> parsed = Parse(*record);
  if (!parsed) {
    return Corruption("the head seal record of this key cannot be read (altered or damaged)");
  }
  const auto mac = KeyedDomainHash(*key, kMacLabel, parsed->body);
  if (sodium_memcmp(mac.data(), parsed->mac.data(), kMacSize) != 0 || !WellFormed(parsed->seal)) {
    return Corruption("the head seal record was altered (its MAC does not match this key)");
  }
  const Head& sealed = parsed->seal.head;
  if (sealed.sequence > 0) {  // a seal of no event claims nothing
    LAS_RETURN_IF_ERROR(CheckLogHolds(sealed, head, hash_at,
                                      {"its seal vouches for", "it was cut", "the one sealed",
                                       "sealed"}));
  }
  verdict.state = SealState::kSealed;
  verdict.through = sealed.sequence;
  verdict.unvouched = parsed->seal.unvouched;
  if (sealed.sequence < head.sequence) {
    AddUnvouched(verdict.unvouched, {sealed.sequence + 1, head.sequence});
  }
  return verdict;
}

}  // namespace las::log
