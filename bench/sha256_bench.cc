// las_sha256_bench: SHA-256 through Las's hasher (base/sha256.h, OpenSSL's libcrypto) and
// through libsodium, which Las used before, side by side over the same buffers (Google
// Benchmark; compare the bytes_per_second of each pair). Results: docs/PERFORMANCE.md,
// "SHA-256".
#include <benchmark/benchmark.h>
#include <sodium.h>

#include <string>

#include "base/sha256.h"

namespace {

std::string Buffer(benchmark::State& state) {
  return std::string(static_cast<size_t>(state.range(0)), 'x');
}

void Libcrypto(benchmark::State& state) {
  const std::string bytes = Buffer(state);
  for (auto _ : state) benchmark::DoNotOptimize(las::Sha256Hasher::Of(bytes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

void Libsodium(benchmark::State& state) {
  if (sodium_init() < 0) state.SkipWithError("sodium_init failed");
  const std::string bytes = Buffer(state);
  unsigned char out[crypto_hash_sha256_BYTES];
  for (auto _ : state) {
    crypto_hash_sha256(out, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

// 64 B: a handle id's input; 400 B: a small state value; 4 KiB; 1 MiB: a large value; 64 MiB:
// a binary checked at launch.
#define SIZES Arg(64)->Arg(400)->Arg(4096)->Arg(1 << 20)->Arg(64 << 20)
BENCHMARK(Libcrypto)->SIZES;
BENCHMARK(Libsodium)->SIZES;

}  // namespace

BENCHMARK_MAIN();
