// Las's own grant tools, for agents (docs/GRANTS.md §Delegation):
//   las__grants          what the calling agent holds (grants, rules, implicit root) and
//                        the grants it issued;
//   las__grant_delegate  issue another agent a grant delegated from one the caller holds —
//                        `all` (only from a grant that covers everything) or exact
//                        selectors the parent covers: never wider;
//   las__grant_revoke    revoke a grant the caller issued; everything delegated from it is
//                        revoked with it.
// A refused delegation or revocation is a tool error (isError) with a static text naming a
// stable reason code. What the folded grants already refuse is refused before anything is
// appended; otherwise the event (GrantIssued / GrantRevoked, with the caller as actor) is
// appended and, once durable and folded, the answer is what the log made of it: a grant
// event appended meanwhile by another session (the parent revoked, a child delegated) is
// folded first, so a delegation the reducer voided is refused (`not-held`,
// `wider-than-held`) and a revocation lists every grant it ended.
//
// Threading: handlers run on the gateway's loop; appends go through the loop appender
// (tools/loop_appender.h) and complete on the loop.
#pragma once

#include <functional>
#include <string>

#include "tools/builtin_tools.h"
#include "tools/grant_policy.h"
#include "tools/las_tools.h"

namespace las::tools {

inline constexpr std::string_view kGrantsTool = "las__grants";
inline constexpr std::string_view kGrantDelegateTool = "las__grant_delegate";
inline constexpr std::string_view kGrantRevokeTool = "las__grant_revoke";

// `new_grant_id` is the injected randomness for grant ids. `context` must outlive `tools`.
void AddGrantTools(BuiltinTools& tools, const LasToolContext& context, GrantPolicy policy,
                   std::function<std::string()> new_grant_id);

}  // namespace las::tools
