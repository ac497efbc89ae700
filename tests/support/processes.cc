#include "tests/support/processes.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace las::testing {

std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // Read with read(2): a process that ends meanwhile fails the read (ESRCH), which an
    // istreambuf_iterator turns into an exception.
    std::string stat;
    if (const int fd = ::open((entry.path() / "stat").c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
      char buffer[1024];
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0) stat.assign(buffer, static_cast<size_t>(n));
      ::close(fd);
    }
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == parent) {
      children.push_back(std::stoi(name));
    }
  }
  return children;
}

}  // namespace las::testing
