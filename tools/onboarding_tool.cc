#include "tools/onboarding_tool.h"

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <memory>
#include <set>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>

#include "log/event_log.h"
#include "projections/grants_projection.h"
#include "projections/onboarding_projection.h"
#include "projections/releases_projection.h"
#include "tools/federation.h"
#include "tools/gateway.h"
#include "tools/grant_policy.h"
#include "tools/live_projections.h"
#include "tools/loop_appender.h"
#include "tools/onboarding_journey.h"
#include "tools/recorded_watermarks.h"
#include "tools/source_guard.h"

namespace las::tools {
namespace {

constexpr std::string_view kDescription =
    "Las's first-use journey, shared with the `las onboarding` command: its steps (trust "
    "store present and safe, key configured, release verified, each surface checked, a first "
    "call made), the current step and what to do next. action: status (default), check "
    "(re-run the real check of `step`, or of every step), mark (record `step` as done by "
    "hand), reset (mark `step` to be done again). Progress is recorded in Las's log.";

std::string InputSchema() {
  std::string steps;
  for (const auto& step : OnboardingSteps()) {
    if (!steps.empty()) steps += ",";
    steps += "\"" + std::string(step.name) + "\"";
  }
  return R"({"type":"object","properties":{)"
         R"("action":{"type":"string","enum":["status","check","mark","reset"]},)"
         R"("step":{"type":"string","enum":[)" + steps + R"(]}},)"
         R"("additionalProperties":false,)"
         // mark and reset need a step; said as a condition, a refusal names what is wrong
         // (an anyOf named every branch's failure: probe EN3).
         R"("if":{"properties":{"action":{"enum":["mark","reset"]}},"required":["action"]},)"
         R"("then":{"required":["step"]}})";
}

// Check threads, joined when the tool table (and with it this object) goes away.
class Workers {
 public:
  ~Workers() {
    std::lock_guard lock(mutex_);
    for (auto& worker : workers_) worker.thread.join();
  }
  // False when no thread could be had (the user's process budget spent): `work` not run.
  bool Run(std::function<void()> work) {
    std::lock_guard lock(mutex_);
    // Join those that have finished, so threads do not pile up in a long session.
    for (auto it = workers_.begin(); it != workers_.end();) {
      if (it->finished->load()) {
        it->thread.join();
        it = workers_.erase(it);
      } else {
        ++it;
      }
    }
    auto finished = std::make_shared<std::atomic<bool>>(false);
    try {
      std::thread thread([work = std::move(work), finished] {
        work();
        finished->store(true);
      });
      workers_.push_back({std::move(thread), std::move(finished)});
    } catch (const std::system_error&) {
      return false;  // the server goes on; only this check fails (probe AE8)
    }
    return true;
  }

 private:
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;
  };
  std::mutex mutex_;
  std::vector<Worker> workers_;
};

constexpr std::string_view kRestartForFirstCall =
    "this server serves no surface's tool: it federated when it started (before the release "
    "verified, or with every surface refused) and keeps that for its life. Restart las serve "
    "from your MCP client (las list shows what a new start serves), then call one "
    "surface__tool; the step completes by itself";

constexpr std::string_view kEnableForFirstCall =
    "every source whose tools this server serves is disabled, and their calls are refused: "
    "enable one (las sources enable NAME; las sources lists them), then call one of its "
    "tools; the step completes by itself";

class OnboardingTool {
 public:
  explicit OnboardingTool(const LasToolContext& context) : context_(context) {}

  void Handle(const SessionInfo& session, const std::string& arguments_json,
              const std::shared_ptr<BuiltinCancel>& cancel,
              std::function<void(ToolCallReply)> done) {
    const auto arguments = nlohmann::json::parse(arguments_json, nullptr, false);
    const std::string action = arguments.is_object() ? arguments.value("action", "status") : "status";
    const std::string step = arguments.is_object() ? arguments.value("step", "") : "";
    const Actor actor{session.agent_id, session.session_id};
    if (action == "mark" || action == "reset") {
      // The journey is the whole log's, not this agent's: changing it by hand is the
      // operator's, or a root holder's.
      if (!HoldsRoot(session)) {
        done(Refused("no-root-grant"));
        return;
      }
      // The schema guarantees a known step here.
      std::vector<log::EventDraft> events;
      events.push_back(action == "mark" ? MarkEvent(step, actor) : ResetEvent(step, actor));
      AppendAndAnswer(std::move(events), action, {}, std::move(done));
      return;
    }
    if (action == "check") {
      // Every agent may check, and each check launches every surface's child on a thread of
      // its own: without a bound a client's burst of checks ran 120 threads and 80 children
      // at once (probe O2-1).
      if (checks_running_.size() >= kMaxRunningChecks) {
        done(ToolCallReply::Error(kCallFailed, "Too many onboarding checks running; retry later"));
        return;
      }
      if (shutting_down_) {
        done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
        return;
      }
      // Its own cancellation: the client's notifications/cancelled ends this check's
      // children at once and frees its place (probe Q2); the server's shutdown ends all.
      auto cancellation = std::make_shared<CheckCancellation>();
      checks_running_.insert(cancellation);
      cancel->OnCancel([cancellation] { cancellation->Cancel(); });
      (void)context_.live.CatchUp();
      reducers::Onboarding state = State();
      OnboardingCheckOptions options;
      options.environment = context_.options.environment;
      options.registry = context_.options.registry;
      options.node_executable = context_.options.node_executable;
      options.start_timeout_ms = context_.options.start_timeout_ms;
      if (const auto* releases = context_.live.Get<projections::ReleasesProjection>("releases")) {
        options.recorded_watermarks = RecordedWatermarks(releases->releases());
      }
      options.cancellation = cancellation.get();
      // Shared with the worker, so it is still here if no worker can be started.
      auto reply = std::make_shared<std::function<void(ToolCallReply)>>(std::move(done));
      const bool started = workers_.Run([this, step, options = std::move(options),
                                         state = std::move(state), actor, cancellation,
                                         reply]() mutable {
        std::vector<StepResult> results = CheckOnboardingSteps(step, options, state);
        boost::asio::post(context_.io, [this, actor, cancellation, results = std::move(results),
                                        done = std::move(*reply)]() mutable {
          checks_running_.erase(cancellation);
          // Ended by the client or the server's shutdown: the results describe that, not
          // the steps, and nothing is recorded.
          if (cancellation->cancelled()) {
            // No response when the client cancelled it; the error when the server stops.
            done(ToolCallReply::Cancelled(kCallFailed, "Tool call failed"));
            return;
          }
          std::vector<log::EventDraft> events = CheckEvents(results, actor);
          AppendAndAnswer(std::move(events), "check", std::move(results), std::move(done));
        });
      });
      if (!started) {
        checks_running_.erase(cancellation);
        (*reply)(ToolCallReply::Error(kCallFailed,
                                      "The onboarding check could not start (no thread to be had: "
                                      "the user's process limit is spent); retry later"));
      }
      return;
    }
    Answer("status", nullptr, std::move(done));
  }

  void EndChecks() {
    shutting_down_ = true;
    for (const auto& cancellation : checks_running_) cancellation->Cancel();
  }

 private:
  bool HoldsRoot(const SessionInfo& session) const {
    const std::string& agent_id = session.agent_id;
    if (GrantPolicyFor(context_.options.environment)
            .ImplicitRoot(agent_id, session.implicit_root_waived)) {
      return true;
    }
    if (!context_.live.CatchUp().ok()) return false;
    const auto* grants = context_.live.Get<projections::GrantsProjection>("grants");
    return grants != nullptr && grants->HoldsRoot(agent_id);
  }

  reducers::Onboarding State() const {
    const auto* projection = context_.live.Get<projections::OnboardingProjection>("onboarding");
    return projection != nullptr ? projection->state() : reducers::Onboarding{};
  }

  void Answer(std::string_view action, std::vector<StepResult>* checked,
              std::function<void(ToolCallReply)> done) {
    if (Status caught_up = context_.live.CatchUp(); !caught_up.ok()) {
      done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
      return;
    }
    if (checked != nullptr) {
      // The first-call check read the ledger before the check ran; a call may have
      // completed since (calls go on while a check runs). The log now holds it: report
      // what the reducer folded.
      for (StepResult& result : *checked) {
        if (result.step == kStepFirstCall && !result.passed) result = CheckFirstCallStep(State());
      }
    }
    JourneyView view = ViewJourney(State());
    if (view.current == kStepFirstCall) {
      if (std::optional<std::string_view> advice = FirstCallAdvice()) {
        view.next = std::string(*advice);
        for (JourneyRow& row : view.steps) {
          if (row.step == kStepFirstCall) row.next = view.next;
        }
      }
    }
    done(ToolCallReply::Result(
        JsonResult(JourneyJson(view, action, context_.live.sequence(), checked))));
  }

  // What blocks the first call on this server, when something does; nullopt: the usual
  // advice. The checks read the files as they are now, but this server federated when it
  // started and keeps that result for its life, so a release made since is not served here;
  // and a tool whose source is disabled is refused (probe CE1).
  std::optional<std::string_view> FirstCallAdvice() const {
    const Federation* federation = context_.links.federation;
    if (federation == nullptr) return std::nullopt;  // not known here
    bool serves_surface_tool = false;
    for (const CatalogTool& tool : federation->catalog().tools()) {
      if (tool.surface == kOwnSurface) continue;
      if (ToolSourceEnabled(context_.live, tool)) return std::nullopt;
      serves_surface_tool = true;
    }
    return serves_surface_tool ? kEnableForFirstCall : kRestartForFirstCall;
  }

  void AppendAndAnswer(std::vector<log::EventDraft> events, std::string action,
                       std::vector<StepResult> checked, std::function<void(ToolCallReply)> done) {
    if (events.empty()) {
      Answer(action, action == "check" ? &checked : nullptr, std::move(done));
      return;
    }
    context_.appender.Append(
        std::move(events), log::Durability::kSynced,
        [this, action = std::move(action), checked = std::move(checked),
         done = std::move(done)](Result<log::AppendedRange> appended) mutable {
          if (!appended.ok()) {
            done(ToolCallReply::Error(kCallFailed, "Tool call failed"));
            return;
          }
          Answer(action, action == "check" ? &checked : nullptr, std::move(done));
        });
  }

  static constexpr size_t kMaxRunningChecks = 2;

  LasToolContext context_;
  // The checks under way, each with what ends it; loop thread only (the workers hold
  // their own references while they run).
  std::set<std::shared_ptr<CheckCancellation>> checks_running_;
  bool shutting_down_ = false;
  Workers workers_;  // last: joined first, while context_ is whole
};

}  // namespace

void AddOnboardingTool(BuiltinTools& tools, const LasToolContext& context) {
  auto tool = std::make_shared<OnboardingTool>(context);
  tools.OnShutdown([tool] { tool->EndChecks(); });
  tools.AddWithCall("onboarding", std::string(kDescription), InputSchema(), Cancellable::kYes,
                    [tool](const SessionInfo& session, const BuiltinCall& call,
                           const std::string& arguments_json,
                           std::function<void(ToolCallReply)> done) {
                      tool->Handle(session, arguments_json, call.cancel, std::move(done));
                    });
}

}  // namespace las::tools
