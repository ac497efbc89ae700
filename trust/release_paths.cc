#include "trust/release_paths.h"

namespace las::trust {

Verdict CheckAbsolutePath(const std::string& name, const std::string& value) {
  if (value.empty()) return Reject(Reason::kNotConfigured, name + " is not set");
  if (value.find('\0') != std::string::npos) {
    return Reject(Reason::kNotAbsolute, name + " contains a NUL byte");
  }
  if (value.front() != '/') {
    return Reject(Reason::kNotAbsolute,
                  name + "=\"" + value + "\" is a relative path; it must be absolute");
  }
  return Verdict::Accept();
}

VerdictOr<ReleasePaths> ReleasePathsFromEnvironment(const Environment& env) {
  ReleasePaths paths;
  const std::pair<const char*, std::string*> wanted[] = {
      {kEnvReleaseManifest, &paths.manifest},
      {kEnvReleaseSignature, &paths.signature},
      {kEnvTrustStore, &paths.trust_store},
      {kEnvReleaseWatermark, &paths.watermark},
  };
  for (const auto& [name, out] : wanted) {
    auto it = env.find(name);
    const std::string value = it == env.end() ? std::string() : it->second;
    LAS_RETURN_IF_REJECTED(CheckAbsolutePath(name, value));
    *out = value;
  }
  return paths;
}

}  // namespace las::trust
