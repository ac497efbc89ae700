// Whether this build runs under AddressSanitizer (the asan preset, with UBSan). Its runtime
// needs resources of its own: at an exhausted open-file limit UBSan cannot check memory (it
// probes readability through a pipe) and reports valid objects as having an "invalid vptr",
// so a test of how `las` behaves without descriptors cannot run there.
#pragma once

namespace las::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

inline constexpr char kSanitizerNeedsDescriptors[] =
    "under the sanitizers, whose runtime itself needs descriptors at the limit (see "
    "tests/support/sanitizers.h); the debug and release suites run it";

}  // namespace las::testing
