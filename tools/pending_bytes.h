// PendingBytes: bytes read from one side of a byte copy and not yet written to the other.
//
// The copier stops reading a side while its bytes wait here beyond kHighWater, so a peer
// that does not read holds back only the peer that writes to it, as a direct pipe would.
// Memory is bounded too: the written prefix is dropped once it reaches kHighWater, so a
// buffer that never drains completely (the reader a little slower than the writer) holds
// at most about twice kHighWater plus one read, however many bytes pass (probe P5: it kept
// every byte that passed).
//
// Thread safety: none; one copier thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace las::tools {

class PendingBytes {
 public:
  static constexpr size_t kHighWater = 1 << 20;

  bool empty() const { return data_.size() == sent_; }
  bool full() const { return data_.size() - sent_ >= kHighWater; }
  void Add(const char* bytes, size_t n) { data_.append(bytes, n); }
  std::string_view view() const { return std::string_view(data_).substr(sent_); }
  void Consume(size_t n) {
    sent_ += n;
    if (sent_ == data_.size()) {
      data_.clear();
      sent_ = 0;
    } else if (sent_ >= kHighWater) {
      data_.erase(0, sent_);
      sent_ = 0;
    }
  }
  void Clear() { Consume(data_.size() - sent_); }
  // Bytes held, written or not (what the buffer costs).
  size_t held() const { return data_.capacity(); }

 private:
  std::string data_;
  size_t sent_ = 0;
};

}  // namespace las::tools
