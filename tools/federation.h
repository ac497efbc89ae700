// Federation: from configuration to a catalog of admitted surfaces, once per process.
//
//   1. the release named by LAS_RELEASE_* is verified (trust/release_verifier.h), and
//      checked against the watermarks the log recorded — ReleaseAccepted or
//      ReleaseRejected; with no release configured, no surface is
//      eligible and Las serves only its own tools;
//   2. eligible = configured (registry) ∩ signed (manifest), then LAS_ONLY / LAS_SKIP
//      subtract;
//   3. every eligible surface is launched concurrently on the one io_context
//      (tools/surface_launcher.h) — SurfaceAdmitted + CatalogLoaded, or SurfaceRejected
//      with its reason; a failed surface is left out and the others keep serving;
//   2b. the special surface policies (tools/special_policies.h, docs/POLICIES.md) decide
//      before launch: Skarbiec's pinned tools, Finance's local configuration (absent
//      without any LAS_FINANCE_* variable: left out quietly, no event), Tama's and
//      Warsztat's allowlists (signed tools outside them never enter the catalog; a call to
//      one is denied with the policy's reason) — a rejection is SurfaceRejected;
//   3b. an admitted surface whose child exits by itself is recorded SurfaceStopped and
//      started again after a backoff (tools/restart_backoff.h) through the same launch
//      checks, handshake and signed-tools comparison (so it serves the memoized catalog's
//      tools). A start that passes is recorded
//      SurfaceAdmitted + CatalogLoaded again; one that fails is SurfaceStopped with the
//      reason, retried only when the child failed to start or list (a trust failure such
//      as a changed binary stays stopped). Never after the release expired, nor during
//      Shutdown (which ends a start under way);
//   3c. when the release expires while it is served, every admitted surface is stopped
//      (SurfaceStopped, reason "expired") and its child ended: an expired release admits
//      nothing, and its calls fail until las restarts with one that has not expired;
//   4. when all have settled and at least one surface was admitted (or none was
//      eligible), the watermark moves to this release — atomically and durably — and
//      WatermarkAdvanced is recorded. A release whose every surface failed does not move it.
//
// Stderr names only static surface names and reason codes, never child output.
// Threading: construct, Start() and query on the io_context's thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "log/event_log.h"
#include "tools/catalog.h"
#include "tools/registry.h"
#include "tools/surface_launcher.h"
#include "tools/special_policies.h"
#include "trust/argument_schema.h"
#include "trust/environment.h"
#include "trust/release_verifier.h"
#include "trust/secure_file.h"

namespace boost::asio {
class io_context;
}
namespace las::transport {
class McpClient;
}

namespace las::tools {

struct ExpiryWatch;
struct SurfaceRestarts;

using trust::kSchemaUnsupported;

struct FederationOptions {
  Registry registry = DefaultRegistry();
  trust::Environment environment;  // Las's environment: LAS_* and the children's variables
  std::string node_executable;     // the current Node, if children may use it
  const WallClock* clock = &SystemWallClock();
  trust::SecureFileOptions secure;
  int64_t start_timeout_ms = 30'000;
  // Where each launch's checks run (LaunchOptions::plan_off_loop); null: on the loop.
  std::function<void(std::function<void()> job)> plan_off_loop;
  bool quiet = false;  // no stderr notes (tests)
  std::vector<CatalogTool> builtin_tools;  // Las's own tools (tools/builtin_tools.h)
  // Restarting a stopped surface (tools/restart_backoff.h): the first wait; 0 = never.
  int64_t restart_delay_ms = 1'000;
  int64_t max_restart_delay_ms = 60'000;
  const MonotonicClock* monotonic = &SystemMonotonicClock();
  // Each trust key's watermark as the log recorded it (WatermarkAdvanced, the "releases"
  // projection). A release below it, or at it with other bytes, is refused even when the
  // watermark file says less: a deleted or replaced file must not re-open rollback that
  // the log has already seen.
  trust::Watermarks recorded_watermarks;
  // The surfaces the log's catalog still counts as served (admitted, or stopped with its
  // tools): each one this start does not admit or refuse by itself — no longer signed or
  // configured, skipped, its release refused — gets a SurfaceRejected saying why, so the
  // log's view follows what is served (probe AF1).
  std::set<std::string> recorded_served;
  // The surfaces whose latest record is kReasonSkipped: one this start finds no longer
  // signed or configured gets a SurfaceRejected saying so; a skipped record marks none of
  // its grants, so it stayed "skipped" for good once the release dropped it.
  std::set<std::string> recorded_skipped;
  // Told of a failed append after the federation settled (a surface stopped or restarted
  // while serving), on the loop: the server must end as on any other failed write. Before
  // it settled, a failed append fails the federation itself (status()).
  std::function<void(const Status&)> on_log_failure_while_serving;
};

// One configured surface's fate, for `las list` and `las check`-like reports.
struct SurfaceState {
  std::string name;
  bool admitted = false;
  std::string reason;  // "not-signed", "skipped", a trust reason, "start-failed", ...
  std::string detail;
  size_t tools = 0;
};

class Federation {
 public:
  Federation(boost::asio::io_context& io, log::EventLog& log, FederationOptions options);
  ~Federation();
  Federation(const Federation&) = delete;
  Federation& operator=(const Federation&) = delete;

  // Runs the federation once; later calls get the memoized result. `ready` runs on the
  // loop when every surface has settled. A log failure is fatal to the federation and
  // reported by status().
  void Start(std::function<void()> ready);
  const Status& status() const { return status_; }

  const Catalog& catalog() const { return catalog_; }
  const std::vector<SurfaceState>& surfaces() const { return states_; }
  // The admitted surface's client, even while its child is stopped; nullptr if it was
  // never admitted, or once its release stopped every surface (expired, superseded).
  transport::McpClient* ClientFor(std::string_view surface);
  // Whether this process admitted `surface`, whatever it is now (stopped, restarting, its
  // release expired or superseded): what session policy asks — Skarbiec's agent id stays
  // required for the life of the process once it was admitted (probe CG2).
  bool WasAdmitted(std::string_view surface) const { return ever_admitted_.count(surface) != 0; }
  // The client a call may be sent to now: nullptr while the surface is stopped, and for
  // every surface once Shutdown began.
  transport::McpClient* ServingClientFor(std::string_view surface);
  const trust::Environment& environment() const { return options_.environment; }
  // CrossSurfaceCredentialValues of the release, made once when the release is admitted
  // (tools/credentials.h): what no child may hand back (empty before, or without a release).
  const std::vector<std::string>& cross_surface_credentials() const {
    return cross_surface_credentials_;
  }
  // Why every surface was stopped while serving ("expired", "release-superseded"), or
  // nullopt while the release stands: the error code of the calls that stop cut off.
  std::optional<std::string_view> ReleaseEndReason() const {
    if (!release_ended_) return std::nullopt;
    return release_ended_->reason;
  }
  // The local special policies, loaded once by Start().
  const SpecialPolicies& policies() const { return policies_; }
  // The reason a signed tool (`surface__tool`) was kept out of the catalog: a local
  // policy's, e.g. "policy-tool-not-allowed", or kSchemaUnsupported; nullopt if it was not.
  std::optional<std::string_view> LeftOutReason(std::string_view qualified_name) const;

  // Ends every child (SIGTERM to its group, then SIGKILL) and reaps — also those of first
  // launches still under way, which then admit nothing — cancels pending restarts and
  // ends a restart under way; `done` on the loop. No surface starts after it.
  void Shutdown(std::function<void()> done);
  // The server is ending and lets its calls in flight settle first: no surface is started
  // again from now on (a pending restart is cancelled, one under way is ended and recorded
  // stopped; a stop is recorded with no restart), while the children serving those calls
  // keep running until Shutdown.
  void StopRestarting();

 private:
  void AdmitRelease();
  void LaunchEligible();
  void OnLaunched(SurfaceLaunch launch);
  void Settle();
  // SurfaceRejected for recorded_served surfaces this start decided nothing about, and
  // for recorded_skipped ones it no longer skips.
  void RecordNoLongerServed();
  void Record(std::vector<log::EventDraft> drafts);
  // SurfaceRejected for `surface` of the served release, in the log and in its state.
  void RecordRefusal(const std::string& surface, std::string reason, std::string detail);
  SurfaceState& StateOf(const std::string& name);
  // An admitted surface's child exited by itself: recorded, no longer counted as loaded,
  // and started again later (federation_restart.cc).
  void OnChildGone(const std::string& surface);
  void RememberLaunch(const std::string& surface, const LaunchOptions& launch);
  void FirstAdmitted(const std::string& surface,
                     std::vector<std::pair<std::string, std::string>> withheld);
  // Cancels pending restarts and aborts those under way; returns how many were under way.
  size_t AbortRestarts();
  void ScheduleRestart(const std::string& surface, int64_t delay_ms);
  struct Refusal {
    std::string reason;
    std::string detail;
  };
  // The first admission's checks that come before a launch, as the files are now: the
  // release the files hold must verify and be the one served, and the surface's special
  // policy must admit it alike. On success, `launch` gets the policy's child environment.
  std::optional<Refusal> AdmissionRefusal(const std::string& surface, LaunchOptions& launch);
  // Shuts `client` down and destroys it once its failures are delivered; `done` first.
  void Retire(std::unique_ptr<transport::McpClient> client, std::function<void()> done);
  void Restart(const std::string& surface);
  void OnRestarted(SurfaceLaunch launch);
  // Records SurfaceStopped; `delay_ms` is RestartBackoff::kNever or the wait before the
  // next start, which this schedules.
  void Stopped(const std::string& surface, std::string_view reason, const std::string& detail,
               int64_t delay_ms);
  // The watermark commit found a newer release admitted meanwhile (`commit_refusal`:
  // rollback or conflict): every admitted surface is stopped and its child ended.
  void Supersede(std::string_view commit_refusal);
  // Every admitted surface is stopped for `reason` and its child ended; none restarts.
  void StopEverySurface(std::string_view reason, const std::string& detail);
  // Arms the timer that calls ExpireRelease at the served release's expiry
  // (federation_expiry.cc); cancelled by Shutdown.
  void WatchExpiry();
  // Stops every admitted surface for the release's expiry; once (later calls do nothing).
  void ExpireRelease();
  // Whether the served release has expired by the wall clock now.
  bool ReleaseExpired() const;
  // A launch that ended after the release expired, or after StopEverySurface withdrew it
  // (superseded), admits nothing: it becomes a refusal with that reason and its child is
  // ended.
  void RefuseIfReleaseEnded(SurfaceLaunch& launch);
  // Removes from `live` the signed tools kept out of the catalog (left_out_reasons_: a
  // local allowlist, or a schema Las cannot compile).
  void KeepOut(const std::string& surface, std::vector<trust::LiveTool>& live) const;
  // SurfaceAdmitted, CatalogLoaded and a ToolWithheld per tool kept out: one batch.
  void RecordAdmission(const std::string& surface, const std::vector<trust::LiveTool>& live,
                       const std::vector<std::pair<std::string, std::string>>& withheld);
  void ShutdownStep();

  boost::asio::io_context& io_;
  log::EventLog& log_;
  FederationOptions options_;
  Status status_;
  bool started_ = false;
  bool settled_ = false;
  std::vector<std::function<void()>> waiting_;
  std::optional<trust::AcceptedRelease> release_;
  std::vector<std::string> cross_surface_credentials_;
  size_t launching_ = 0;
  // The aborts of first launches under way (LaunchSurface), for Shutdown.
  std::map<std::string, std::function<void()>, std::less<>> launch_aborts_;
  size_t admitted_ = 0;
  std::vector<SurfaceState> states_;
  // The surfaces this start recorded a verdict for (admitted or refused).
  std::set<std::string> decided_;
  std::map<std::string, std::unique_ptr<transport::McpClient>, std::less<>> clients_;
  Catalog catalog_;
  SpecialPolicies policies_;
  // Per surface: signed tools a local allowlist keeps out, with the refusal.
  std::map<std::string, std::vector<std::pair<std::string, trust::Verdict>>, std::less<>>
      policy_left_out_;
  // Qualified name -> why a signed tool is kept out (a policy's reason, kSchemaUnsupported).
  std::map<std::string, std::string, std::less<>> left_out_reasons_;
  // Per launched surface: what a restart needs (tools/surface_restarts.h).
  std::map<std::string, std::unique_ptr<SurfaceRestarts>, std::less<>> restarts_;
  // Clients being shut down after a restart replaced them (or a restart was abandoned):
  // kept until their Shutdown has delivered every pending call's failure.
  std::vector<std::unique_ptr<transport::McpClient>> retired_;
  std::unique_ptr<ExpiryWatch> expiry_;  // armed once a release is admitted
  bool release_expired_ = false;         // ExpireRelease ran
  // Why StopEverySurface stopped every surface for good (expired, superseded); a restart
  // under way when it ran is refused with it when it ends (probe CG1).
  std::optional<Refusal> release_ended_;
  std::set<std::string, std::less<>> ever_admitted_;  // WasAdmitted
  bool shutting_down_ = false;
  bool restarts_stopped_ = false;  // StopRestarting
  size_t shutdown_pending_ = 0;
  std::vector<std::function<void()>> shutdown_waiters_;
};

}  // namespace las::tools
