#include "tools/server_core.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <cstdio>
#include <optional>
#include <set>
#include <vector>

#include "base/note.h"
#include "base/printable_text.h"
#include "log/event_log.h"
#include "projections/catalog_projection.h"
#include "projections/releases_projection.h"
#include "projections/sessions_projection.h"
#include "tools/decision_events.h"
#include "tools/federation.h"
#include "tools/gateway.h"
#include "tools/handles_in_creation.h"
#include "tools/las_tools.h"
#include "tools/live_projections.h"
#include "tools/loop_appender.h"
#include "tools/random_id.h"
#include "tools/recorded_watermarks.h"
#include "tools/sealed_log.h"
#include "tools/snapshot_key_file.h"
#include "tools/special_policies.h"
#include "tools/worker_thread.h"
#include "transport/child_process.h"

namespace las::tools {
namespace {

std::optional<std::string> Lookup(const trust::Environment& env, const char* name) {
  auto it = env.find(name);
  if (it == env.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

FederationOptions FederationOptionsFor(const ServerOptions& options,
                                       const BuiltinTools& builtins) {
  FederationOptions federation;
  federation.builtin_tools = builtins.Definitions();
  federation.registry = options.registry;
  federation.environment = options.environment;
  federation.node_executable = options.node_executable;
  federation.restart_delay_ms = options.restart_delay_ms;
  federation.start_timeout_ms = options.start_timeout_ms;
  return federation;
}

trust::Watermarks RecordedWatermarksOf(const LiveProjections& live) {
  const auto* releases = live.Get<projections::ReleasesProjection>("releases");
  return releases == nullptr ? trust::Watermarks{} : RecordedWatermarks(releases->releases());
}

// The surfaces the log's catalog counts as served (admitted, or stopped with its tools),
// and those it last recorded as skipped.
void SetRecordedSurfaces(const LiveProjections& live, FederationOptions& federation) {
  const auto* catalog = live.Get<projections::CatalogProjection>("catalog");
  if (catalog == nullptr) return;
  for (const auto& [name, surface] : catalog->catalog().surfaces) {
    if (surface.admitted || !surface.tools.empty()) {
      federation.recorded_served.insert(name);
    } else if (surface.reason == kReasonSkipped) {
      federation.recorded_skipped.insert(name);
    }
  }
}

GatewayOptions GatewayOptionsFor(const ServerOptions& options, const BuiltinTools& builtins,
                                 const std::vector<std::unique_ptr<CallGuard>>& guards,
                                 WorkerThread& validation) {
  GatewayOptions gateway;
  gateway.run_off_loop = validation.Runner();
  gateway.builtins = &builtins;
  for (const auto& guard : guards) gateway.guards.push_back(guard.get());
  gateway.call_timeout_ms = options.call_timeout_ms;
  gateway.calls_in_flight_per_surface = options.calls_in_flight_per_surface;
  gateway.calls_in_flight_per_session = options.calls_in_flight_per_session;
  if (options.relaxed_durability) gateway.request_durability = log::Durability::kDeferred;
  gateway.new_call_id = [] { return RandomId("call-"); };
  return gateway;
}

LiveOptions LiveFor(const ServerOptions& options) {
  LiveOptions live;
  live.snapshot_every = options.snapshot_every;
  live.snapshot_after_own_size = true;
  live.snapshot_key_file = options.snapshot_key_file;
  // A key that whoever writes the log directory can replace seals nothing (probe DC3: a
  // swapped key and a snapshot sealed with it made the server serve a forged state).
  if (!live.snapshot_key_file.empty() && KeyFileInsideLog(live.snapshot_key_file, options.log_dir)) {
    Note("snapshots and the head seal disabled: the snapshot key %s is inside the log "
         "directory; keep it outside (log/FORMAT.md, Snapshots)\n",
         EscapeForTerminal(live.snapshot_key_file).c_str());
    live.snapshot_key_file.clear();
  }
  return live;
}

}  // namespace

// Members in construction order: each refers only to those above it.
struct ServerCore::Parts {
  Parts(boost::asio::io_context& io, ServerOptions opts, std::unique_ptr<log::EventLog> log_)
      : options(std::move(opts)), log(std::move(log_)),
        live(*log, LiveFor(options)),
        appender(io, *log, &live),
        handles_in_creation(HandlesStoredIn(live)),
        context{io, *log, live, appender, handles_in_creation, options, links}, child_exits(io) {}

  ServerOptions options;
  std::unique_ptr<log::EventLog> log;
  LiveProjections live;
  LoopAppender appender;
  HandlesInCreation handles_in_creation;  // for the tools (context) and the gateway
  ServerLinks links;
  LasToolContext context;
  BuiltinTools builtins;
  std::vector<std::unique_ptr<CallGuard>> guards;
  // Runs the federation's launch checks, hashing the children's files, off the loop
  // (LaunchOptions::plan_off_loop). Joined after the federation is gone: a job owns copies.
  WorkerThread launch_checks;
  std::unique_ptr<Federation> federation;
  // Checks the gateway's large arguments off the loop (GatewayOptions::run_off_loop).
  WorkerThread validation;
  std::unique_ptr<Gateway> gateway;
  boost::asio::signal_set child_exits;  // SIGCHLD, with options.reap_adopted_orphans
  std::function<void()> on_log_failure;  // ServerCore::OnLogFailure

  void ReapOrphansAsTheyExit() {
    child_exits.async_wait([this](const boost::system::error_code& error, int) {
      if (error) return;  // cancelled: the server is going away
      (void)transport::ReapAdoptedOrphans(/*kill_living=*/false);
      ReapOrphansAsTheyExit();
    });
  }
};

namespace {

// This process holds the log's only writer lock, so a session the log still has open was
// served by a process that ended without recording it (a crash, kill -9, power loss):
// record that it ended, as "lost", before serving anyone.
Status CloseLostSessions(log::EventLog& log, LiveProjections& live) {
  const auto* sessions = live.Get<projections::SessionsProjection>("sessions");
  if (sessions == nullptr) return Status::Ok();
  std::vector<log::EventDraft> closed;
  for (const auto& [id, session] : sessions->sessions().open) {
    closed.push_back(SessionClosedEvent(Actor{session.agent_id, id}, kSessionLost));
  }
  if (closed.empty()) return Status::Ok();
  if (auto appended = log.Append(std::move(closed)); !appended.ok()) return appended.status();
  return live.CatchUp();
}

}  // namespace

Result<std::unique_ptr<ServerCore>> ServerCore::Open(boost::asio::io_context& io,
                                                     const ServerOptions& options) {
  (void)transport::BecomeChildSubreaper();
  transport::IgnoreWriteSignals();
  auto log = OpenSealedLog(options.log_dir, options.snapshot_key_file, {},
                           options.adopt_another_keys_seal ? SealWriter::kAdoptingServer
                                                           : SealWriter::kServer);
  if (!log.ok()) return log.status();
  auto parts = std::make_unique<Parts>(io, options, std::move(*log));
  // A call timeout is a promise about time: no sync may hold the loop past a deadline.
  if (options.call_timeout_ms > 0) parts->appender.SyncOffLoopAlways();
  // A block that fails its checksum is found here, not at the open (probe IO2).
  if (Status folded = parts->live.CatchUp(); !folded.ok()) return WithRestoreAdvice(folded);
  if (Status closed = CloseLostSessions(*parts->log, parts->live); !closed.ok()) return closed;
  // Not told on stderr here: the server ends with this failure as its exit status, and
  // the command's error line says it, once (probe AP3: it was said twice).
  parts->appender.OnFailure([p = parts.get()](const Status&) {
    if (p->on_log_failure) p->on_log_failure();
  });
  AddLasTools(parts->builtins, parts->context);
  parts->guards = MakeCallGuards(parts->context);
  FederationOptions federation = FederationOptionsFor(parts->options, parts->builtins);
  federation.plan_off_loop = parts->launch_checks.Runner();
  federation.recorded_watermarks = RecordedWatermarksOf(parts->live);
  SetRecordedSurfaces(parts->live, federation);
  federation.on_log_failure_while_serving = [p = parts.get()](const Status& failure) {
    p->appender.NoteFailure(failure);
  };
  parts->federation = std::make_unique<Federation>(io, *parts->log, std::move(federation));
  parts->links.federation = parts->federation.get();
  GatewayOptions gateway =
      GatewayOptionsFor(parts->options, parts->builtins, parts->guards, parts->validation);
  gateway.handles = &parts->handles_in_creation;
  parts->gateway = std::make_unique<Gateway>(parts->appender, *parts->federation,
                                             std::move(gateway));
  parts->links.gateway = parts->gateway.get();
  if (parts->options.reap_adopted_orphans) {
    boost::system::error_code ignored;
    parts->child_exits.add(SIGCHLD, ignored);
    parts->ReapOrphansAsTheyExit();
  }
  return std::unique_ptr<ServerCore>(new ServerCore(std::move(parts)));
}

ServerCore::ServerCore(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

ServerCore::~ServerCore() {
  if (!parts_) return;
  // The gateway refers to the federation and the guards; the federation to the log. The
  // validation worker goes after the gateway, with the rest of parts_: a check still queued
  // is dropped, a running one finishes, and its verdict (posted to a loop that no longer
  // runs) is never acted on.
  parts_->gateway.reset();
  parts_->federation.reset();
}

void ServerCore::Start(std::function<void()> ready) {
  parts_->federation->Start([this, ready = std::move(ready)] {
    if (parts_->federation->WasAdmitted("skarbiec")) {
      if (auto problem = SkarbiecAgentIdProblem(parts_->options.environment)) {
        // The message is Las's own text: the variable's value is never in it.
        Note("skarbiec is admitted but %s\n", problem->c_str());
      }
    }
    ready();
  });
}
void ServerCore::OnLogFailure(std::function<void()> stop) {
  parts_->on_log_failure = std::move(stop);
}

void ServerCore::NoteLogFailure(const Status& failure) { parts_->appender.NoteFailure(failure); }

Status ServerCore::FlushLogAtExit() {
  if (!status().ok()) return Status::Ok();
  Status flushed = parts_->log->Flush();
  if (flushed.ok()) return flushed;
  return IoError(flushed.message() +
                 " at exit; the events are safe in the log's write-ahead log, and the next "
                 "start recovers them");
}
Status ServerCore::status() const {
  const Status& federated = parts_->federation->status();
  // A log found damaged while serving — a background compaction that reads a block below
  // the snapshot the start folded from fails the next append — gets the same advice as one
  // found at the start (probe IV3).
  return federated.ok() ? WithRestoreAdvice(parts_->appender.failure()) : federated;
}
Federation& ServerCore::federation() { return *parts_->federation; }
Gateway& ServerCore::gateway() { return *parts_->gateway; }
log::EventLog& ServerCore::log() { return *parts_->log; }
LiveProjections& ServerCore::live() { return parts_->live; }
LoopAppender& ServerCore::appender() { return parts_->appender; }
const ServerOptions& ServerCore::options() const { return parts_->options; }

EndpointOptions ServerCore::NewEndpointOptions(std::string transport) const {
  const trust::Environment& env = parts_->options.environment;
  EndpointOptions endpoint;
  endpoint.default_agent_id = Lookup(env, "LAS_AGENT_ID").value_or(std::string("default"));
  if (parts_->federation->WasAdmitted("skarbiec")) {
    // Skarbiec is active: only its configured agent may open a session.
    // With SKARBIEC_MCP_AGENT_ID unset no agent id can match (a control character is
    // never a valid agent id): every session is refused, closed rather than open.
    endpoint.required_agent_id =
        Lookup(env, "SKARBIEC_MCP_AGENT_ID").value_or(std::string("\x01"));
    endpoint.required_agent_reason = std::string(kReasonSkarbiecAgentId);
  }
  endpoint.new_session_id = [] { return RandomId("session-"); };
  endpoint.transport = std::move(transport);
  return endpoint;
}

void ServerCore::Shutdown(std::function<void()> done) {
  parts_->builtins.Shutdown();   // no tool's own thread waits for children to start
  parts_->gateway->EndChecks();  // no call waits for a check while the children go
  parts_->federation->Shutdown(std::move(done));
}

}  // namespace las::tools
