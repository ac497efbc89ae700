// las_credential_scan_bench: what looking for credentials in a child's result costs
// (tools/credentials.h, CredentialSpellings::EchoedIn, run on every result of every surface
// once any credential is configured), beside two passes the gateway makes over the same
// result anyway: a JSON parse (nlohmann's accept) and SHA-256 (the log's hash of what it
// records). Google Benchmark; compare bytes_per_second across rows of one size and shape.
// Results: docs/PERFORMANCE.md, "Credential scan".
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/sha256.h"
#include "tools/credentials.h"

namespace {

enum Shape { kText = 0, kBase64 = 1, kManyStrings = 2 };

// A tools/call result of about `bytes` bytes: one text item of prose, one of base64 (an
// image), or structuredContent of many short strings (a listing).
std::string Result(Shape shape, size_t bytes) {
  std::string body;
  if (shape == kText) {
    const std::string sentence = "The quick brown fox jumps over the lazy dog near 42 rivers. ";
    while (body.size() < bytes) body += sentence;
    return nlohmann::json{{"content", {{{"type", "text"}, {"text", body}}}}}.dump();
  }
  if (shape == kBase64) {
    const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint32_t state = 12345;
    while (body.size() < bytes) {
      state = state * 1103515245u + 12345u;
      body.push_back(alphabet[(state >> 16) % 64]);
    }
    return nlohmann::json{{"content", {{{"type", "image"}, {"data", body}, {"mimeType", "image/png"}}}}}
        .dump();
  }
  nlohmann::json items = nlohmann::json::array();
  for (size_t i = 0; items.dump().size() < bytes; ++i) {
    items.push_back({{"id", i}, {"name", "file-" + std::to_string(i) + ".txt"}, {"size", i * 37}});
  }
  return nlohmann::json{{"content", nlohmann::json::array()}, {"structuredContent", {{"items", items}}}}
      .dump();
}

std::vector<std::string> Credentials(int count) {
  std::vector<std::string> values;
  for (int i = 0; i < count; ++i) {
    values.push_back("ghp_" + std::to_string(i) + "R4nd0mT0kenV4lue1234567890abcdef");
  }
  return values;
}

void Record(benchmark::State& state, size_t bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

// range(0): shape, range(1): bytes, range(2): credentials configured.
void Scan(benchmark::State& state) {
  const std::string result = Result(static_cast<Shape>(state.range(0)), static_cast<size_t>(state.range(1)));
  const las::tools::CredentialSpellings spellings(Credentials(static_cast<int>(state.range(2))));
  for (auto _ : state) {
    if (spellings.EchoedIn(result)) state.SkipWithError("a credential was found by chance");
  }
  Record(state, result.size());
}

void JsonAccept(benchmark::State& state) {
  const std::string result = Result(static_cast<Shape>(state.range(0)), static_cast<size_t>(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(nlohmann::json::accept(result));
  Record(state, result.size());
}

void Sha256(benchmark::State& state) {
  const std::string result = Result(static_cast<Shape>(state.range(0)), static_cast<size_t>(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(las::Sha256Hasher::Of(result));
  Record(state, result.size());
}

void Shapes(benchmark::internal::Benchmark* b, bool with_credentials) {
  for (int64_t shape : {kText, kBase64, kManyStrings}) {
    for (int64_t bytes : {4 << 10, 64 << 10, 1 << 20}) {
      if (!with_credentials) {
        b->Args({shape, bytes});
        continue;
      }
      for (int64_t credentials : {1, 12}) b->Args({shape, bytes, credentials});
    }
  }
}

BENCHMARK(Scan)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, true); });
BENCHMARK(JsonAccept)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, false); });
BENCHMARK(Sha256)->Apply([](benchmark::internal::Benchmark* b) { Shapes(b, false); });

}  // namespace

BENCHMARK_MAIN();
