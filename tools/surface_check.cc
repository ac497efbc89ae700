#include "tools/surface_check.h"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <map>
#include <memory>
#include <set>
#include <span>

#include "tools/credentials.h"
#include "tools/file_exposure_notes.h"
#include "tools/special_policies.h"
#include "tools/surface_launcher.h"
#include "tools/tool_listing_notes.h"
#include "tools/unpinned_code.h"
#include "transport/mcp_client.h"
#include "trust/argument_schema.h"
#include "trust/digest.h"
#include "trust/reason.h"
#include "trust/rfc3339.h"
#include "trust/signature_file.h"
#include "trust/trust_store.h"
#include "trust/watermark.h"

namespace las::tools {
namespace {

constexpr std::string_view kAccepted = "accepted";

CheckRow Ok(std::string surface, std::string check, std::string detail) {
  return {std::move(surface), std::move(check), CheckResult::kOk, std::string(kAccepted),
          std::move(detail)};
}
CheckRow Fail(std::string surface, std::string check, std::string_view reason, std::string detail) {
  return {std::move(surface), std::move(check), CheckResult::kFail, std::string(reason),
          std::move(detail)};
}
CheckRow Fail(std::string surface, std::string check, const trust::Verdict& verdict) {
  return Fail(std::move(surface), std::move(check), verdict.reason_name(), verdict.detail());
}
CheckRow Skip(std::string surface, std::string check, std::string_view reason, std::string detail) {
  return {std::move(surface), std::move(check), CheckResult::kSkip, std::string(reason),
          std::move(detail)};
}

std::string Plural(size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The signature row's failure when the signature's or the manifest's path is not configured
// (not set, or relative): both named in one row (probe FJ7: one fix at a time).
std::optional<CheckRow> ReleaseFilesUnconfigured(const ReleaseCheckOptions& options) {
  const trust::ReleasePaths& paths = options.paths;
  const trust::Verdict signature = trust::CheckAbsolutePath(options.signature_name, paths.signature);
  const trust::Verdict manifest = trust::CheckAbsolutePath(options.manifest_name, paths.manifest);
  if (signature.ok() && manifest.ok()) return std::nullopt;
  const trust::Verdict& first = signature.ok() ? manifest : signature;
  std::string detail = first.detail();
  if (!signature.ok() && !manifest.ok()) detail += "; " + manifest.detail();
  return Fail("", "signature", first.reason_name(), detail);
}

// The signature row: signature file, key, manifest bytes, Ed25519, then parsing exactly
// the verified bytes. Fills `out.manifest` on success.
CheckRow CheckSignature(const ReleaseCheckOptions& options, const trust::TrustStore& store,
                        ReleaseCheck& out) {
  const trust::ReleasePaths& paths = options.paths;
  const trust::TrustedKey& key = store.selected();
  if (std::optional<CheckRow> unconfigured = ReleaseFilesUnconfigured(options)) return *unconfigured;
  trust::VerdictOr<std::string> text =
      trust::ReadBoundedFile(paths.signature, "signature file", trust::kMaxSignatureFileBytes);
  if (!text.ok()) return Fail("", "signature", text.verdict());
  trust::VerdictOr<trust::SignatureFile> signature = trust::ParseSignatureFile(*text);
  if (!signature.ok()) return Fail("", "signature", signature.verdict());
  if (signature->key_id != key.key_id) {
    return Fail("", "signature", trust::ReasonName(trust::Reason::kUnknownKey),
                "release is signed by key " + signature->key_id +
                    (store.Find(signature->key_id) != nullptr ? " (listed, but not selected)"
                                                              : " (not in the trust store)") +
                    "; the trust store selects key " + key.key_id +
                    ": sign again with that key's secret key, or select " + signature->key_id +
                    " in the trust store");
  }
  trust::VerdictOr<std::string> bytes =
      trust::ReadBoundedFile(paths.manifest, "manifest", trust::kMaxManifestBytes);
  if (!bytes.ok()) return Fail("", "signature", bytes.verdict());
  const std::span<const uint8_t> raw(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
  if (!trust::VerifyRelease(key.public_key, raw, signature->signature).ok()) {
    return Fail("", "signature", trust::ReasonName(trust::Reason::kBadSignature),
                "signature does not verify under key " + key.key_id + " over manifest " +
                    paths.manifest + " (changed after signing, or signed by another key)");
  }
  Result<trust::Manifest> manifest = trust::ParseManifest(raw);
  if (!manifest.ok()) {
    return Fail("", "signature", trust::ReasonName(trust::ManifestRefusalReason(manifest.status())),
                manifest.status().message());
  }
  out.key_id = key.key_id;
  out.manifest_sha256 = trust::Sha256(raw);
  std::string detail = "manifest " + paths.manifest + " (sequence " +
                       std::to_string(manifest->sequence) + ", " +
                       Plural(bytes->size(), "byte") + ", sha256 " +
                       trust::Sha256Hex(out.manifest_sha256) + ") is signed by key " + key.key_id;
  out.manifest = std::move(manifest).value();
  out.manifest_bytes = std::move(*bytes);
  return Ok("", "signature", std::move(detail));
}

}  // namespace

std::string_view CheckResultName(CheckResult result) {
  switch (result) {
    case CheckResult::kOk: return "ok";
    case CheckResult::kFail: return "fail";
    case CheckResult::kSkip: return "skip";
  }
  return "fail";
}

std::string DescribeDistance(int64_t when_micros, int64_t now_micros) {
  // At the instant itself it is past: expired at expires_at (probe AZ4: "in 0s").
  const bool future = when_micros > now_micros;
  int64_t seconds = (future ? when_micros - now_micros : now_micros - when_micros) / 1'000'000;
  const int64_t days = seconds / 86400;
  const int64_t hours = (seconds % 86400) / 3600;
  const int64_t minutes = (seconds % 3600) / 60;
  std::string text;
  if (days > 0) {
    text = std::to_string(days) + "d " + std::to_string(hours) + "h";
  } else if (hours > 0) {
    text = std::to_string(hours) + "h " + std::to_string(minutes) + "m";
  } else if (minutes > 0) {
    text = std::to_string(minutes) + "m";
  } else {
    text = std::to_string(seconds) + "s";
  }
  return future ? "in " + text : text + " ago";
}

bool ReleaseCheck::ok() const {
  return std::none_of(rows.begin(), rows.end(),
                      [](const CheckRow& r) { return r.result == CheckResult::kFail; });
}

bool CheckReport::ok() const { return Count(CheckResult::kFail) == 0; }

size_t CheckReport::Count(CheckResult result) const {
  return static_cast<size_t>(std::count_if(rows.begin(), rows.end(),
                                           [&](const CheckRow& r) { return r.result == result; }));
}

namespace {

// The release against the watermark `log` (named for the detail) recorded, as admission on
// that log decides (a watermark file deleted or restored does not lower it).
CheckRow DecideRecordedWatermark(const ReleaseCheck& release, const trust::Watermarks& recorded,
                                 const std::string& log) {
  if (!release.manifest) return Skip("", "log-watermark", kReasonNotChecked, "needs a verified manifest");
  trust::VerdictOr<trust::WatermarkStep> step = trust::DecideWatermark(
      recorded, release.key_id, release.manifest->sequence, release.manifest_sha256);
  if (!step.ok()) {
    return Fail("", "log-watermark", trust::Reject(step.verdict().reason(),
                                                   step.verdict().detail() + " (as " + log + " recorded it)"));
  }
  const trust::WatermarkEntry* at = recorded.Find(release.key_id);
  if (at == nullptr) {
    return Ok("", "log-watermark", log + " recorded no watermark of key " + release.key_id);
  }
  return Ok("", "log-watermark",
            "sequence " + std::to_string(release.manifest->sequence) +
                (*step == trust::WatermarkStep::kUnchanged ? " is " : " is above ") +
                "the watermark " + std::to_string(at->sequence) + " of key " + release.key_id +
                " that " + log + " recorded");
}

// The `log-watermark` row: a log its writers refuse fails it; else DecideRecordedWatermark.
CheckRow CheckRecordedWatermark(const ReleaseCheck& release, const trust::Watermarks& recorded,
                                const ReleaseCheckOptions& options) {
  const std::string log = "the log in " + options.recorded_log;
  if (!options.recorded_log_refusal.empty()) {
    return Fail("", "log-watermark", kReasonLogRefused,
                log + " is refused by its writers, so the watermark it recorded is not to be "
                      "trusted: " + options.recorded_log_refusal);
  }
  CheckRow row = DecideRecordedWatermark(release, recorded, log);
  if (row.result == CheckResult::kOk && !options.recorded_log_unjudged.empty()) {
    row.detail += " (" + options.recorded_log_unjudged + ")";
  }
  return row;
}

}  // namespace

namespace {

// An ok row's detail, with the note when others could change the file it is about (probes
// FZ3, FZ4), as the registry row has it.
std::string WithExposure(std::string detail, TrustedFile file, const std::string& path) {
  if (auto note = TrustedFileNote(file, path)) detail += "; " + *note;
  return detail;
}

}  // namespace

ReleaseCheck CheckRelease(const ReleaseCheckOptions& options) {
  ReleaseCheck out;
  const trust::ReleasePaths& paths = options.paths;

  // Trust store.
  std::optional<trust::TrustStore> store;
  if (trust::Verdict v = trust::CheckAbsolutePath(options.trust_store_name, paths.trust_store); !v.ok()) {
    out.rows.push_back(Fail("", "trust-store", v));
  } else if (trust::VerdictOr<trust::TrustStore> loaded =
                 trust::LoadTrustStore(paths.trust_store, options.secure);
             !loaded.ok()) {
    out.rows.push_back(Fail("", "trust-store", loaded.verdict()));
  } else {
    store = std::move(loaded).value();
    out.rows.push_back(Ok("", "trust-store",
                          WithExposure(paths.trust_store + " selects key " + store->selected_key_id +
                                           " (" + Plural(store->keys.size(), "key") + " listed)",
                                       TrustedFile::kTrustStore, paths.trust_store)));
  }

  // Signature, then the manifest parsed from exactly the verified bytes.
  // Without a store the signature cannot be verified, but its files not being configured is
  // a problem of its own, shown in the same run (probe FI5: one fix at a time).
  if (store) {
    out.rows.push_back(CheckSignature(options, *store, out));
  } else if (std::optional<CheckRow> unconfigured = ReleaseFilesUnconfigured(options)) {
    out.rows.push_back(*unconfigured);
  } else {
    out.rows.push_back(Skip("", "signature", kReasonNotChecked, "needs a valid trust store"));
  }

  // Expiry.
  if (out.manifest) {
    const std::string at = trust::FormatRfc3339UtcMicros(out.manifest->expires_at_micros);
    Status fresh = trust::CheckExpiry(*out.manifest, options.now_micros);
    if (fresh.ok()) {
      out.rows.push_back(Ok("", "expiry", "valid until " + at + " (" +
                                              DescribeDistance(out.manifest->expires_at_micros,
                                                               options.now_micros) + ")"));
    } else {
      out.rows.push_back(Fail("", "expiry", trust::ReasonName(trust::Reason::kExpired),
                              "expired at " + at + " (" +
                                  DescribeDistance(out.manifest->expires_at_micros,
                                                   options.now_micros) +
                                  "); sign it again: las release sign --bump"));
    }
  } else {
    out.rows.push_back(Skip("", "expiry", kReasonNotChecked, "needs a verified manifest"));
  }

  if (!options.check_watermark) return out;

  // Watermark file, then the sequence against it.
  std::optional<trust::Watermarks> watermarks;
  if (trust::Verdict v = trust::CheckAbsolutePath(options.watermark_name, paths.watermark); !v.ok()) {
    out.rows.push_back(Fail("", "watermark-file", v));
  } else if (trust::VerdictOr<trust::Watermarks> loaded =
                 trust::LoadWatermarks(paths.watermark, options.secure);
             !loaded.ok()) {
    out.rows.push_back(Fail("", "watermark-file", loaded.verdict()));
  } else {
    watermarks = std::move(loaded).value();
    out.rows.push_back(Ok("", "watermark-file",
                          WithExposure(watermarks->file_existed
                                           ? paths.watermark + " holds " +
                                                 Plural(watermarks->by_key.size(), "key")
                                           : paths.watermark +
                                                 " does not exist yet (the first admission creates it)",
                                       TrustedFile::kWatermark, paths.watermark)));
  }
  if (!out.manifest) {
    out.rows.push_back(Skip("", "sequence", kReasonNotChecked, "needs a verified manifest"));
  } else if (!watermarks) {
    out.rows.push_back(Skip("", "sequence", kReasonNotChecked, "needs a readable watermark"));
  } else {
    // The digest of exactly the bytes whose signature verified.
    const trust::WatermarkEntry* at = watermarks->Find(out.key_id);
    const uint64_t before = at ? at->sequence : 0;
    trust::VerdictOr<trust::WatermarkStep> step = trust::DecideWatermark(
        *watermarks, out.key_id, out.manifest->sequence, out.manifest_sha256);
    if (!step.ok()) {
      out.rows.push_back(Fail("", "sequence", step.verdict()));
    } else if (*step == trust::WatermarkStep::kUnchanged) {
      out.rows.push_back(Ok("", "sequence", "sequence " + std::to_string(out.manifest->sequence) +
                                                " is the watermark of key " + out.key_id +
                                                " with these exact bytes (already admitted)"));
    } else if (trust::Verdict writable = trust::CheckWatermarkWritable(paths.watermark);
               !writable.ok()) {
      out.rows.push_back(Fail("", "sequence", writable));  // admission would refuse it
    } else {
      out.rows.push_back(Ok("", "sequence",
                            "sequence " + std::to_string(out.manifest->sequence) +
                                " is above the watermark " + std::to_string(before) + " of key " +
                                out.key_id + " (the next admission advances it)"));
    }
  }
  if (options.recorded) {
    out.rows.push_back(CheckRecordedWatermark(out, *options.recorded, options));
  }
  return out;
}

namespace {

// What a surface row says about one bound and configured surface, from its launch.
// The `credentials` row of a surface whose tools have credential templates: every
// credential they name must be set (non-empty) in Las's environment, as valid UTF-8, or each
// call of those tools is refused (credential-unavailable). Names only: never a value.
std::optional<CheckRow> CredentialsRow(const trust::SurfaceBinding& surface,
                                       const trust::Environment& environment) {
  std::map<std::string, std::set<std::string>> tools_by_credential;
  for (const trust::ToolBinding& tool : surface.tools) {
    for (const auto& [argument, credential] : tool.credential_templates) {
      tools_by_credential[credential].insert(tool.name);
    }
  }
  if (tools_by_credential.empty()) return std::nullopt;
  const trust::CredentialResolver resolve = EnvironmentCredentials(environment);  // as calls do
  std::vector<std::string> missing;
  std::vector<std::string> not_utf8;
  std::vector<std::string> guessable;
  for (const auto& [credential, tools] : tools_by_credential) {
    const std::optional<std::string> value = resolve(credential);
    if (!value || !trust::IsCarriableCredential(*value)) {
      (value ? not_utf8 : missing)
          .push_back(CredentialVariable(credential) + " (" + JoinNames({tools.begin(), tools.end()}) + ")");
    } else if (value->size() < kMinUnguessableCredentialBytes) {
      guessable.push_back(CredentialVariable(credential));
    }
  }
  if (!missing.empty() || !not_utf8.empty()) {
    std::string detail;
    if (!missing.empty()) detail = "not set or empty: " + JoinNames(missing);
    if (!not_utf8.empty()) {
      detail += (detail.empty() ? "" : "; ") + std::string("not valid UTF-8: ") + JoinNames(not_utf8);
    }
    return Fail(surface.name, "credentials",
                trust::ReasonName(trust::Reason::kCredentialUnavailable),
                detail + ", so calls of these tools would be refused");
  }
  std::string detail = Plural(tools_by_credential.size(), "credential variable") + " set";
  if (!guessable.empty()) {  // a warning, not a failure: some services only take a PIN
    detail += "; under " + std::to_string(kMinUnguessableCredentialBytes) +
              " bytes, so a client with a tool that echoes its input can test guesses at it "
              "(docs/RELEASES.md, \"Live tools and calls\"): " + JoinNames(guessable);
  }
  return Ok(surface.name, "credentials", detail);
}

// The `environment` row of a surface that declares variables (`draft --env`): which of them
// are not set here — the child then runs without them, as `las release draft` warns; a
// note, not a failure, since a variable may be optional (probe FN4: nothing said so).
std::optional<CheckRow> EnvironmentRow(const trust::SurfaceBinding& surface,
                                       const trust::Environment& environment) {
  if (surface.env.empty()) return std::nullopt;
  const std::vector<std::string> unset = trust::DeclaredVariablesMissing(surface, environment);
  std::string detail = Plural(surface.env.size(), "declared variable");
  if (unset.empty()) return Ok(surface.name, "environment", detail + " set");
  return Ok(surface.name, "environment",
            detail + "; not set here, so the child runs without them: " + JoinNames(unset));
}

void AddLaunchRows(const trust::SurfaceBinding& surface, const SurfaceLaunch& launch,
                   const trust::LaunchPolicy& policy, std::vector<CheckRow>& rows) {
  const bool launched = launch.ok || launch.reason == ReasonName(trust::Reason::kToolsMismatch) ||
                        launch.reason == kReasonListFailed;
  if (!launched) {
    rows.push_back(Fail(surface.name, "launch", launch.reason, launch.detail));
    rows.push_back(Skip(surface.name, "tools", kReasonNotChecked, "the child was not started"));
    return;
  }
  std::string detail = "command " + surface.command;
  if (surface.code) detail += " and code " + surface.code->path;
  detail += " match their signed sha256; cwd inside " + policy.workspace + "; child initialized";
  detail = WithExposure(std::move(detail), TrustedFile::kWorkspace, policy.workspace);
  for (const std::string& note : SurfaceFileNotes(surface)) detail += "; " + note;
  for (const std::string& note : NodeSurfaceNotes(surface, policy)) detail += "; " + note;
  rows.push_back(Ok(surface.name, "launch", std::move(detail)));
  if (!launch.ok) {
    rows.push_back(Fail(surface.name, "tools", launch.reason, launch.detail));
    return;
  }
  // As the catalog does at admission: a schema Las cannot check exactly keeps its tool out.
  // And as a call does: a schema that refuses what Las fills in from a credential refuses
  // every call of its tool.
  std::vector<std::string> uncompiled;
  std::vector<std::string> refuse_credentials;
  const trust::CredentialResolver resolve = EnvironmentCredentials(policy.environment);
  for (const trust::LiveTool& tool : launch.live_tools) {
    Result<trust::ArgumentSchema> schema = trust::CompileToolInputSchema(tool.input_schema_json);
    if (!schema.ok()) {
      uncompiled.push_back(tool.name + " (" + schema.status().message() + ")");
      continue;
    }
    const trust::ToolBinding* bound = surface.FindTool(tool.name);
    if (bound == nullptr || bound->credential_templates.empty()) continue;
    trust::VerdictOr<std::string> filled = trust::InjectCredentials("", *bound, resolve);
    if (!filled.ok()) continue;  // the credentials row tells
    if (trust::RefusesFilledValues(*schema, *filled, trust::FilledArguments(*bound))) {
      refuse_credentials.push_back(tool.name);
    }
  }
  if (!uncompiled.empty()) {
    rows.push_back(Fail(surface.name, "tools", std::string(trust::kSchemaUnsupported),
                        "served without these tools, whose input schema Las cannot check: " +
                            JoinNames(uncompiled)));
    return;
  }
  if (!refuse_credentials.empty()) {
    rows.push_back(Fail(surface.name, "tools", trust::ReasonName(trust::Reason::kArgumentsSchemaViolation),
                        "the signed input schema refuses the value Las fills in from a credential, "
                        "so every call of these tools would be refused: " + JoinNames(refuse_credentials)));
    return;
  }
  std::vector<std::string> names;
  for (const trust::ToolBinding& t : surface.tools) names.push_back(t.name);
  std::sort(names.begin(), names.end());
  std::string matched =
      Plural(names.size(), "tool") + (names.size() == 1 ? " matches" : " match") + " the release: " + JoinNames(names);
  for (const std::string& note : ToolListingNotes(surface.name, launch.live_tools)) matched += "; " + note;
  rows.push_back(Ok(surface.name, "tools", std::move(matched)));
}

}  // namespace

CheckReport RunChecks(const SurfaceCheckOptions& options) {
  CheckReport report;
  report.checked_at_micros = options.release.now_micros;
  ReleaseCheck release = CheckRelease(options.release);
  report.rows = release.rows;
  // `las serve` refuses such a release whole (tools/federation.cc).
  if (release.manifest &&
      ManifestHoldsACredential(
          *release.manifest, release.manifest_bytes, options.policy.environment,
          CrossSurfaceCredentialValues(release.manifest->surfaces, options.policy.environment))) {
    report.rows.push_back(Fail("", "manifest-secrets",
                               trust::ReasonName(trust::Reason::kCredentialInManifest),
                               std::string(kCredentialInManifestDetail)));
  }

  // Which surfaces.
  const bool named = !options.surfaces.empty();
  std::set<std::string> targets(options.surfaces.begin(), options.surfaces.end());
  if (!named) {
    for (const ConfiguredSurface& s : options.registry.surfaces) targets.insert(s.name);
    if (release.manifest) {
      for (const trust::SurfaceBinding& s : release.manifest->surfaces) targets.insert(s.name);
    }
  }

  // Rows decided without a launch, per surface.
  std::map<std::string, std::vector<CheckRow>> verdicts;
  std::vector<const trust::SurfaceBinding*> to_launch;
  for (const std::string& name : targets) {
    const bool configured = options.registry.Find(name) != nullptr;
    if (!release.manifest) {
      if (named && !configured) {
        verdicts[name].push_back(Fail(name, "release", kReasonNotInRegistry,
                                   "not configured in " + RegistryName(options.registry)));
      } else {
        verdicts[name].push_back(Skip(name, "release", kReasonNotChecked,
                                   "the release did not verify: no surface is checked"));
      }
      continue;
    }
    const trust::SurfaceBinding* bound = release.manifest->FindSurface(name);
    if (!configured) {
      const std::string registry = RegistryName(options.registry);
      const std::string detail =
          bound ? "bound by the release, but not configured in " + registry +
                      ": it will not be served"
                : "neither configured in " + registry + " nor bound by the release";
      if (named) {
        verdicts[name].push_back(Fail(name, "release", kReasonNotInRegistry, detail));
      } else {
        verdicts[name].push_back(Skip(name, "release", kReasonNotInRegistry, detail));
      }
      continue;
    }
    if (bound == nullptr) {
      const std::string detail = "configured, but the release does not bind it: it will not be served";
      const std::string_view reason = trust::ReasonName(trust::Reason::kSurfaceUnknown);
      if (named) {
        verdicts[name].push_back(Fail(name, "release", reason, detail));
      } else {
        verdicts[name].push_back(Skip(name, "release", reason, detail));
      }
      continue;
    }
    to_launch.push_back(bound);
  }
  // A release that verified but binds nothing the registry configures serves nothing: a
  // skip row per surface alone would read as a pass (probe AB1).
  if (!named && release.manifest && to_launch.empty()) {
    report.rows.push_back(Fail("", "surfaces", kReasonNoSurfaces,
                               "the release binds no surface " + RegistryName(options.registry) +
                                   " configures: nothing would be served"));
  }
  // A registry file others may write decides which signed surfaces run: `las serve` notes
  // it at every start, and this row says the same (ok: it keeps nothing out).
  if (!options.registry_file.empty()) {
    if (std::optional<std::string> note = RegistryFileNote(options.registry_file)) {
      report.rows.push_back(Ok("", "registry", std::move(*note)));
    }
  }

  // Special surface policies (docs/POLICIES.md), decided before any launch, as in serve.
  const SpecialPolicies policies =
      LoadSpecialPolicies(options.policy.environment, options.release.secure);
  std::map<std::string, std::vector<std::string>> extra_env;
  if (policies.finance.any_set) {
    report.rows.push_back(policies.finance.verdict.ok()
                              ? Ok("", "finance-config", "all five LAS_FINANCE_* variables are set")
                              : Fail("", "finance-config", policies.finance.verdict));
  }
  std::erase_if(to_launch, [&](const trust::SurfaceBinding* bound) {
    const SurfacePolicy policy = options.registry.Find(bound->name)->policy;
    if (policy == SurfacePolicy::kOrdinary) return false;
    std::vector<CheckRow>& rows = verdicts[bound->name];
    SpecialAdmission admission = AdmitSpecial(policy, *bound, policies,
                                              options.policy.environment, options.release.secure);
    if (policy == SurfacePolicy::kSkarbiec) {
      rows.push_back(policies.taxonomy
                         ? Ok(bound->name, "taxonomy",
                              "taxonomy " + policies.taxonomy_path + ": " +
                                  Plural(policies.taxonomy->purposes.size(), "purpose") + ", " +
                                  Plural(policies.taxonomy->resources.size(), "resource") + ", " +
                                  Plural(policies.taxonomy->targets.size(), "target"))
                         : Fail(bound->name, "taxonomy", policies.taxonomy_verdict));
      const std::optional<std::string> agent = SkarbiecAgentIdProblem(options.policy.environment);
      rows.push_back(agent ? Fail(bound->name, "agent-id", kReasonSkarbiecAgentId, *agent)
                           : Ok(bound->name, "agent-id",
                                "SKARBIEC_MCP_AGENT_ID names the one agent that may open a session"));
    }
    if (admission.absent) {
      rows.push_back(Skip(bound->name, "policy", kReasonFinanceAbsent,
                          "no LAS_FINANCE_* variable is set: finance is not served"));
      return true;
    }
    if (!admission.verdict.ok()) {
      rows.push_back(Fail(bound->name, "policy", admission.verdict));
      rows.push_back(Skip(bound->name, "launch", kReasonNotChecked, "the local policy refused it"));
      return true;
    }
    std::string detail = std::string(PolicyName(policy)) + " policy: ";
    if (policy == SurfacePolicy::kSkarbiec) {
      detail += "every bound tool has its pinned schema and description";
    } else if (policy == SurfacePolicy::kFinance) {
      detail += "binary digest, policy fingerprint, proposal-only mode, key file and tool names";
    } else {
      std::vector<std::string> left;
      for (const auto& [tool, verdict] : admission.left_out) left.push_back(tool);
      detail += "exposes " + std::to_string(bound->tools.size() - left.size()) + " of " +
                Plural(bound->tools.size(), "signed tool") +
                (left.empty() ? "" : "; left out by the allowlist: " + JoinNames(left));
    }
    rows.push_back(Ok(bound->name, "policy", std::move(detail)));
    extra_env[bound->name] = std::move(admission.child_env);
    return false;
  });
  for (const trust::SurfaceBinding* bound : to_launch) {
    if (auto row = CredentialsRow(*bound, options.policy.environment)) {
      verdicts[bound->name].push_back(std::move(*row));
    }
    if (auto row = EnvironmentRow(*bound, options.policy.environment)) {
      verdicts[bound->name].push_back(std::move(*row));
    }
  }

  // Launch every bound surface at once on a private loop; shut each child down as soon
  // as its verdict is in.
  std::map<std::string, SurfaceLaunch> launches;
  {
    boost::asio::io_context io;
    LaunchOptions launch_options;
    launch_options.policy = options.policy;
    if (release.manifest) {
      launch_options.other_credentials =
          CrossSurfaceCredentialValues(release.manifest->surfaces, options.policy.environment);
    }
    launch_options.start_timeout_ms = options.start_timeout_ms;
    std::vector<std::function<void()>> aborts;
    // A check cancelled before its launches starts no child at all: one started and killed
    // at once was a child alive after the cancel had been answered.
    if (options.cancellation != nullptr && options.cancellation->cancelled()) to_launch.clear();
    for (const trust::SurfaceBinding* surface : to_launch) {
      launch_options.extra_env = extra_env[surface->name];
      aborts.push_back(LaunchSurface(io, *surface, launch_options, [&launches](SurfaceLaunch launch) {
        SurfaceLaunch& stored = launches[launch.surface] = std::move(launch);
        if (stored.client) stored.client->Shutdown([] {});
      }));
    }
    uint64_t armed = 0;
    if (options.cancellation != nullptr) {
      armed = options.cancellation->Arm(io, [&aborts] {
        for (auto& abort : aborts) abort();
      });
    }
    io.run();
    if (options.cancellation != nullptr) options.cancellation->Disarm(armed);
    for (auto& [name, launch] : launches) launch.client.reset();  // before the loop dies
  }

  // Rows in name order (targets is sorted), after the release rows.
  for (const std::string& name : targets) {
    if (auto decided = verdicts.find(name); decided != verdicts.end()) {
      report.rows.insert(report.rows.end(), decided->second.begin(), decided->second.end());
    }
    if (auto launched = launches.find(name); launched != launches.end()) {
      AddLaunchRows(*release.manifest->FindSurface(name), launched->second, options.policy,
                    report.rows);
    }
  }
  return report;
}

}  // namespace las::tools
