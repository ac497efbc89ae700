// Where the `las release` and `las check` verbs take their settings from: a flag when
// given, else the documented environment variable (LAS_RELEASE_MANIFEST,
// LAS_RELEASE_SIGNATURE, LAS_TRUST_STORE, LAS_RELEASE_WATERMARK, LAS_WORKSPACE), read
// once from the process environment snapshot. Also the small value parsers those verbs
// share (durations, check times).
// Thread safety: free functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "tools/surface_check.h"
#include "trust/environment.h"

namespace las::cli {

// `flag` if non-empty, else the variable's value in `env`, else "".
std::string FlagOrEnv(const std::string& flag, const trust::Environment& env, const char* variable);

// Like FlagOrEnv, but a relative flag is made absolute against the current directory (a
// flag is typed now, here). A relative *variable* is returned as it is, so the check
// reports it as `not-absolute`, exactly as `las serve` would refuse it.
std::string PathFlagOrEnv(const std::string& flag, const trust::Environment& env, const char* variable);

// The four release files for `las check` and `las release verify`: each flag when given,
// else its variable, named in details as "LAS_RELEASE_MANIFEST (--manifest)" and so on.
// The caller sets check_watermark and now_micros.
tools::ReleaseCheckOptions ReleaseFilesFromFlags(const std::string& manifest,
                                                 const std::string& signature,
                                                 const std::string& trust_store,
                                                 const std::string& watermark,
                                                 const trust::Environment& env);

// The Node executable a surface may name as its command: LAS_NODE, as `las serve` reads
// it (cli/serve_command.cc); "" (Node not allowed) when unset.
std::string NodeExecutable(const trust::Environment& env);

inline constexpr int64_t kMaxExpiresInSeconds = 366LL * 86400;

// "30d", "12h", "90m", "45s", "2w": a positive count and one unit. InvalidArgument
// otherwise, or above kMaxExpiresInSeconds (keep expiries short: docs/RELEASES.md).
Result<int64_t> ParseDurationSeconds(const std::string& text);

// `--at`: not given = `now_micros`; otherwise an RFC 3339 UTC instant (trust/rfc3339.h).
// An empty value is InvalidArgument, not "now": `--at "$WHEN"` with WHEN unset must not
// quietly check as of now (probe BW4).
Result<int64_t> CheckTime(const std::optional<std::string>& at, int64_t now_micros);

}  // namespace las::cli
