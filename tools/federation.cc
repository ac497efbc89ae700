#include "tools/federation.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <algorithm>
#include <cstdio>

#include "base/note.h"
#include "base/printable_text.h"
#include "tools/credentials.h"
#include "tools/decision_events.h"
#include "tools/expiry_watch.h"
#include "tools/surface_launcher.h"
#include "trust/launch_policy.h"
#include "tools/surface_restarts.h"
#include "transport/mcp_client.h"
#include "trust/digest.h"
#include "trust/release_paths.h"
#include "trust/watermark.h"

namespace las::tools {
namespace {

// ": " and the detail of a refusal whose reason alone does not say what to fix and whose
// detail is Las's own words; empty for any other reason (stderr names reasons, the log the
// details). A configuration variable unset or relative: the detail names the variable,
// never its value (trust::CheckAbsolutePath; probe CO5). A watermark's rollback or
// conflict: sequences, key ids and digests — a copied-back watermark file makes `las check`
// and `las release verify` pass while the log's own watermark refuses, so stderr is where
// the operator learns which sequences clashed and that the log's record decided (probe IE2).
std::string SayableDetail(std::string_view reason, std::string_view detail,
                          std::string_view surface = {}) {
  using trust::Reason;
  if (reason != trust::ReasonName(Reason::kNotAbsolute) &&
      reason != trust::ReasonName(Reason::kNotConfigured) &&
      reason != trust::ReasonName(Reason::kRollback) &&
      reason != trust::ReasonName(Reason::kConflict) &&
      reason != trust::ReasonName(Reason::kCredentialInManifest)) {
    return "";
  }
  // A launch check's detail names its surface, which the line names already.
  const std::string who = "surface " + std::string(surface) + ": ";
  if (!surface.empty() && detail.starts_with(who)) detail.remove_prefix(who.size());
  return ": " + EscapeForTerminal(detail);
}

// The variables `surface` declares (`release draft --env`) that `environment` lacks, as
// ", "-joined names; empty when none. The child starts without them — `las check`'s
// `environment` row says the same — and nothing else would tell the operator why it then
// misbehaves.
std::string UnsetDeclaredVariables(const trust::SurfaceBinding& surface,
                                   const trust::Environment& environment) {
  std::string unset;
  for (const std::string& name : trust::DeclaredVariablesMissing(surface, environment)) {
    unset += (unset.empty() ? "" : ", ") + EscapeForTerminal(name);
  }
  return unset;
}

}  // namespace

Federation::Federation(boost::asio::io_context& io, log::EventLog& log, FederationOptions options)
    : io_(io), log_(log), options_(std::move(options)) {
  for (const auto& surface : options_.registry.surfaces) {
    states_.push_back({surface.name, false, "not-signed", "", 0});
  }
  for (auto& tool : options_.builtin_tools) catalog_.AddBuiltin(std::move(tool));
  options_.builtin_tools.clear();
}

Federation::~Federation() = default;

SurfaceState& Federation::StateOf(const std::string& name) {
  for (auto& state : states_) {
    if (state.name == name) return state;
  }
  states_.push_back({name, false, "", "", 0});
  return states_.back();
}

void Federation::Record(std::vector<log::EventDraft> drafts) {
  if (!status_.ok()) return;
  auto appended = log_.Append(std::move(drafts));
  if (appended.ok()) return;
  status_ = appended.status();
  if (settled_ && options_.on_log_failure_while_serving) {
    options_.on_log_failure_while_serving(status_);
  }
}

void Federation::Start(std::function<void()> ready) {
  if (settled_) {
    boost::asio::post(io_, std::move(ready));
    return;
  }
  waiting_.push_back(std::move(ready));
  if (started_) return;
  started_ = true;
  policies_ = LoadSpecialPolicies(options_.environment, options_.secure);
  if (policies_.finance.any_set && !policies_.finance.verdict.ok() && !options_.quiet) {
    Note("finance stays out (%s): %s\n",
         std::string(policies_.finance.verdict.reason_name()).c_str(),
         policies_.finance.verdict.detail().c_str());
  }
  AdmitRelease();
  LaunchEligible();
}

void Federation::AdmitRelease() {
  const auto& env = options_.environment;
  const bool any_configured =
      env.count("LAS_RELEASE_MANIFEST") || env.count("LAS_RELEASE_SIGNATURE") ||
      env.count("LAS_TRUST_STORE") || env.count("LAS_RELEASE_WATERMARK");
  if (!any_configured) {
    for (auto& state : states_) state.reason = "no-release";
    if (!options_.quiet) {
      Note("no release configured (LAS_RELEASE_*); serving Las's own "
           "tools only\n");
    }
    return;
  }
  auto paths = trust::ReleasePathsFromEnvironment(env);
  trust::RefusedRelease refused;
  const trust::ReleaseVerifier verifier(*options_.clock, options_.secure);
  trust::VerdictOr<trust::AcceptedRelease> accepted =
      paths.ok() ? verifier.Verify(*paths, &refused)
                 : trust::VerdictOr<trust::AcceptedRelease>(paths.verdict());
  if (accepted.ok()) {
    trust::VerdictOr<trust::WatermarkStep> recorded =
        trust::DecideWatermark(options_.recorded_watermarks, accepted->key_id,
                               accepted->manifest.sequence, accepted->manifest_sha256);
    if (!recorded.ok()) {
      refused = {accepted->key_id, accepted->manifest.sequence, accepted->manifest_sha256};
      accepted = trust::VerdictOr<trust::AcceptedRelease>(trust::Reject(
          recorded.verdict().reason(),
          recorded.verdict().detail() + " (as the log recorded it; the watermark file " +
              (accepted->watermark_file_existed ? "records less" : "is missing") + ")"));
    }
  }
  if (accepted.ok() && accepted->watermark_file_existed && !options_.quiet) {
    // Admission goes by the log's record, and the file is raised past it: a file below
    // the log was lowered by hand or replaced by an older copy, and only this says so
    // (probe JW4: it was raised again silently).
    const trust::WatermarkEntry* logged = options_.recorded_watermarks.Find(accepted->key_id);
    if (logged != nullptr && accepted->watermark_before < logged->sequence) {
      Note("the watermark file records sequence %llu for key %s, below the %llu the log "
           "recorded: it was lowered or replaced by an older copy; the log's watermark "
           "applies (docs/RELEASES.md, Watermark)\n",
           static_cast<unsigned long long>(accepted->watermark_before),
           accepted->key_id.c_str(), static_cast<unsigned long long>(logged->sequence));
    }
  }
  if (accepted.ok()) {
    // The watermark moves after admission; one that cannot move must refuse the release
    // now, before anything is served (else a rollback would be served, unrecorded).
    trust::Verdict writable = trust::ReleaseVerifier::CheckCanAdvance(*accepted);
    if (!writable.ok()) {
      refused = {accepted->key_id, accepted->manifest.sequence, accepted->manifest_sha256};
      accepted = trust::VerdictOr<trust::AcceptedRelease>(std::move(writable));
    }
  }
  if (accepted.ok()) {
    cross_surface_credentials_ =
        CrossSurfaceCredentialValues(accepted->manifest.surfaces, options_.environment);
  }
  if (accepted.ok() && ManifestHoldsACredential(accepted->manifest, accepted->manifest_bytes,
                                                options_.environment, cross_surface_credentials_)) {
    // ReleaseAccepted records the manifest's bytes, and a tool named with a credential's
    // value, or a command argument holding it, would put that secret in the log (probe
    // JY1: the surface was refused, but its release had been recorded): refused whole,
    // before anything of it is recorded but its key, sequence and digest.
    refused = {accepted->key_id, accepted->manifest.sequence, accepted->manifest_sha256};
    accepted = trust::VerdictOr<trust::AcceptedRelease>(trust::Reject(
        trust::Reason::kCredentialInManifest, std::string(kCredentialInManifestDetail)));
  }
  if (!accepted.ok()) {
    cross_surface_credentials_.clear();  // no release: nothing is served
    const trust::Verdict& verdict = accepted.verdict();
    Record({ReleaseRejectedEvent(
        refused.key_id, refused.sequence,
        refused.key_id.empty() ? "" : trust::Sha256Hex(refused.manifest_sha256),
        verdict.reason_name(), verdict.detail())});
    for (auto& state : states_) {
      state.reason = "release-rejected";
      state.detail = std::string(verdict.reason_name());
    }
    if (!options_.quiet) {
      Note("release rejected (%s%s); no surface admitted\n",
           std::string(verdict.reason_name()).c_str(),
           SayableDetail(verdict.reason_name(), verdict.detail()).c_str());
    }
    return;
  }
  release_ = std::move(*accepted);
  Record({ReleaseAcceptedEvent(*release_)});
  WatchExpiry();
}

void Federation::LaunchEligible() {
  if (!release_ || !status_.ok()) return Settle();
  std::vector<std::string> signed_and_configured;
  for (const auto& surface : release_->manifest.surfaces) {
    if (options_.registry.Find(surface.name) != nullptr) {
      signed_and_configured.push_back(surface.name);
    } else if (!options_.quiet) {
      Note("surface %s left out (%s: signed, but %s does not configure it)\n",
           EscapeForTerminal(surface.name).c_str(), std::string(kReasonNotInRegistry).c_str(),
           RegistryName(options_.registry).c_str());
    }
  }
  auto lookup = [&](const char* name) -> std::optional<std::string_view> {
    auto it = options_.environment.find(name);
    if (it == options_.environment.end()) return std::nullopt;
    return std::string_view(it->second);
  };
  const std::vector<std::string> eligible =
      FilterEligible(signed_and_configured, lookup("LAS_ONLY"), lookup("LAS_SKIP"));
  const std::optional<std::string_view> only = lookup("LAS_ONLY");
  const bool only_names_nothing = only && NamesNothing(*only);
  if (only_names_nothing && !options_.quiet) {
    Note("LAS_ONLY is set but names no surface: none is served\n");
  }
  for (const char* variable : {"LAS_ONLY", "LAS_SKIP"}) {
    const auto list = lookup(variable);
    if (!list || options_.quiet) continue;
    // Cut: the variable is the operator's, but a line stays a line and a note a few lines
    // (probes FN3, FO5).
    constexpr size_t kMostNameBytes = 256;
    constexpr size_t kMostNamesNamed = 10;
    const std::vector<std::string> unmatched = UnmatchedNames(signed_and_configured, *list);
    for (size_t i = 0; i < unmatched.size() && i < kMostNamesNamed; ++i) {
      const std::string& name = unmatched[i];
      Note("%s names '%s%s', which is not a signed and configured surface\n", variable,
           EscapeForTerminal(name.substr(0, kMostNameBytes)).c_str(),
           name.size() > kMostNameBytes ? "..." : "");
    }
    if (unmatched.size() > kMostNamesNamed) {
      Note("%s names %zu more that are not signed and configured surfaces\n", variable,
           unmatched.size() - kMostNamesNamed);
    }
  }
  // Every surface subtracted, by names that did name some (probe FN2: nothing said so):
  // eligible is what the two leave of signed_and_configured.
  if (eligible.empty() && !signed_and_configured.empty() && !only_names_nothing &&
      !options_.quiet) {
    Note("LAS_ONLY and LAS_SKIP leave none of the %zu signed and configured surfaces: none is "
         "served\n",
         signed_and_configured.size());
  }
  for (const auto& name : signed_and_configured) StateOf(name).reason = std::string(kReasonSkipped);
  if (eligible.empty()) return Settle();

  // Special policies decide before anything is launched (docs/POLICIES.md).
  std::vector<std::pair<std::string, std::vector<std::string>>> to_launch;  // name, extra env
  for (const auto& name : eligible) {
    const ConfiguredSurface* configured = options_.registry.Find(name);
    SpecialAdmission admission =
        AdmitSpecial(configured->policy, *release_->manifest.FindSurface(name), policies_,
                     options_.environment, options_.secure);
    SurfaceState& state = StateOf(name);
    if (admission.absent) {
      state.reason = std::string(kReasonFinanceAbsent);
      continue;
    }
    if (!admission.verdict.ok()) {
      RecordRefusal(name, std::string(admission.verdict.reason_name()), admission.verdict.detail());
      // Las's own words (digests, paths): what `las check` shows too (probe GN2); cut, as a
      // policy file's unknown key it quotes may be of any length (probe GU2). Finance's
      // configuration refused was said at the start ("finance stays out"): not twice (JE).
      const bool said_at_start = configured->policy == SurfacePolicy::kFinance &&
                                 policies_.finance.any_set && !policies_.finance.verdict.ok();
      if (!options_.quiet && !said_at_start) {
        constexpr size_t kMostDetailBytes = 512;
        const std::string& detail = admission.verdict.detail();
        Note("surface %s left out (%s)%s%s%s\n", name.c_str(), state.reason.c_str(),
             detail.empty() ? "" : ": ", EscapeForTerminal(detail.substr(0, kMostDetailBytes)).c_str(),
             detail.size() > kMostDetailBytes ? "..." : "");
      }
      continue;
    }
    if (!admission.left_out.empty()) policy_left_out_[name] = std::move(admission.left_out);
    const std::string unset =
        UnsetDeclaredVariables(*release_->manifest.FindSurface(name), options_.environment);
    if (!unset.empty() && !options_.quiet) {
      Note("surface %s starts without the variables its release declares but this environment "
           "does not set: %s\n",
           name.c_str(), unset.c_str());
    }
    to_launch.emplace_back(name, std::move(admission.child_env));
  }
  if (to_launch.empty()) return Settle();

  LaunchOptions launch;
  launch.policy.environment = options_.environment;
  launch.policy.node_executable = options_.node_executable;
  if (auto workspace = options_.environment.find("LAS_WORKSPACE");
      workspace != options_.environment.end()) {
    launch.policy.workspace = workspace->second;
  }
  launch.start_timeout_ms = options_.start_timeout_ms;
  launch.plan_off_loop = options_.plan_off_loop;
  launch.other_credentials = cross_surface_credentials_;  // made at admission
  launching_ = to_launch.size();
  for (auto& [name, extra_env] : to_launch) {
    StateOf(name).reason = "starting";
    launch.extra_env = std::move(extra_env);
    launch.on_child_gone = [this, name = name] { OnChildGone(name); };
    RememberLaunch(name, launch);
    launch_aborts_[name] = LaunchSurface(
        io_, *release_->manifest.FindSurface(name), launch,
        [this](SurfaceLaunch launch_result) { OnLaunched(std::move(launch_result)); });
  }
}

void Federation::KeepOut(const std::string& surface, std::vector<trust::LiveTool>& live) const {
  std::erase_if(live, [&](const trust::LiveTool& tool) {
    return left_out_reasons_.count(QualifiedName(surface, tool.name)) != 0;
  });
}

void Federation::RecordAdmission(const std::string& surface,
                                 const std::vector<trust::LiveTool>& live,
                                 const std::vector<std::pair<std::string, std::string>>& withheld) {
  std::vector<log::EventDraft> drafts;
  const trust::SurfaceBinding* binding = release_->manifest.FindSurface(surface);
  drafts.push_back(SurfaceAdmittedEvent(*release_, *binding));
  drafts.push_back(CatalogLoadedEvent(surface, live, binding));
  for (const auto& [tool, reason] : withheld) {
    drafts.push_back(ToolWithheldEvent(surface, tool, reason));
  }
  Record(std::move(drafts));
  decided_.insert(surface);
}

void Federation::RecordRefusal(const std::string& surface, std::string reason, std::string detail) {
  Record({SurfaceRejectedEvent(surface, release_->manifest.sequence, reason, detail)});
  decided_.insert(surface);
  SurfaceState& state = StateOf(surface);
  state.reason = std::move(reason);
  state.detail = std::move(detail);
}

void Federation::RecordNoLongerServed() {
  std::vector<log::EventDraft> drafts;
  const uint64_t sequence = release_ ? release_->manifest.sequence : 0;
  // `recorded_reason`: the reason the log holds for a surface it counts as not served; a
  // state with the same reason is not recorded again.
  auto record_why = [&](const std::string& surface, std::optional<std::string_view> recorded_reason) {
    if (decided_.contains(surface)) return;
    auto state = std::find_if(states_.begin(), states_.end(),
                              [&](const SurfaceState& s) { return s.name == surface; });
    if (state == states_.end()) {  // not configured (any more)
      drafts.push_back(SurfaceRejectedEvent(surface, sequence, kReasonNotInRegistry, ""));
    } else if (state->reason != recorded_reason) {
      drafts.push_back(SurfaceRejectedEvent(surface, sequence, state->reason, state->detail));
    }
  };
  for (const std::string& surface : options_.recorded_served) record_why(surface, std::nullopt);
  for (const std::string& surface : options_.recorded_skipped) record_why(surface, kReasonSkipped);
  if (!drafts.empty()) Record(std::move(drafts));
}

void Federation::OnLaunched(SurfaceLaunch launch) {
  launch_aborts_.erase(launch.surface);
  if (shutting_down_) {  // aborted by Shutdown, or done too late: nothing is admitted now
    if (launch.client == nullptr) return ShutdownStep();
    return Retire(std::move(launch.client), [this] { ShutdownStep(); });
  }
  RefuseIfReleaseEnded(launch);
  SurfaceState& state = StateOf(launch.surface);
  const trust::SurfaceBinding* binding = release_->manifest.FindSurface(launch.surface);
  trust::SurfaceBinding exposed;  // the binding minus tools a local allowlist keeps out
  std::vector<std::pair<std::string, std::string>> withheld;  // tool, reason
  if (auto left = policy_left_out_.find(launch.surface); launch.ok && left != policy_left_out_.end()) {
    exposed = *binding;
    for (const auto& [tool, verdict] : left->second) {
      std::erase_if(exposed.tools, [&](const trust::ToolBinding& t) { return t.name == tool; });
      left_out_reasons_[QualifiedName(launch.surface, tool)] = std::string(verdict.reason_name());
      withheld.emplace_back(tool, verdict.reason_name());
      if (!options_.quiet) {
        Note("tool %s__%s left out (%s)\n", launch.surface.c_str(),
             tool.c_str(), std::string(verdict.reason_name()).c_str());
      }
    }
    binding = &exposed;  // the catalog takes only the tools it binds
  }
  if (launch.ok && launch.surface == "skarbiec" && !policies_.taxonomy && !options_.quiet) {
    Note("skarbiec capability calls will be refused (%s)\n",
         std::string(policies_.taxonomy_verdict.reason_name()).c_str());
  }
  if (launch.ok) {
    const auto uncompiled = catalog_.AddSurface(*binding, launch.live_tools);
    for (const auto& [tool, reason] : uncompiled) {
      withheld.emplace_back(tool, reason);
      left_out_reasons_[QualifiedName(launch.surface, tool)] = reason;
    }
    KeepOut(launch.surface, launch.live_tools);
    // SurfaceAdmitted names every signed tool, CatalogLoaded the tools served, ToolWithheld
    // each one Las keeps out and why.
    RecordAdmission(launch.surface, launch.live_tools, withheld);
    FirstAdmitted(launch.surface, std::move(withheld));
    for (const auto& [tool, reason] : uncompiled) {
      if (!options_.quiet) {
        Note("tool %s__%s left out (%s)\n", launch.surface.c_str(), tool.c_str(), reason.c_str());
      }
    }
    catalog_.SetSurfaceExtras(launch.surface, std::move(launch.prompts),
                              std::move(launch.resources), launch.titles);
    state.admitted = true;
    ever_admitted_.insert(launch.surface);
    state.reason.clear();
    state.tools = launch.live_tools.size();
    clients_[launch.surface] = std::move(launch.client);
    ++admitted_;
  } else {
    RecordRefusal(launch.surface, launch.reason, launch.detail);
    if (!options_.quiet) {
      // Why a child could not even be spawned is Las's own (a limit on descriptors or
      // processes, say) and what the operator must fix: said (probe FH3).
      Note("surface %s left out (%s%s%s)\n", launch.surface.c_str(), launch.reason.c_str(),
           SayableDetail(launch.reason, launch.detail, launch.surface).c_str(),
           launch.spawn_failure.empty() ? "" : (": " + EscapeForTerminal(launch.spawn_failure)).c_str());
    }
  }
  if (--launching_ == 0) Settle();
}

void Federation::Settle() {
  RecordNoLongerServed();
  // A release moves the watermark once it serves: when a surface was admitted, or when it
  // binds none (signed only to make older releases a rollback). One whose surfaces were all
  // left out — refused, unconfigured, or subtracted by LAS_ONLY/LAS_SKIP for this run — does
  // not use up its sequence (probe BW3).
  if (release_ && status_.ok() && (admitted_ > 0 || release_->manifest.surfaces.empty())) {
    // WatermarkAdvanced records the move of this log's watermark, not the file's: another
    // Las on the same file (another log directory) may have moved the file already, and
    // this log must still learn that the release superseded what it recorded, or deleting
    // the file would re-open rollback here (probe CX1).
    // It is appended (synced) before the file moves: a crash in between then leaves the
    // log ahead of the file, which refuses more, never less (probe CW2: the file said 2,
    // the log 1, and with the file deleted release 1 was served again). The log's record
    // stays if the file cannot move: this log did admit the release.
    const trust::WatermarkEntry* recorded = options_.recorded_watermarks.Find(release_->key_id);
    const uint64_t before = recorded != nullptr ? recorded->sequence : 0;
    if (release_->manifest.sequence > before) {
      Record({WatermarkAdvancedEvent(release_->key_id, before, release_->manifest.sequence,
                                     trust::Sha256Hex(release_->manifest_sha256))});
    }
    trust::Verdict committed =
        status_.ok() ? trust::ReleaseVerifier(*options_.clock, options_.secure).Commit(*release_)
                     : trust::Verdict::Accept();  // the log failed: the file stays with it
    if (!committed.ok()) {
      Record({ReleaseRejectedEvent(release_->key_id, release_->manifest.sequence,
                                   trust::Sha256Hex(release_->manifest_sha256),
                                   committed.reason_name(), committed.detail())});
      if (!options_.quiet) {
        Note("the watermark could not be moved (%s)\n",
             std::string(committed.reason_name()).c_str());
      }
      // Another admission moved it past this release meanwhile: serving on would bypass
      // the watermark. (A write that failed, a full disk, leaves the admitted serving.)
      if (committed.reason() == trust::Reason::kRollback ||
          committed.reason() == trust::Reason::kConflict) {
        Supersede(committed.reason_name());
      }
    }
  }
  settled_ = true;
  auto waiting = std::move(waiting_);
  for (auto& ready : waiting) boost::asio::post(io_, std::move(ready));
}

std::optional<std::string_view> Federation::LeftOutReason(std::string_view qualified_name) const {
  auto it = left_out_reasons_.find(qualified_name);
  if (it == left_out_reasons_.end()) return std::nullopt;
  return std::string_view(it->second);
}

transport::McpClient* Federation::ClientFor(std::string_view surface) {
  auto it = clients_.find(surface);
  return it == clients_.end() ? nullptr : it->second.get();
}

transport::McpClient* Federation::ServingClientFor(std::string_view surface) {
  if (shutting_down_) return nullptr;  // its child is being ended
  if (!release_expired_ && ReleaseExpired()) {
    // The wall clock passed the expiry before the timer looked: this call is refused, and
    // the surfaces stop now (posted: the caller is in the middle of a call).
    boost::asio::post(io_, [this] { ExpireRelease(); });
    return nullptr;
  }
  if (release_expired_) return nullptr;
  for (const SurfaceState& state : states_) {
    if (state.name != surface || !state.admitted) continue;
    // A child that just exited is not yet recorded stopped (that waits for its reap, to
    // tell how it ended), but already takes no call: refused as a stopped one's.
    transport::McpClient* client = ClientFor(surface);
    return client != nullptr && client->state() == transport::McpClient::State::kReady ? client
                                                                                       : nullptr;
  }
  return nullptr;
}

void Federation::Shutdown(std::function<void()> done) {
  if (shutting_down_ && shutdown_pending_ == 0) {  // already over
    boost::asio::post(io_, std::move(done));
    return;
  }
  shutdown_waiters_.push_back(std::move(done));
  if (shutting_down_) return;
  shutting_down_ = true;
  if (expiry_) expiry_->timer.cancel();
  shutdown_pending_ = 1 + clients_.size();  // 1: this call, stepped through the loop
  // A launch or restart under way reports to OnLaunched or OnRestarted, which end its
  // client and step.
  shutdown_pending_ += launch_aborts_.size() + AbortRestarts();
  std::vector<std::function<void()>> aborts;  // a copy: a launch's end erases its entry
  for (const auto& [name, abort] : launch_aborts_) aborts.push_back(abort);
  for (const auto& abort : aborts) abort();
  for (auto& [name, client] : clients_) client->Shutdown([this] { ShutdownStep(); });
  boost::asio::post(io_, [this] { ShutdownStep(); });
}

void Federation::ShutdownStep() {
  if (--shutdown_pending_ != 0) return;
  auto waiters = std::move(shutdown_waiters_);
  for (auto& done : waiters) done();
}

}  // namespace las::tools
