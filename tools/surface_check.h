// `las check` and `las release verify`: every admission check, run read-only and reported
// one row per check, so an operator sees everything that would keep a surface out — and,
// after fixing it, re-runs the same command to see that it is fixed.
//
// Release rows (surface ""), in the order ReleaseVerifier (trust/release_verifier.h)
// applies them, using the same trust/ functions; unlike the verifier, checks that do not
// depend on a failed one still run, so one run shows every independent problem:
//
//   trust-store     LoadTrustStore: path configured and absolute, file security
//                   (symlink, owner, mode), content               -> trust reasons
//   signature       signature file (format, length), key id == selected key, manifest
//                   bytes, Ed25519 over the raw bytes, then ParseManifest of exactly
//                   those bytes                                   -> trust reasons
//   expiry          now < expires_at                              -> expired
//   watermark-file  LoadWatermarks (missing = first admission)    -> file / watermark reasons
//   sequence        DecideWatermark for the verified release      -> rollback, conflict
//   log-watermark   (with ReleaseCheckOptions::recorded) DecideWatermark against the
//                   watermarks a log recorded, which admission on that log applies
//                   whatever the file says                        -> rollback, conflict;
//                   a log its writers refuse (rolled back below its
//                   kept head, a contradicted seal)               -> log-refused
//   manifest-secrets  (only when it fails) the manifest holds a value Las would give one
//                   of its surfaces (tools/credentials.h ManifestHoldsACredential)
//                                                                 -> credential-in-manifest
//   surfaces        (no surface named) the release binds a surface the registry
//                   configures                                    -> no-surfaces
//   registry        (a registry file others may write, or read through a path others
//                   control) ok, with the note `las serve` prints at every start
//
// The watermark rows are present only when ReleaseCheckOptions::check_watermark. Nothing
// here writes: the watermark never moves (CommitWatermark is only ever called by the
// admitting code), no event is appended.
//
// Surface rows: for each surface to check, `launch` (PlanLaunch: workspace, command,
// binary and code digests; then the child is started from the hashed descriptor and
// initialized) and `tools` (its live tools/list against the signed names and digests) —
// exactly tools/surface_launcher.h, as `las serve` runs it. Children are started
// concurrently on one private loop and shut down (and reaped) before RunChecks returns.
// Surfaces are checked only when the release signature verified (an unverified manifest
// is never acted on); expiry or watermark failures do not stop the surface checks.
//
// Which surfaces: those named (each must be configured in the registry and bound by the
// release, else a failing row), or, when none are named, every surface that is
// configured or bound: configured-but-unbound and bound-but-unconfigured surfaces get a
// `skip` row (they would not be served), not a failure.
//
// Special surface policies (docs/POLICIES.md), before any launch, as `las serve` applies
// them: a release row `finance-config` when any LAS_FINANCE_* variable is set; for a
// special surface a `policy` row (a failure skips its launch; finance without variables is
// a `skip` with "finance-absent"), and for Skarbiec a `taxonomy` row (no usable taxonomy
// fails: every capability call would be refused). A surface whose tools have credential
// templates gets a `credentials` row: every credential they name set and non-empty in the
// environment, else credential-unavailable naming the variables (never a value).
//
// Row reasons are stable codes: the trust reason names of docs/RELEASES.md, plus
// "start-failed" and "list-failed" (tools/surface_launcher.h), "not-in-registry" (bound
// by the release but not configured) and "not-checked" (a skip because a check it depends
// on failed). Details are for operators: paths, key ids, sequences, digests, tool names;
// never child output, never an environment value, never key material.
//
// Threading: call from one thread; RunChecks blocks until every child is reaped. The
// process should be a child subreaper (transport::BecomeChildSubreaper).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/check_cancellation.h"
#include "tools/registry.h"
#include "trust/digest.h"
#include "trust/launch_policy.h"
#include "trust/manifest.h"
#include "trust/release_paths.h"
#include "trust/secure_file.h"
#include "trust/watermark.h"

namespace las::tools {

// A release-wide `surfaces` row, when no surface is named: the release verified but binds
// no surface the registry configures, so nothing would be served.
inline constexpr std::string_view kReasonNoSurfaces = "no-surfaces";
inline constexpr std::string_view kReasonNotChecked = "not-checked";
// The `log-watermark` row of a log whose writers refuse it (ReleaseCheckOptions).
inline constexpr std::string_view kReasonLogRefused = "log-refused";

enum class CheckResult { kOk, kFail, kSkip };
// "ok", "fail", "skip".
std::string_view CheckResultName(CheckResult result);

struct CheckRow {
  std::string surface;  // empty for a release-wide check
  std::string check;    // "trust-store", "signature", "expiry", "watermark-file", "sequence",
                        // "log-watermark",
                        // "release" (is the surface bound/configured), "launch", "tools"
  CheckResult result = CheckResult::kOk;
  std::string reason;   // "accepted" when ok; see the header comment
  std::string detail;
};

struct ReleaseCheckOptions {
  // Each path is checked with trust::CheckAbsolutePath under the matching name.
  trust::ReleasePaths paths;
  std::string manifest_name = trust::kEnvReleaseManifest;    // how to name each path in
  std::string signature_name = trust::kEnvReleaseSignature;  // details, e.g. "--manifest"
  std::string trust_store_name = trust::kEnvTrustStore;
  std::string watermark_name = trust::kEnvReleaseWatermark;
  bool check_watermark = true;
  // The watermarks a log recorded (tools/recorded_watermarks.h) and that log's directory,
  // for the `log-watermark` row; none: no such row.
  std::optional<trust::Watermarks> recorded;
  std::string recorded_log;
  // Why a writer refuses that log (cli/writer_refusal.h), "" when it does not: the row then
  // fails with reason "log-refused", since `las serve` on it would not start.
  std::string recorded_log_refusal;
  // What an ok row adds when that could not be judged (no usable snapshot key), or "".
  std::string recorded_log_unjudged;
  int64_t now_micros = 0;  // the one check time (expiry)
  trust::SecureFileOptions secure;
};

struct ReleaseCheck {
  std::vector<CheckRow> rows;
  std::optional<trust::Manifest> manifest;  // set once the signature verified and it parsed
  std::string key_id;                       // the key that verified it
  trust::Sha256Digest manifest_sha256{};    // of exactly the verified bytes
  std::string manifest_bytes;               // exactly the verified bytes
  bool ok() const;
};

ReleaseCheck CheckRelease(const ReleaseCheckOptions& options);

struct SurfaceCheckOptions {
  ReleaseCheckOptions release;
  Registry registry;
  std::string registry_file;  // where `registry` was read; empty for the built-in one
  std::vector<std::string> surfaces;  // empty: all (see the header comment)
  trust::LaunchPolicy policy;
  int64_t start_timeout_ms = 15'000;
  CheckCancellation* cancellation = nullptr;  // optional: ends the launches early
};

struct CheckReport {
  int64_t checked_at_micros = 0;
  std::vector<CheckRow> rows;
  bool ok() const;  // no row failed
  size_t Count(CheckResult result) const;
};

CheckReport RunChecks(const SurfaceCheckOptions& options);

// "in 29d 23h", "3h 5m ago": the distance from `now` to `when`, for details.
std::string DescribeDistance(int64_t when_micros, int64_t now_micros);

}  // namespace las::tools
