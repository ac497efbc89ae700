// Where the release lives: the four release variables, read from an injected
// Environment (trust/environment.h), never from getenv(3) directly.
//
//   LAS_RELEASE_MANIFEST   the signed manifest bytes        (docs/MANIFEST.md)
//   LAS_RELEASE_SIGNATURE  the detached signature file      (trust/signature_file.h)
//   LAS_TRUST_STORE        the trust store                  (trust/trust_store.h)
//   LAS_RELEASE_WATERMARK  the per-key watermark            (trust/watermark.h)
//
// Each must be set, non-empty, absolute (start with '/'), and free of NUL. A relative path
// would resolve against whatever directory Las was started from, so the same
// configuration could read different files: refused with kNotAbsolute.
//
// Thread safety: free functions, value types.
#pragma once

#include <string>

#include "trust/environment.h"
#include "trust/reason.h"

namespace las::trust {

inline constexpr const char* kEnvReleaseManifest = "LAS_RELEASE_MANIFEST";
inline constexpr const char* kEnvReleaseSignature = "LAS_RELEASE_SIGNATURE";
inline constexpr const char* kEnvTrustStore = "LAS_TRUST_STORE";
inline constexpr const char* kEnvReleaseWatermark = "LAS_RELEASE_WATERMARK";

struct ReleasePaths {
  std::string manifest;
  std::string signature;
  std::string trust_store;
  std::string watermark;
};

// kNotConfigured naming the first unset/empty variable, kNotAbsolute naming the first
// relative one (variables checked in the order above).
VerdictOr<ReleasePaths> ReleasePathsFromEnvironment(const Environment& env);

// The absolute-path rule alone, for other configured paths (LAS_WORKSPACE). `name` is
// used in the detail; the value never is (it may be a secret put in the wrong variable).
Verdict CheckAbsolutePath(const std::string& name, const std::string& value);

}  // namespace las::trust
