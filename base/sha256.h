// Sha256Hasher: SHA-256 (FIPS 180-4), streaming or one-shot, through OpenSSL's libcrypto,
// which uses the CPU's SHA extensions where it has them: ~5x libsodium's portable SHA-256
// on the development machine at every size from 64 bytes to 64 MiB (docs/PERFORMANCE.md,
// "SHA-256"). The digests are the standard ones; tests/base cross-checks them against the
// FIPS 180-4 examples and libsodium.
//
// Thread safety: one hasher per thread at a time; Of() may be called from any thread.
// Errors: none short of memory exhaustion inside libcrypto, which aborts — a digest is
// never returned partly computed.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX, kept out of this header

namespace las {

class Sha256Hasher {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void Update(std::span<const uint8_t> bytes);
  void Update(std::string_view bytes);
  // The digest of everything given since construction or the last Finish(); the hasher
  // then starts over.
  Digest Finish();

  // The digest of `bytes` (a per-thread hasher: no allocation per call).
  static Digest Of(std::span<const uint8_t> bytes);
  static Digest Of(std::string_view bytes);

 private:
  evp_md_ctx_st* ctx_;
};

}  // namespace las
