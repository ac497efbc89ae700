#include "cli/release_settings.h"

#include "base/absolute_path.h"
#include "trust/rfc3339.h"

namespace las::cli {

std::string FlagOrEnv(const std::string& flag, const trust::Environment& env, const char* variable) {
  if (!flag.empty()) return flag;
  auto it = env.find(variable);
  return it == env.end() ? std::string() : it->second;
}

std::string PathFlagOrEnv(const std::string& flag, const trust::Environment& env, const char* variable) {
  if (flag.empty()) return FlagOrEnv(flag, env, variable);
  return AbsolutePath(flag);
}

std::string NodeExecutable(const trust::Environment& env) {
  auto node = env.find("LAS_NODE");
  return node == env.end() ? std::string() : node->second;
}

Result<int64_t> ParseDurationSeconds(const std::string& text) {
  const std::string usage = "duration \"" + text + "\": expected a count and a unit, e.g. 30d, 12h, 90m, 2w";
  const std::string too_long = "duration \"" + text + "\" is longer than 366d; keep release expiries short";
  if (text.size() < 2) return InvalidArgument(usage);
  int64_t count = 0;
  size_t significant_digits = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return InvalidArgument(usage);
    if (count == 0 && text[i] == '0') continue;
    // Twelve digits are past every bound already; more would overflow (probe IZ4 was told
    // "expected a count and a unit" for 99999999999999999999d).
    if (++significant_digits <= 12) count = count * 10 + (text[i] - '0');
  }
  const bool overlong = significant_digits > 12;
  int64_t unit = 0;
  switch (text.back()) {
    case 's': unit = 1; break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    case 'd': unit = 86400; break;
    case 'w': unit = 7 * 86400; break;
    default: return InvalidArgument(usage);
  }
  if (!overlong && count <= 0) return InvalidArgument("duration \"" + text + "\" must be positive");
  if (overlong || count > kMaxExpiresInSeconds / unit) return InvalidArgument(too_long);
  return count * unit;
}

Result<int64_t> CheckTime(const std::optional<std::string>& at, int64_t now_micros) {
  if (!at) return now_micros;
  if (at->empty()) {
    return InvalidArgument("--at \"\": an empty instant; give one (RFC 3339 UTC), or leave --at "
                           "out to check as of now");
  }
  Result<int64_t> parsed = trust::ParseRfc3339UtcMicros(*at);
  if (!parsed.ok()) return InvalidArgument("--at \"" + *at + "\": " + parsed.status().message());
  return parsed;
}

tools::ReleaseCheckOptions ReleaseFilesFromFlags(const std::string& manifest,
                                                 const std::string& signature,
                                                 const std::string& trust_store,
                                                 const std::string& watermark,
                                                 const trust::Environment& env) {
  tools::ReleaseCheckOptions options;
  options.paths.manifest = PathFlagOrEnv(manifest, env, trust::kEnvReleaseManifest);
  options.paths.signature = PathFlagOrEnv(signature, env, trust::kEnvReleaseSignature);
  options.paths.trust_store = PathFlagOrEnv(trust_store, env, trust::kEnvTrustStore);
  options.paths.watermark = PathFlagOrEnv(watermark, env, trust::kEnvReleaseWatermark);
  options.manifest_name = "LAS_RELEASE_MANIFEST (--manifest)";
  options.signature_name = "LAS_RELEASE_SIGNATURE (--signature)";
  options.trust_store_name = "LAS_TRUST_STORE (--trust-store)";
  options.watermark_name = "LAS_RELEASE_WATERMARK (--watermark)";
  return options;
}

}  // namespace las::cli
