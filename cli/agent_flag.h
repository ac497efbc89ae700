// The `--agent A` filter of `las replay`, `las grants`, `las rules` and `las inspect
// messages`: an agent id as Las binds one (tools/grant_policy.h: 1 to 256 bytes of
// printable UTF-8). An empty or unprintable value selects nothing a session could have
// bound, so it is a usage error (exit 2) rather than a filter that matches nothing or
// everything.
#pragma once

#include <CLI/CLI.hpp>

namespace las::cli {

CLI::Validator AgentIdFlag();

}  // namespace las::cli
