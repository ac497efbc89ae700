// A scratch release for `las release` and `las check` tests: a workspace holding a copy of
// examples/surfaces/stand_in.py (the repository's file is never touched), key, trust
// store, watermark, manifest and signature paths in one temp dir, and the real `las`.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las::testing {

inline CommandResult Las(std::vector<std::string> args, const std::vector<std::string>& extra_env = {}) {
  args.insert(args.begin(), LAS_EXECUTABLE);
  return RunCommand(args, extra_env);
}

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline void Spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

inline unsigned ModeOf(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 07777 + 1;
  return st.st_mode & 07777;
}

class ReleaseScratch {
 public:
  ReleaseScratch() {
    std::filesystem::create_directories(workspace());
    std::filesystem::create_directories(tmp_.Sub("keys"));
    std::filesystem::create_directories(tmp_.Sub("release"));
    std::filesystem::create_directories(tmp_.Sub("state"));
    std::filesystem::permissions(tmp_.Sub("state"), std::filesystem::perms::owner_all);
    std::filesystem::copy_file(std::string(LAS_SOURCE_DIR) + "/examples/surfaces/stand_in.py", script());
  }

  std::string workspace() const { return tmp_.Sub("ws"); }
  std::string script() const { return tmp_.Sub("ws") + "/stand_in.py"; }
  std::string keys() const { return tmp_.Sub("keys"); }
  std::string secret_key() const { return keys() + "/release.key"; }
  std::string public_key() const { return keys() + "/release.pub"; }
  std::string trust_store() const { return tmp_.Sub("state") + "/trust.json"; }
  std::string watermark() const { return tmp_.Sub("state") + "/watermark.json"; }
  std::string manifest() const { return tmp_.Sub("release") + "/manifest.json"; }
  std::string signature() const { return tmp_.Sub("release") + "/manifest.sig"; }
  std::string Sub(const std::string& name) const { return tmp_.Sub(name); }

  CommandResult Keygen() {
    return Las({"release", "keygen", "--out-dir", keys(), "--trust-store", trust_store()});
  }
  CommandResult Draft(const std::string& surface = "echo") {
    return Las({"release", "draft", "--surface", surface, "--cwd", workspace(), "--workspace",
                workspace(), "--manifest", manifest(), "--", "/usr/bin/python3", script(), surface});
  }
  CommandResult Sign(std::vector<std::string> extra = {"--bump"}) {
    std::vector<std::string> args = {"release", "sign", "--manifest", manifest(), "--secret-key",
                                     secret_key(), "--out", signature()};
    args.insert(args.end(), extra.begin(), extra.end());
    return Las(args);
  }
  CommandResult Verify(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"release", "verify", "--manifest", manifest(), "--signature",
                                     signature(), "--trust-store", trust_store()};
    args.insert(args.end(), extra.begin(), extra.end());
    return Las(args);
  }
  CommandResult Check(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"check", "--manifest", manifest(), "--signature", signature(),
                                     "--trust-store", trust_store(), "--watermark", watermark(),
                                     "--workspace", workspace()};
    args.insert(args.end(), extra.begin(), extra.end());
    return Las(args);
  }

 private:
  TempDir tmp_;
};

}  // namespace las::testing
