#include "base/private_directories.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace las {

Result<bool> MakePrivateDirectories(const std::string& dir) {
  std::error_code error;
  if (std::filesystem::is_directory(dir, error)) return false;
  const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
  if (!parent.empty() && parent != std::filesystem::path(dir)) {
    auto above = MakePrivateDirectories(parent.string());
    if (!above.ok()) return above.status();
  }
  if (::mkdir(dir.c_str(), 0700) == 0) return true;
  const int failure = errno;
  if (failure == EEXIST && std::filesystem::is_directory(dir, error)) return false;
  const std::string message = "creating directory " + dir + ": " + std::strerror(failure);
  if (failure == EACCES || failure == EPERM) return Denied(message);
  return IoError(message);
}

}  // namespace las
