// A fresh directory under the system temp dir, removed with everything in it when the
// object dies. For tests and benchmarks.
#pragma once

#include <filesystem>
#include <string>

namespace las::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // A path inside the directory (not created).
  std::string Sub(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace las::testing
