#include "transport/spawn_id.h"

#include <charconv>
#include <filesystem>
#include <fstream>

namespace las::transport {
namespace {

// The LAS_SPAWN_ID= value in one /proc environ file, or nullopt if it cannot be read.
std::optional<std::string> SpawnIdIn(const std::filesystem::path& environ_file) {
  std::ifstream environ(environ_file, std::ios::binary);
  if (!environ) return std::nullopt;
  // Bounded: Linux limits an environment to a quarter of the stack limit, which may be
  // large; an identifier further in than this is not looked for.
  constexpr size_t kMostRead = 4 << 20;
  size_t read = 0;
  bool any = false;
  for (std::string entry; read < kMostRead && std::getline(environ, entry, '\0');) {
    any = true;
    read += entry.size() + 1;
    if (entry.starts_with(kSpawnIdName)) return entry.substr(kSpawnIdName.size());
  }
  // Nothing at all: no memory to read (an exiting thread, one in the middle of an exec).
  if (!any) return std::nullopt;
  return "";
}

template <typename Number>
std::optional<Number> WholeNumber(std::string_view text) {
  Number value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::string> SpawnIdOf(pid_t pid) {
  const std::filesystem::path proc = "/proc/" + std::to_string(pid);
  if (auto id = SpawnIdIn(proc / "environ")) return id;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(proc / "task", ec)) {
    if (auto id = SpawnIdIn(task.path() / "environ")) return id;
  }
  return std::nullopt;
}

std::vector<SpawnIdPart> SpawnIdParts(std::string_view id) {
  std::vector<SpawnIdPart> parts;
  while (!id.empty()) {
    const size_t comma = id.find(',');
    const std::string_view part = id.substr(0, comma);
    const size_t dot = part.find('.');
    if (dot != std::string_view::npos) {
      const auto spawner = WholeNumber<pid_t>(part.substr(0, dot));
      const auto serial = WholeNumber<uint64_t>(part.substr(dot + 1));
      if (spawner && *spawner > 0 && serial) parts.push_back({*spawner, *serial});
    }
    if (comma == std::string_view::npos) break;
    id.remove_prefix(comma + 1);
  }
  return parts;
}

}  // namespace las::transport
