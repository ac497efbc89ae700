// las_validation_bench: what one tools/call argument validation costs (trust/argument_schema.h),
// split into its stages: the strict parse alone, the whole ValidateArguments on the full
// path (strict tree + valijson), and ValidateArguments as served, which accepts flat
// schemas in one pass (trust/flat_argument_check_internal.h) — for the schemas the
// benchmarks call most: server-everything's `echo` and Las's own state_cas (Google
// Benchmark). Results: docs/PERFORMANCE.md, "Argument validation".
#include <benchmark/benchmark.h>

#include <string>

#include "trust/argument_schema.h"
#include "trust/strict_json_internal.h"

namespace {

constexpr const char* kEchoSchema =
    R"({"type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},)"
    R"("required":["message"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"})";
constexpr const char* kEchoArguments = R"({"message":"hello from the benchmark"})";

constexpr const char* kCasSchema =
    R"({"type":"object","properties":{)"
    R"("scope":{"type":"string","enum":["private","blackboard"],"description":"private or blackboard"},)"
    R"("key":{"type":"string","minLength":1,"maxLength":256},)"
    R"("value":{"description":"any JSON value"},)"
    R"("value_json":{"type":"string","description":"the value as JSON text"},)"
    R"("expected_version":{"type":"integer","minimum":0}},)"
    R"("required":["key","expected_version"],"additionalProperties":false})";
constexpr const char* kCasArguments =
    R"({"scope":"blackboard","key":"agent-07/counter","expected_version":41,)"
    R"("value":{"n":42,"by":"agent-07","note":"a small JSON value"}})";

void StrictParse(benchmark::State& state, const char* text) {
  for (auto _ : state) benchmark::DoNotOptimize(las::trust::internal::ParseStrictJson(text));
}

void Validate(benchmark::State& state, const char* schema_text, const char* arguments,
              bool fast_accept) {
  las::trust::ArgumentSchemaLimits limits;
  limits.fast_accept = fast_accept;
  auto schema = las::trust::CompileArgumentSchema(schema_text, limits);
  if (!schema.ok()) {
    state.SkipWithError("the schema does not compile");
    return;
  }
  for (auto _ : state) {
    las::trust::Verdict verdict = las::trust::ValidateArguments(*schema, arguments);
    if (!verdict.ok()) state.SkipWithError("the arguments were refused");
    benchmark::DoNotOptimize(verdict);
  }
}

BENCHMARK_CAPTURE(StrictParse, echo, kEchoArguments);
BENCHMARK_CAPTURE(Validate, echo_full_path, kEchoSchema, kEchoArguments, false);
BENCHMARK_CAPTURE(Validate, echo, kEchoSchema, kEchoArguments, true);
BENCHMARK_CAPTURE(StrictParse, state_cas, kCasArguments);
BENCHMARK_CAPTURE(Validate, state_cas_full_path, kCasSchema, kCasArguments, false);
BENCHMARK_CAPTURE(Validate, state_cas, kCasSchema, kCasArguments, true);

}  // namespace

BENCHMARK_MAIN();
