// Federation: starting an admitted surface again after its child stopped (federation.h,
// step 3b), through the first launch's path. The catalog was memoized at the first
// admission; a restarted child lists exactly the tools first admitted, because both lists
// passed CheckToolList against the same signed binding, which compares them exactly.
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>

#include "tools/decision_events.h"
#include "base/note.h"
#include "tools/federation.h"
#include "tools/surface_restarts.h"
#include "transport/mcp_client.h"
#include "trust/manifest.h"
#include "trust/release_paths.h"
#include "trust/release_verifier.h"

namespace las::tools {
namespace {

constexpr std::string_view kReasonChildExited = "child-exited";
// The files LAS_RELEASE_* name now hold another release than the one this process serves.
constexpr std::string_view kReasonReleaseChanged = "release-changed";
// The local policy would now keep other signed tools out than at the admission.
constexpr std::string_view kReasonPolicyChanged = "policy-changed";
// While this process started its release, another admission moved the watermark past it:
// a newer release is the one admissible now.
constexpr std::string_view kReasonReleaseSuperseded = "release-superseded";

// A start refused for this reason may pass later with nothing re-signed or reconfigured:
// the child failed, or a release file was missing, unreadable or in a bad state for a
// moment (a deploy, an editor saving — with other permissions, or half written —, a
// directory swapped for a symbolic link: file-path-invalid, io-error before it had its own
// reason; probe JW7: a trust store open to the group for a moment stopped the surface for
// good; probe KD3: a signature file copied half-way). A half-written manifest is not among
// them: it fails the signature, as a tampered one does. Nothing is admitted while the state
// is bad: each try refuses again. Every other refusal (changed bytes, an expired or
// replaced release, a changed policy) stops the surface until las restarts.
bool MayPassLater(std::string_view reason) {
  using trust::Reason;
  for (const Reason passing :
       {Reason::kFileMissing, Reason::kFilePathInvalid, Reason::kIoError, Reason::kFileAccessDenied,
        Reason::kFilePermissions, Reason::kFileOwner, Reason::kFileSymlink, Reason::kFileNotRegular,
        Reason::kTrustStoreInvalid, Reason::kWatermarkInvalid, Reason::kSignatureFormat}) {
    if (reason == trust::ReasonName(passing)) return true;
  }
  return reason == kReasonStartFailed || reason == kReasonListFailed;
}

std::vector<std::string> ToolNames(
    const std::vector<std::pair<std::string, trust::Verdict>>& left_out) {
  std::vector<std::string> names;
  for (const auto& [tool, verdict] : left_out) names.push_back(tool);
  std::sort(names.begin(), names.end());
  return names;
}

// What an operator can learn of how the child ended, without any of its output.
std::string ExitDetail(const transport::McpClient* client) {
  const std::optional<int> status = client != nullptr ? client->wait_status() : std::nullopt;
  if (!status) return "its output closed";
  if (WIFEXITED(*status)) return "exit status " + std::to_string(WEXITSTATUS(*status));
  if (WIFSIGNALED(*status)) {
    // A child that closed its stdout but ran on was ended by Las (probe CG4).
    return client->ended_by_las()
               ? "its output closed, and las ended it (signal " +
                     std::to_string(WTERMSIG(*status)) + ")"
               : "killed by signal " + std::to_string(WTERMSIG(*status));
  }
  return "its output closed";
}

}  // namespace

void Federation::RememberLaunch(const std::string& surface, const LaunchOptions& launch) {
  restarts_[surface] = std::make_unique<SurfaceRestarts>(
      io_, launch, RestartBackoff(options_.restart_delay_ms, options_.max_restart_delay_ms));
}

void Federation::FirstAdmitted(const std::string& surface,
                               std::vector<std::pair<std::string, std::string>> withheld) {
  SurfaceRestarts& restarts = *restarts_.at(surface);
  restarts.withheld = std::move(withheld);
  restarts.started_nanos = options_.monotonic->NowNanos();
}

void Federation::OnChildGone(const std::string& surface) {
  SurfaceState& state = StateOf(surface);
  // A child that ended on its own before Las's shutdown ended it is recorded even when its
  // end is seen during the shutdown (a child that closed its output was stopped unrecorded
  // when the client left at once: a flaky test, sessions 49 and 51); Las's own ending of
  // its children reports nothing (transport/mcp_client.h on_child_gone).
  if (!state.admitted) return;
  state.admitted = false;
  SurfaceRestarts& restarts = *restarts_.at(surface);
  const int64_t ran_ms = (options_.monotonic->NowNanos() - restarts.started_nanos) / 1'000'000;
  Stopped(surface, kReasonChildExited, ExitDetail(ClientFor(surface)),
          restarts.backoff.AfterStop(ran_ms));
}

void Federation::Stopped(const std::string& surface, std::string_view reason,
                         const std::string& detail, int64_t delay_ms) {
  // A restart with the same files refuses a rollback, a key no longer trusted, changed
  // bytes, ... as this one did: the operator is pointed to what tells (probe HU2) — not
  // for a child that ended with restarts off, which no file kept out (HV3).
  const bool files_refused = reason != kReasonChildExited && !MayPassLater(reason);
  std::string next = delay_ms != RestartBackoff::kNever
                         ? "started again in " + std::to_string(delay_ms) + " ms"
                     : files_refused
                         ? "its tools fail until las restarts (`las check` tells whether the "
                           "files now admit it)"
                         : "its tools fail until las restarts";
  std::string recorded = detail;
  if (delay_ms != RestartBackoff::kNever && (restarts_stopped_ || shutting_down_)) {
    delay_ms = RestartBackoff::kNever;
    next = "las is ending, so it is not started again";
  } else if (delay_ms != RestartBackoff::kNever &&
             !trust::CheckExpiry(release_->manifest, options_.clock->NowMicros()).ok()) {
    delay_ms = RestartBackoff::kNever;  // an expired release admits nothing new
    next = "the release has expired, so it is not started again: its tools fail until las "
           "restarts with a release that has not";
    recorded += std::string(recorded.empty() ? "" : "; ") +
                "not started again: the release has expired";
  } else if (delay_ms != RestartBackoff::kNever && release_ended_) {
    // A restart under way when the release was superseded, which then failed (probe CH2).
    delay_ms = RestartBackoff::kNever;
    next = "its release stopped every surface (" + release_ended_->reason +
           "), so it is not started again: its tools fail until las restarts";
    recorded += std::string(recorded.empty() ? "" : "; ") + "not started again: " +
                release_ended_->reason;
  }
  SurfaceState& state = StateOf(surface);
  state.reason = std::string(reason);
  state.detail = detail + "; " + next;
  Record({SurfaceStoppedEvent(surface, reason, recorded, delay_ms)});
  if (!options_.quiet) {  // the reason code only: the detail (paths, digests) is in the log
    Note("surface %s stopped (%s); %s\n", surface.c_str(),
         std::string(reason).c_str(), next.c_str());
  }
  if (delay_ms != RestartBackoff::kNever) ScheduleRestart(surface, delay_ms);
}

void Federation::Supersede(std::string_view commit_refusal) {
  if (!options_.quiet) {
    Note("release %llu was superseded while it started (%s): its surfaces are "
         "stopped; restart las to serve the release the watermark now admits\n",
         static_cast<unsigned long long>(release_->manifest.sequence),
         std::string(commit_refusal).c_str());
  }
  StopEverySurface(kReasonReleaseSuperseded,
                   "the watermark commit of release " + std::to_string(release_->manifest.sequence) +
                       " was refused: " + std::string(commit_refusal));
}

void Federation::StopEverySurface(std::string_view reason, const std::string& detail) {
  release_ended_ = Refusal{std::string(reason), detail};
  for (SurfaceState& state : states_) {
    if (!state.admitted) {
      // A restart waiting for its timer ends here, recorded with this reason; one under way
      // is refused with it when it ends (RefuseIfReleaseEnded).
      auto restarts = restarts_.find(state.name);
      if (restarts != restarts_.end() && restarts->second->timer.cancel() > 0) {
        Stopped(state.name, reason, detail, RestartBackoff::kNever);
      }
      continue;
    }
    state.admitted = false;
    if (auto client = clients_.find(state.name); client != clients_.end()) {
      std::unique_ptr<transport::McpClient> ending = std::move(client->second);
      clients_.erase(client);  // a shutdown ends what clients_ holds
      if (ending != nullptr) Retire(std::move(ending), [] {});
    }
    Stopped(state.name, reason, detail, RestartBackoff::kNever);
  }
}

void Federation::ScheduleRestart(const std::string& surface, int64_t delay_ms) {
  boost::asio::steady_timer& timer = restarts_.at(surface)->timer;
  timer.expires_after(std::chrono::milliseconds(delay_ms));
  timer.async_wait([this, surface](const boost::system::error_code& error) {
    if (error || shutting_down_ || restarts_stopped_) return;  // cancelled: las is ending
    Restart(surface);
  });
}

std::optional<Federation::Refusal> Federation::AdmissionRefusal(const std::string& surface,
                                                                LaunchOptions& launch) {
  auto refusal = [](const trust::Verdict& verdict) {
    return Refusal{std::string(verdict.reason_name()), verdict.detail()};
  };
  auto paths = trust::ReleasePathsFromEnvironment(options_.environment);
  if (!paths.ok()) return refusal(paths.verdict());
  auto release = trust::ReleaseVerifier(*options_.clock, options_.secure).Verify(*paths);
  if (!release.ok()) return refusal(release.verdict());
  if (release->manifest_sha256 != release_->manifest_sha256) {
    // Under another key the sequences are not comparable: both keys named, so that a
    // rotation's "4 -> 1" is not read as a rollback (probe IE3).
    const bool rotated = release->key_id != release_->key_id;
    return Refusal{std::string(kReasonReleaseChanged),
                   "the release files now hold release " +
                       std::to_string(release->manifest.sequence) +
                       (rotated ? " of key " + release->key_id : "") + "; this process serves " +
                       std::to_string(release_->manifest.sequence) +
                       (rotated ? " of key " + release_->key_id : "")};
  }
  const SurfacePolicy policy = options_.registry.Find(surface)->policy;
  const SpecialPolicies now = LoadSpecialPolicies(options_.environment, options_.secure);
  SpecialAdmission admission = AdmitSpecial(policy, *release_->manifest.FindSurface(surface), now,
                                            options_.environment, options_.secure);
  if (admission.absent) {
    return Refusal{std::string(kReasonFinanceAbsent), "no LAS_FINANCE_* variable is set"};
  }
  if (!admission.verdict.ok()) return refusal(admission.verdict);
  auto admitted_left_out = policy_left_out_.find(surface);
  if (ToolNames(admission.left_out) !=
      (admitted_left_out == policy_left_out_.end() ? std::vector<std::string>{}
                                                   : ToolNames(admitted_left_out->second))) {
    return Refusal{std::string(kReasonPolicyChanged),
                   "the local allowlist now keeps other tools out than at the admission"};
  }
  // The calls are judged by the taxonomy read at the admission (SpecialPolicyGuard): a
  // surface restarted under another file would be served under rules `las check` no
  // longer shows (probe EJ3).
  if (policy == SurfacePolicy::kSkarbiec && now.taxonomy != policies_.taxonomy) {
    return Refusal{std::string(kReasonPolicyChanged),
                   "the Skarbiec taxonomy file now differs from the one read at the admission"};
  }
  launch.extra_env = std::move(admission.child_env);
  return std::nullopt;
}

void Federation::Restart(const std::string& surface) {
  SurfaceRestarts& restarts = *restarts_.at(surface);
  // Everything the first admission checked before the launch, as the files are now.
  if (auto refused = AdmissionRefusal(surface, restarts.launch)) {
    Stopped(surface, refused->reason, refused->detail,
            MayPassLater(refused->reason) ? restarts.backoff.AfterFailedStart()
                                          : RestartBackoff::kNever);
    return;
  }
  StateOf(surface).reason = "starting";
  restarts.abort = LaunchSurface(io_, *release_->manifest.FindSurface(surface), restarts.launch,
                                 [this](SurfaceLaunch launch) { OnRestarted(std::move(launch)); });
}

void Federation::OnRestarted(SurfaceLaunch launch) {
  SurfaceRestarts& restarts = *restarts_.at(launch.surface);
  restarts.abort = nullptr;
  if (shutting_down_) {
    if (launch.client == nullptr) return ShutdownStep();
    Retire(std::move(launch.client), [this] { ShutdownStep(); });
    return;
  }
  if (restarts_stopped_ && launch.ok) {  // done as StopRestarting aborted it: not admitted
    Retire(std::move(launch.client), [] {});
    launch.ok = false;
    launch.reason = std::string(kReasonStartFailed);
    launch.detail = "the launch was aborted";
  }
  RefuseIfReleaseEnded(launch);
  if (launch.ok) KeepOut(launch.surface, launch.live_tools);
  if (!launch.ok) {
    Stopped(launch.surface, launch.reason, launch.detail,
            MayPassLater(launch.reason) ? restarts.backoff.AfterFailedStart()
                                        : RestartBackoff::kNever);
    return;
  }
  RecordAdmission(launch.surface, launch.live_tools, restarts.withheld);
  // The new child's own lists, as the first start's were kept (probe V2): the inventory
  // shows what the child serving now declares.
  catalog_.SetSurfaceExtras(launch.surface, std::move(launch.prompts), std::move(launch.resources),
                            launch.titles);
  restarts.started_nanos = options_.monotonic->NowNanos();
  std::unique_ptr<transport::McpClient>& current = clients_[launch.surface];
  if (current != nullptr) Retire(std::move(current), [] {});
  current = std::move(launch.client);
  SurfaceState& state = StateOf(launch.surface);
  state.admitted = true;
  state.reason.clear();
  state.detail.clear();
  if (!options_.quiet) {
    Note("surface %s started again\n", launch.surface.c_str());
  }
}

void Federation::Retire(std::unique_ptr<transport::McpClient> client,
                        std::function<void()> done) {
  transport::McpClient* retiring = client.get();
  retired_.push_back(std::move(client));
  // Shutdown delivers every failure it causes before `done`; the client may go only
  // after both, and not inside its own callback: posted.
  retiring->Shutdown([this, retiring, done = std::move(done)] {
    if (!shutting_down_) {  // else it goes with the federation, which may go after `done`
      boost::asio::post(io_, [this, retiring] {
        std::erase_if(retired_, [&](const auto& kept) { return kept.get() == retiring; });
      });
    }
    done();
  });
}

void Federation::StopRestarting() {
  restarts_stopped_ = true;
  for (auto& [name, restarts] : restarts_) {
    restarts->timer.cancel();
    // One under way ends too, and reports to OnRestarted, which admits nothing now (probe
    // HG1: it was admitted, "started again", while the calls in flight settled).
    if (restarts->abort) restarts->abort();
  }
}

size_t Federation::AbortRestarts() {
  size_t under_way = 0;
  for (auto& [name, restarts] : restarts_) {
    restarts->timer.cancel();
    if (restarts->abort) {
      ++under_way;
      restarts->abort();
    }
  }
  return under_way;
}

}  // namespace las::tools
