#include "base/sha256.h"

#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>

namespace las {
namespace {

[[noreturn]] void Abort(const char* what) {
  std::fprintf(stderr, "las: SHA-256 (libcrypto) failed: %s\n", what);
  std::abort();
}

// Fetched once: looking the algorithm up per digest costs more than hashing a few hundred
// bytes.
const EVP_MD* Algorithm() {
  static const EVP_MD* const md = [] {
    EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (fetched == nullptr) Abort("no SHA256 implementation");
    return fetched;
  }();
  return md;
}

void Start(EVP_MD_CTX* ctx) {
  if (EVP_DigestInit_ex2(ctx, Algorithm(), nullptr) != 1) Abort("init");
}

}  // namespace

Sha256Hasher::Sha256Hasher() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) Abort("out of memory");
  Start(ctx_);
}

Sha256Hasher::~Sha256Hasher() { EVP_MD_CTX_free(ctx_); }

void Sha256Hasher::Update(std::span<const uint8_t> bytes) {
  if (!bytes.empty() && EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()) != 1) Abort("update");
}

void Sha256Hasher::Update(std::string_view bytes) {
  Update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

Sha256Hasher::Digest Sha256Hasher::Finish() {
  Digest out;
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx_, out.data(), &size) != 1 || size != out.size()) Abort("final");
  Start(ctx_);
  return out;
}

Sha256Hasher::Digest Sha256Hasher::Of(std::span<const uint8_t> bytes) {
  thread_local Sha256Hasher hasher;
  hasher.Update(bytes);
  return hasher.Finish();
}

Sha256Hasher::Digest Sha256Hasher::Of(std::string_view bytes) {
  return Of(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

}  // namespace las
