// CanonicalWriter: writes a projection's canonical JSON straight into a sink — a string
// (CanonicalJson(), for inspection) or a running SHA-256 (Digest()) — without building a
// JSON tree. Both are fed the same calls, so the digest is always the SHA-256 of exactly
// the text CanonicalJson() returns.
//
// The text (docs/ARCHITECTURE.md, "Projection digests"):
//   - compact: no whitespace;
//   - object members in ascending byte order of their keys. The caller writes them in that
//     order (debug builds check it);
//   - integers in decimal, booleans as true/false;
//   - strings as UTF-8 with the escapes of JSON.stringify (and nlohmann::json::dump):
//     \" \\ \b \f \n \r \t, other control characters as \u00xx (lowercase hex), every other
//     character as itself. A byte that is not part of a well-formed UTF-8 sequence is
//     written as \udcXX (XX its value; the "surrogateescape" convention of PEP 383), so any
//     bytes give valid JSON text and different strings never give the same text.
//
// Not thread-safe; one writer per serialization.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace las::projections {

class CanonicalWriter {
 public:
  // Receives the text in order, in chunks of about kChunkBytes. `context` is passed through.
  using Sink = void (*)(void* context, std::string_view bytes);
  static constexpr size_t kChunkBytes = 64 << 10;

  // Appends everything to `*out`, which must outlive the writer.
  explicit CanonicalWriter(std::string* out);
  // Hands the text to `sink` in chunks; call Finish() to flush the rest.
  CanonicalWriter(Sink sink, void* context);
  CanonicalWriter(const CanonicalWriter&) = delete;
  CanonicalWriter& operator=(const CanonicalWriter&) = delete;

  void BeginObject();
  void EndObject();
  // The next member's key (the comma before it is written for you). Keys of one object
  // must come in ascending byte order.
  void Key(std::string_view key);
  void String(std::string_view value);
  void Uint(uint64_t value);
  void Int(int64_t value);
  void Bool(bool value);
  // An array of unsigned integers, in the given order.
  void Uints(const std::vector<uint64_t>& values);

  // Hands whatever is buffered to the sink (no-op when writing into a string).
  void Finish();

 private:
  void Raw(std::string_view bytes) {
    out_->append(bytes);
    if (sink_ != nullptr && out_->size() >= kChunkBytes) Flush();
  }
  void Raw(char c) {
    out_->push_back(c);
    if (sink_ != nullptr && out_->size() >= kChunkBytes) Flush();
  }
  void Flush();

  std::string buffer_;   // used with a sink
  std::string* out_;     // where bytes go: buffer_ or the caller's string
  Sink sink_ = nullptr;
  void* context_ = nullptr;
  uint64_t has_members_ = 0;  // bit d: the object at depth d has a member already
  int depth_ = 0;
#ifndef NDEBUG
  std::vector<std::string> last_key_;  // per depth, to check the member order
#endif
};

}  // namespace las::projections
