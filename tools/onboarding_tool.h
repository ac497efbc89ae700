// `las__onboarding`: the first-use journey (tools/onboarding_journey.h) as an MCP tool.
// Always listed, whatever the release admits.
//
// Arguments {"action": "status"|"check"|"mark"|"reset", "step": STEP}; action defaults to
// "status"; `step` is one of the journey's steps, required by mark and reset, optional for
// check (all steps when absent). The input schema enforces both, so a bad request is a
// ToolCallDenied (arguments-schema-violation) recorded by the gateway.
//
//   status  CatchUp() the live projections, answer the journey.
//   check   run the step's real check(s) on a worker thread (the surfaces check starts
//           children; the loop keeps serving), then append OnboardingStepCompleted /
//           OnboardingStepReset per result (synced) and answer the journey with the
//           results under "checked".
//   mark    append OnboardingStepCompleted{step, "marked"} (synced), answer the journey.
//   reset   append OnboardingStepReset{step, "operator-reset"} (synced), answer.
//
// Every event carries the session's agent and session id. The answer is JsonResult of
// JourneyJson (the same document `las onboarding --json` prints); it is sent only after
// the events are durable and folded into context.live. A failed append answers the
// generic "Tool call failed" error.
//
// A check's children get the server's --start-timeout. At most two checks run at once per
// server; a third is refused at once. A check whose client cancels it
// (notifications/cancelled), and every check under way when the server shuts down
// (BuiltinTools::Shutdown), is ended — its children too — its place freed and its call
// answered "Tool call failed" with nothing recorded.
//
// Threading: the handler runs on context.io's thread; append completions and check
// results are posted back to it. Worker threads are joined when `tools` is destroyed.
#pragma once

#include "tools/builtin_tools.h"
#include "tools/las_tools.h"

namespace las::tools {

// `context` and everything it refers to must outlive `tools`.
void AddOnboardingTool(BuiltinTools& tools, const LasToolContext& context);

}  // namespace las::tools
