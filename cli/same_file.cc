#include "cli/same_file.h"

#include <sys/stat.h>

#include <filesystem>
#include <optional>

namespace las::cli {
namespace {

std::filesystem::path NormalAbsolute(const std::string& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return (error ? std::filesystem::path(path) : absolute).lexically_normal();
}

// The device and inode `path` resolves to (symlinks followed); nullopt if nothing is there.
std::optional<std::pair<dev_t, ino_t>> Identity(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::make_pair(st.st_dev, st.st_ino);
}

}  // namespace

bool SameFile(const std::string& a, const std::string& b) {
  const std::filesystem::path normal_a = NormalAbsolute(a);
  const std::filesystem::path normal_b = NormalAbsolute(b);
  if (normal_a == normal_b) return true;
  const auto file_a = Identity(normal_a);
  const auto file_b = Identity(normal_b);
  if (file_a || file_b) return file_a == file_b;
  // Neither exists yet: whichever is made first, the other would then name it.
  if (normal_a.filename() != normal_b.filename()) return false;
  const auto dir_a = Identity(normal_a.parent_path());
  return dir_a && dir_a == Identity(normal_b.parent_path());
}

Status RefuseSameFile(const NamedPath& written, std::span<const NamedPath> others) {
  if (written.path.empty()) return Status::Ok();
  for (const NamedPath& other : others) {
    if (!other.path.empty() && SameFile(written.path, other.path)) {
      return InvalidArgument(written.role + " and " + other.role + " are the same file (" +
                             written.path + "); give each its own path, nothing was written");
    }
  }
  return Status::Ok();
}

}  // namespace las::cli
