// A preload library (LD_PRELOAD) for tests of a disk whose syncs never complete: while the
// file named by LAS_TEST_STALL_SYNC_FILE exists, fdatasync(2) and fsync(2) of a RocksDB
// write-ahead log (a descriptor whose path ends in ".log" in a directory other than the
// info log's) wait until it is removed; the first such wait creates that name plus
// ".reached", so a test can await it. A real disk cannot be made to hang on cue; this
// stands for one in a real `las` process. Everything else passes through.
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

bool IsWal(int fd) {
  char link[64];
  char path[PATH_MAX];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = ::readlink(link, path, sizeof path - 1);
  if (n <= 4) return false;
  path[n] = '\0';
  return std::strcmp(path + n - 4, ".log") == 0 && std::strstr(path, "/LOG") == nullptr;
}

void WaitWhileStalled(int fd) {
  const char* stall = std::getenv("LAS_TEST_STALL_SYNC_FILE");
  if (stall == nullptr || !IsWal(fd)) return;
  if (::access(stall, F_OK) != 0) return;
  char reached[PATH_MAX];
  std::snprintf(reached, sizeof reached, "%s.reached", stall);
  const int marker = ::open(reached, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (marker >= 0) ::close(marker);
  const timespec tick{0, 10'000'000};
  while (::access(stall, F_OK) == 0) ::nanosleep(&tick, nullptr);
}

template <typename Sync>
Sync Real(const char* name) {
  return reinterpret_cast<Sync>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" int fdatasync(int fd) {
  static const auto real = Real<int (*)(int)>("fdatasync");
  WaitWhileStalled(fd);
  return real(fd);
}

extern "C" int fsync(int fd) {
  static const auto real = Real<int (*)(int)>("fsync");
  WaitWhileStalled(fd);
  return real(fd);
}
