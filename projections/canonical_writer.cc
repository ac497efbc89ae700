#include "projections/canonical_writer.h"

#include <cassert>
#include <charconv>

namespace las::projections {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// Length of the well-formed UTF-8 sequence at s[i] (Unicode Table 3-7), or 0 if the byte
// at s[i] does not start one.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b0 = byte(i);
  const size_t left = s.size() - i;
  const auto cont = [&](size_t k, uint8_t lo = 0x80, uint8_t hi = 0xBF) {
    return byte(i + k) >= lo && byte(i + k) <= hi;
  };
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return left >= 2 && cont(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (left < 3) return 0;
    const uint8_t lo = b0 == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
    const uint8_t hi = b0 == 0xED ? 0x9F : 0xBF;  // no surrogates
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (left < 4) return 0;
    const uint8_t lo = b0 == 0xF0 ? 0x90 : 0x80;  // no overlong forms
    const uint8_t hi = b0 == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

CanonicalWriter::CanonicalWriter(std::string* out) : out_(out) {}

CanonicalWriter::CanonicalWriter(Sink sink, void* context)
    : out_(&buffer_), sink_(sink), context_(context) {
  buffer_.reserve(kChunkBytes + 256);
}

void CanonicalWriter::BeginObject() {
  assert(depth_ < 63);
  Raw('{');
  ++depth_;
  has_members_ &= ~(uint64_t{1} << depth_);
#ifndef NDEBUG
  if (last_key_.size() <= static_cast<size_t>(depth_)) last_key_.resize(depth_ + 1);
  last_key_[depth_].clear();
#endif
}

void CanonicalWriter::EndObject() {
  assert(depth_ > 0);
  --depth_;
  Raw('}');
}

void CanonicalWriter::Uints(const std::vector<uint64_t>& values) {
  Raw('[');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) Raw(',');
    Uint(values[i]);
  }
  Raw(']');
}

void CanonicalWriter::Key(std::string_view key) {
  const uint64_t bit = uint64_t{1} << depth_;
#ifndef NDEBUG
  assert(depth_ > 0);
  assert((has_members_ & bit) == 0 || last_key_[depth_] < key);  // ascending, no duplicates
  last_key_[depth_].assign(key);
#endif
  if ((has_members_ & bit) != 0) Raw(',');
  has_members_ |= bit;
  String(key);
  Raw(':');
}

void CanonicalWriter::String(std::string_view value) {
  Raw('"');
  size_t i = 0;
  while (i < value.size()) {
    // The common case: a run of characters written as they are.
    size_t run = i;
    while (run < value.size()) {
      const auto c = static_cast<uint8_t>(value[run]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
      ++run;
    }
    if (run > i) {
      Raw(value.substr(i, run - i));
      i = run;
      continue;
    }
    const auto c = static_cast<uint8_t>(value[i]);
    if (c >= 0x80) {
      const size_t length = Utf8SequenceLength(value, i);
      if (length > 0) {
        Raw(value.substr(i, length));
        i += length;
      } else {
        const char escaped[] = {'\\', 'u', 'd', 'c', kHexDigits[c >> 4], kHexDigits[c & 0xF]};
        Raw(std::string_view(escaped, sizeof escaped));
        ++i;
      }
      continue;
    }
    switch (c) {
      case '"': Raw("\\\""); break;
      case '\\': Raw("\\\\"); break;
      case '\b': Raw("\\b"); break;
      case '\f': Raw("\\f"); break;
      case '\n': Raw("\\n"); break;
      case '\r': Raw("\\r"); break;
      case '\t': Raw("\\t"); break;
      default: {
        const char escaped[] = {'\\', 'u', '0', '0', kHexDigits[c >> 4], kHexDigits[c & 0xF]};
        Raw(std::string_view(escaped, sizeof escaped));
      }
    }
    ++i;
  }
  Raw('"');
}

void CanonicalWriter::Uint(uint64_t value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  Raw(std::string_view(digits, static_cast<size_t>(end - digits)));
}

void CanonicalWriter::Int(int64_t value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  Raw(std::string_view(digits, static_cast<size_t>(end - digits)));
}

void CanonicalWriter::Bool(bool value) { Raw(value ? std::string_view("true") : "false"); }

void CanonicalWriter::Flush() {
  if (sink_ == nullptr || buffer_.empty()) return;
  sink_(context_, buffer_);
  buffer_.clear();
}

void CanonicalWriter::Finish() { Flush(); }

}  // namespace las::projections
