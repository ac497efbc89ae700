#include "transport/leftovers.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "transport/proc_stat.h"
#include "transport/spawn_id.h"

namespace las::transport {
namespace {

std::optional<pid_t> PidNamed(const std::string& name) {
  pid_t pid = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (name.empty() || error != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return pid;
}

// Whether the process `spawner` names still runs: a living process has that pid, and it
// started no later than `descendant` did (a pid used again belongs to a later process).
bool StillRuns(pid_t spawner, uint64_t descendant_started) {
  if (spawner == ::getpid()) return true;
  const std::optional<uint64_t> started = LivingProcessStartTime(spawner);
  return started && *started <= descendant_started;
}

// Whether `parts` come of the same spawn as this process itself (the first part of the
// LAS_SPAWN_ID it was started with): a Las run from a process a dead Las left (a shell a
// surface opened) is one of those leftovers itself, and ends neither its own parent nor
// its siblings.
bool OfThisProcessesOwnSpawn(const std::vector<SpawnIdPart>& parts) {
  const char* own = std::getenv("LAS_SPAWN_ID");
  if (own == nullptr) return false;
  const std::vector<SpawnIdPart> own_parts = SpawnIdParts(own);
  return !own_parts.empty() && parts.front().spawner == own_parts.front().spawner &&
         parts.front().serial == own_parts.front().serial;
}

bool OfThisUser(const std::filesystem::path& proc) {
  struct stat owner {};
  return ::stat(proc.c_str(), &owner) == 0 && owner.st_uid == ::getuid();
}

}  // namespace

size_t EndLeftoversOfEndedSpawners() {
  size_t ended = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::optional<pid_t> pid = PidNamed(entry.path().filename().string());
    if (!pid || *pid == ::getpid()) continue;
    if (!OfThisUser(entry.path())) continue;
    const std::optional<uint64_t> started = LivingProcessStartTime(*pid);
    if (!started) continue;
    const std::optional<std::string> id = SpawnIdOf(*pid);
    if (!id || id->empty()) continue;
    const std::vector<SpawnIdPart> parts = SpawnIdParts(*id);
    if (parts.empty() || OfThisProcessesOwnSpawn(parts)) continue;
    const bool owned = std::any_of(parts.begin(), parts.end(), [&](const SpawnIdPart& part) {
      return StillRuns(part.spawner, *started);
    });
    if (!owned && ::kill(*pid, SIGKILL) == 0) ++ended;
  }
  return ended;
}

}  // namespace las::transport
