#include "tools/las_tools.h"

#include "tools/admin_tools.h"
#include "tools/coordination_tools.h"
#include "tools/discovery_tools.h"
#include "tools/grant_admin.h"
#include "tools/grant_guard.h"
#include "tools/grant_tools.h"
#include "tools/onboarding_tool.h"
#include "tools/random_id.h"
#include "tools/source_guard.h"
#include "tools/special_policy_guard.h"

namespace las::tools {

void AddLasTools(BuiltinTools& tools, const LasToolContext& context) {
  AddOnboardingTool(tools, context);
  AddDiscoveryTools(tools, context);
  AddDocsTool(tools, context);
  if (context.options.admin) AddAdminTools(tools, context);
  AddGrantTools(tools, context, GrantPolicyFor(context.options.environment),
                [] { return RandomId(kGrantIdPrefix); });
  CoordinationOptions coordination;
  coordination.max_state_bytes_per_agent = context.options.max_state_bytes_per_agent;
  coordination.max_open_messages_per_agent = context.options.max_open_messages_per_agent;
  AddCoordinationTools(tools, context, std::move(coordination));
}

std::vector<std::unique_ptr<CallGuard>> MakeCallGuards(const LasToolContext& context) {
  std::vector<std::unique_ptr<CallGuard>> guards;
  // Source state first: a disabled source's tools are refused before any other rule.
  guards.push_back(std::make_unique<SourceGuard>(context.live, context.options.lazy));
  // Special surface policies: Skarbiec, Finance, Tama, Warsztat (docs/POLICIES.md).
  guards.push_back(std::make_unique<SpecialPolicyGuard>(context.options.registry, context.links));
  // Grants last: after every policy, before the call is logged (docs/GRANTS.md).
  guards.push_back(
      std::make_unique<GrantGuard>(context.live, GrantPolicyFor(context.options.environment)));
  return guards;
}

}  // namespace las::tools
