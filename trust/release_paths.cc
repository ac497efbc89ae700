#include "trust/release_paths.h"

namespace las::trust {

Verdict CheckAbsolutePath(const std::string& name, const std::string& value) {
  if (value.empty()) return Reject(Reason::kNotConfigured, name + " is not set");
  if (value.find('\0') != std::string::npos) {
    return Reject(Reason::kNotAbsolute, name + " contains a NUL byte");
  }
  if (value.front() != '/') {
    // The value is not repeated: a key pasted where its path belongs (LAS_FINANCE_KEY) would
    // reach stderr and, through a refusal's detail, the log for good (probe CO1).
    const bool blank_first = value.front() == ' ' || value.front() == '\t';
    return Reject(Reason::kNotAbsolute,
                  name + " is a relative path; it must be absolute (start with \"/\")" +
                      (blank_first ? ": it starts with a blank" : ""));
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
