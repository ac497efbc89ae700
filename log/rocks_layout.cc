#include "log/rocks_layout.h"

#include <cstring>

namespace las::log::layout {
namespace {

void PutBigEndian(std::string& out, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) {
    out.push_back(static_cast<char>((value >> (8 * (width - 1 - i))) & 0xFF));
  }
}

uint64_t GetBigEndian(std::string_view bytes) {
  uint64_t value = 0;
  for (char c : bytes) value = (value << 8) | static_cast<uint8_t>(c);
  return value;
}

}  // namespace

std::string EncodeSequenceKey(uint64_t sequence) {
  std::string key;
  key.reserve(kSequenceKeySize);
  PutBigEndian(key, sequence, kSequenceKeySize);
  return key;
}

std::optional<uint64_t> DecodeSequenceKey(std::string_view key) {
  if (key.size() != kSequenceKeySize) return std::nullopt;
  return GetBigEndian(key);
}

std::string EncodeU32(uint32_t value) {
  std::string out;
  PutBigEndian(out, value, 4);
  return out;
}

std::optional<uint32_t> DecodeU32(std::string_view bytes) {
  if (bytes.size() != 4) return std::nullopt;
  return static_cast<uint32_t>(GetBigEndian(bytes));
}

std::string EncodeHead(const Head& head) {
  std::string out = EncodeSequenceKey(head.sequence);
  out.append(reinterpret_cast<const char*>(head.hash.data()), head.hash.size());
  return out;
}

std::optional<Head> DecodeHead(std::string_view bytes) {
  if (bytes.size() != kHeadValueSize) return std::nullopt;
  Head head;
  head.sequence = GetBigEndian(bytes.substr(0, kSequenceKeySize));
  std::memcpy(head.hash.data(), bytes.data() + kSequenceKeySize, kHashSize);
  return head;
}

}  // namespace las::log::layout
