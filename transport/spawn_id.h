// LAS_SPAWN_ID, read back: the variable RealProcessSpawner adds to each child's
// environment ("<spawner pid>.<serial>", after any inherited one and a comma; see
// child_process.h), which everything the child starts inherits. It is how a Las tells
// what a child left behind.
//
// Thread safety: free functions; reads /proc afresh each call.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace las::transport {

inline constexpr char kSpawnIdVariable[] = "LAS_SPAWN_ID";
inline constexpr std::string_view kSpawnIdName = "LAS_SPAWN_ID=";  // as an environment entry

// The LAS_SPAWN_ID value in the environment `pid` was started with: "" when it has none,
// nullopt when it cannot be read (gone, another user's, not dumpable, in the middle of an
// exec). A process whose main thread has ended is read through another thread (probe BB1).
std::optional<std::string> SpawnIdOf(pid_t pid);

// One "<pid>.<serial>" part of a LAS_SPAWN_ID value.
struct SpawnIdPart {
  pid_t spawner = 0;
  uint64_t serial = 0;
};

// Every well-formed part of a LAS_SPAWN_ID value, outermost spawner first; malformed parts
// are skipped (a child may set the variable to anything for its own children).
std::vector<SpawnIdPart> SpawnIdParts(std::string_view id);

}  // namespace las::transport
