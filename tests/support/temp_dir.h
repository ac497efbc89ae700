// A fresh directory under the system temp dir, removed with everything in it when the
// object dies. For tests and benchmarks.
#pragma once

#include <filesystem>
#include <map>
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

// Every file directly in `dir` with its bytes, by name: what "nothing was written" compares.
std::map<std::string, std::string> FileContents(const std::filesystem::path& dir);

}  // namespace las::testing
