#include "tools/random_id.h"

#include <pthread.h>
#include <sodium.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>

#include "base/hex.h"

namespace las::tools {
namespace {

constexpr size_t kIdBytes = 16;
constexpr size_t kBlockBytes = 32 * kIdBytes;

// Bumped in every child process fork(2) creates: a block filled before the fork is stale.
std::atomic<uint64_t> fork_generation{0};

struct Block {
  std::array<uint8_t, kBlockBytes> bytes{};
  size_t next = kBlockBytes;  // the first byte not yet handed out
  uint64_t generation = 0;
  ~Block() { sodium_memzero(bytes.data(), bytes.size()); }
};

void Initialize() {
  static std::once_flag once;
  std::call_once(once, [] {
    // -1 means libsodium cannot initialize, and then no id is safe.
    if (sodium_init() < 0) std::abort();
    if (pthread_atfork(nullptr, nullptr, [] { fork_generation.fetch_add(1); }) != 0) std::abort();
  });
}

void Draw(uint8_t* out) {
  thread_local Block block;
  const uint64_t generation = fork_generation.load(std::memory_order_relaxed);
  if (block.next == kBlockBytes || block.generation != generation) {
    Initialize();  // every thread's first draw refills, so this runs before any byte is used
    randombytes_buf(block.bytes.data(), block.bytes.size());
    block.next = 0;
    block.generation = generation;
  }
  uint8_t* bytes = block.bytes.data() + block.next;
  std::copy(bytes, bytes + kIdBytes, out);
  sodium_memzero(bytes, kIdBytes);
  block.next += kIdBytes;
}

}  // namespace

std::string RandomId(std::string_view prefix) {
  std::array<uint8_t, kIdBytes> bytes{};
  Draw(bytes.data());
  return std::string(prefix) + ToHex(bytes);
}

bool IsRandomIdShape(std::string_view id, std::string_view prefix) {
  if (!id.starts_with(prefix) || id.size() != prefix.size() + 2 * kIdBytes) return false;
  return std::all_of(id.begin() + static_cast<std::ptrdiff_t>(prefix.size()), id.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace las::tools
