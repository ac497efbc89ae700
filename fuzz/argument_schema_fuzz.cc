// Feeds: a tool's inputSchema and a call's arguments ("SCHEMA\0ARGUMENTS"; no NUL: the
// arguments are empty, which means {}) to trust::CompileArgumentSchema and
// ValidateArguments / ValidateInstance — the check every tools/call passes before it is
// logged, including `pattern` / `patternProperties` through RE2.
// Checks, besides no crash: the one-pass accept of flat schemas (fast_accept) and the
// full valijson path give the same verdict, reason and detail (argument_schema.h promises
// "the same verdicts either way"); with LAS_FUZZ_SLOW_MS set, no input takes longer.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "trust/argument_schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  las::fuzz::SlowInputGuard slow;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view schema_text = input.substr(0, nul);
  const std::string_view arguments =
      nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);

  las::trust::ArgumentSchemaLimits fast_limits;
  auto fast = las::trust::CompileArgumentSchema(schema_text, fast_limits);
  las::trust::ArgumentSchemaLimits full_limits;
  full_limits.fast_accept = false;
  auto full = las::trust::CompileArgumentSchema(schema_text, full_limits);
  LAS_FUZZ_CHECK(fast.ok() == full.ok(), "compile depends on fast_accept");
  if (!fast.ok()) return 0;

  const las::trust::Verdict a = las::trust::ValidateArguments(*fast, arguments);
  const las::trust::Verdict b = las::trust::ValidateArguments(*full, arguments);
  LAS_FUZZ_CHECK(a.ok() == b.ok(), "fast accept and the full path disagree");
  LAS_FUZZ_CHECK(a.reason() == b.reason() && a.detail() == b.detail(),
                 "fast accept and the full path give different refusals");
  (void)las::trust::ValidateInstance(*fast, arguments);
  return 0;
}
