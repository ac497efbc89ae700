// StateWriter / StateReader: the small binary codec projections use for their snapshot
// state (Projection::Save / Restore). Integers are unsigned LEB128 varints (signed ones
// zig-zag encoded), strings a varint length and the bytes, fixed-size bytes (hashes) as they are. The reader is bounded: every
// Read* returns false instead of reading past the end, and a reader that failed once
// stays failed, so a projection may read a whole record and check ok() at the end.
//
// The layout of a projection's bytes is that projection's business; it changes only with
// projections::ProjectionSet::kVersion (projections/projection_set.h).
// Not thread-safe; one writer or reader per record.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace las::projections {

class StateWriter {
 public:
  explicit StateWriter(std::string* out) : out_(out) {}
  void Uint(uint64_t value) {
    while (value >= 0x80) {
      out_->push_back(static_cast<char>((value & 0x7F) | 0x80));
      value >>= 7;
    }
    out_->push_back(static_cast<char>(value));
  }
  void Int(int64_t value) {
    Uint((static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63));
  }
  void Bool(bool value) { Uint(value ? 1 : 0); }
  void String(std::string_view value) {
    Uint(value.size());
    out_->append(value);
  }
  // A fixed number of raw bytes (a hash), no length: the reader knows how many.
  void Fixed(std::span<const uint8_t> bytes) {
    out_->append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }

 private:
  std::string* out_;
};

class StateReader {
 public:
  explicit StateReader(std::string_view bytes) : bytes_(bytes) {}
  bool Uint(uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64 && ok_; shift += 7) {
      if (pos_ >= bytes_.size()) return ok_ = false;
      const auto byte = static_cast<uint8_t>(bytes_[pos_++]);
      value |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return ok_ = false;  // more than ten bytes, or failed before
  }
  bool Int(int64_t& value) {
    uint64_t raw = 0;
    if (!Uint(raw)) return false;
    value = static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
    return true;
  }
  bool Bool(bool& value) {
    uint64_t raw = 0;
    if (!Uint(raw) || raw > 1) return ok_ = false;
    value = raw == 1;
    return true;
  }
  bool String(std::string& value) {
    uint64_t size = 0;
    if (!Uint(size) || size > bytes_.size() - pos_) return ok_ = false;
    value.assign(bytes_.substr(pos_, size));
    pos_ += size;
    return true;
  }
  bool Fixed(std::span<uint8_t> bytes) {
    if (!ok_ || bytes.size() > bytes_.size() - pos_) return ok_ = false;
    std::memcpy(bytes.data(), bytes_.data() + pos_, bytes.size());
    pos_ += bytes.size();
    return true;
  }
  // Marks the record as bad (a value the codec read but the projection refuses).
  void Fail() { ok_ = false; }
  // Bytes not read yet.
  size_t remaining() const { return bytes_.size() - pos_; }
  // Every read so far succeeded.
  bool ok() const { return ok_; }
  // Every read succeeded and every byte was consumed.
  bool done() const { return ok_ && pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace las::projections
