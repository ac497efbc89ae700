// Environment: a snapshot of environment variables as a map, injected wherever trust/
// reads the environment (release paths, the child's declared variables), so tests never
// touch the real process environment and nothing reads getenv(3) behind a caller's back.
//
// Values may be secrets (a child's API key): never put a value into a Verdict detail or a
// log line; names are fine.
//
// Thread safety: value type; EnvironmentFromProcess reads `environ` and must not race
// with setenv(3).
#pragma once

#include <map>
#include <string>

namespace las::trust {

using Environment = std::map<std::string, std::string>;

// A copy of this process's environment (the first definition wins for a repeated name,
// as getenv(3) does).
Environment EnvironmentFromProcess();

}  // namespace las::trust
