#include "log/snapshot.h"

#include <sodium.h>

#include <cstring>

namespace las::log {
namespace {

// FORMAT.md §Snapshots.
constexpr std::string_view kMagic = "las.snap";
// The trailing NUL is part of the label, as in the chain hash's.
constexpr std::string_view kSealLabel{"las.snapshot.v2\0", 16};
constexpr size_t kSealSize = 32;
constexpr size_t kMaxNameSize = 255;
// magic, format version, projection-set version, sequence, event hash, count
constexpr size_t kHeaderSize = 8 + 4 + 4 + 8 + 32 + 4;
static_assert(crypto_generichash_BYTES == kSealSize);
static_assert(std::tuple_size_v<SnapshotKey> >= crypto_generichash_KEYBYTES_MIN &&
              std::tuple_size_v<SnapshotKey> <= crypto_generichash_KEYBYTES_MAX);

void PutBE(std::string& out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

std::array<uint8_t, kSealSize> Seal(std::string_view bytes, const SnapshotKey& key) {
  return KeyedDomainHash(key, kSealLabel, bytes);
}

// Bounded reads from the record; every Take* fails instead of reading past the end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool TakeBE(int width, uint64_t& value) {
    if (left() < static_cast<size_t>(width)) return false;
    value = 0;
    for (int i = 0; i < width; ++i) value = (value << 8) | static_cast<uint8_t>(bytes_[pos_ + i]);
    pos_ += static_cast<size_t>(width);
    return true;
  }
  bool TakeBytes(size_t n, std::string_view& out) {
    if (left() < n) return false;
    out = bytes_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  size_t left() const { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

Status Damaged(const std::string& what) { return Corruption("snapshot record: " + what); }

}  // namespace

std::string EncodeSnapshot(const Snapshot& snapshot, const SnapshotKey& key) {
  std::string out;
  size_t size = kHeaderSize + kSealSize;
  for (const auto& p : snapshot.projections) size += 1 + p.name.size() + 32 + 8 + p.state.size();
  out.reserve(size);
  out.append(kMagic);
  PutBE(out, kSnapshotFormatVersion, 4);
  PutBE(out, snapshot.projection_set_version, 4);
  PutBE(out, snapshot.sequence, 8);
  out.append(reinterpret_cast<const char*>(snapshot.event_hash.data()), snapshot.event_hash.size());
  PutBE(out, snapshot.projections.size(), 4);
  for (const auto& p : snapshot.projections) {
    // Names are short constants (Projection::name()); a longer one is cut, and the loader
    // then finds no such projection and ignores the snapshot.
    const size_t name_size = std::min(p.name.size(), kMaxNameSize);
    PutBE(out, name_size, 1);
    out.append(p.name, 0, name_size);
    out.append(reinterpret_cast<const char*>(p.digest.data()), p.digest.size());
    PutBE(out, p.state.size(), 8);
    out.append(p.state);
  }
  const auto seal = Seal(out, key);
  out.append(reinterpret_cast<const char*>(seal.data()), seal.size());
  return out;
}

Result<Snapshot> DecodeSnapshot(std::string_view record, const SnapshotKey& key) {
  if (record.size() < kHeaderSize + kSealSize) return Damaged("too short");
  if (record.substr(0, kMagic.size()) != kMagic) return Damaged("wrong magic");
  Reader header(record.substr(kMagic.size()));
  uint64_t version = 0;
  header.TakeBE(4, version);
  if (version != kSnapshotFormatVersion) {
    return Unsupported("snapshot record format version " + std::to_string(version) +
                       " (this Las reads " + std::to_string(kSnapshotFormatVersion) + ")");
  }
  const std::string_view body = record.substr(0, record.size() - kSealSize);
  const auto seal = Seal(body, key);
  if (sodium_memcmp(seal.data(), record.data() + body.size(), kSealSize) != 0) {
    return Damaged("seal mismatch (damaged, or sealed with another key)");
  }

  Reader in(body.substr(kMagic.size() + 4));
  Snapshot snapshot;
  uint64_t value = 0;
  std::string_view bytes;
  if (!in.TakeBE(4, value)) return Damaged("truncated header");
  snapshot.projection_set_version = static_cast<uint32_t>(value);
  if (!in.TakeBE(8, snapshot.sequence)) return Damaged("truncated header");
  if (!in.TakeBytes(32, bytes)) return Damaged("truncated header");
  std::memcpy(snapshot.event_hash.data(), bytes.data(), 32);
  uint64_t count = 0;
  if (!in.TakeBE(4, count)) return Damaged("truncated header");
  for (uint64_t i = 0; i < count; ++i) {
    ProjectionState p;
    uint64_t name_size = 0;
    if (!in.TakeBE(1, name_size) || !in.TakeBytes(name_size, bytes)) {
      return Damaged("truncated projection name");
    }
    p.name.assign(bytes);
    if (!in.TakeBytes(32, bytes)) return Damaged("truncated projection digest");
    std::memcpy(p.digest.data(), bytes.data(), 32);
    uint64_t state_size = 0;
    if (!in.TakeBE(8, state_size) || state_size > in.left() || !in.TakeBytes(state_size, bytes)) {
      return Damaged("truncated projection state");
    }
    p.state.assign(bytes);
    snapshot.projections.push_back(std::move(p));
  }
  if (in.left() != 0) return Damaged("trailing bytes");
  return snapshot;
}

}  // namespace las::log
