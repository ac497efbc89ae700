// The environment variables a verb reads, as its `--help` names them (docs/CLI.md has the
// details): a flag is in the option list, a variable only here, so the help says both.
//
// Thread safety: pure functions.
#pragma once

#include <string>

namespace las::cli {

// The variables of the verbs that federate surfaces (`serve`, `daemon`, `list`): the
// release, the workspace, LAS_ONLY/LAS_SKIP, LAS_NODE, credentials and special policies;
// with `sessions`, also the default agent's (LAS_AGENT_ID, LAS_DEFAULT_AGENT_GRANT).
std::string FederationEnvironmentHelp(bool sessions);

// The variables `las check` reads beyond its flags' own defaults: LAS_NODE, credentials
// and special policies.
std::string CheckEnvironmentHelp();

// The variables `las release draft` reads beyond its flags' own defaults: LAS_NODE, and the
// credentials a drafted tool's definition must not carry.
std::string DraftEnvironmentHelp();

}  // namespace las::cli
