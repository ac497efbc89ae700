#include "log/rocks_info_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string_view>

namespace las::log {
namespace {

constexpr off_t kRotateAboveBytes = 1 << 20;
constexpr size_t kMaxBytesPerRun = 4 << 20;

class AppendedInfoLog final : public rocksdb::Logger {
 public:
  explicit AppendedInfoLog(int fd)
      : rocksdb::Logger(rocksdb::InfoLogLevel::WARN_LEVEL), fd_(fd) {}
  ~AppendedInfoLog() override {
    if (fd_ >= 0) ::close(fd_);
  }

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    char line[1024];
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                            now.time_since_epoch()).count() % 1'000'000;
    std::tm utc{};
    ::gmtime_r(&seconds, &utc);
    int used = std::snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ ",
                             utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour,
                             utc.tm_min, utc.tm_sec, static_cast<long long>(micros));
    if (used < 0) return;
    const int body = std::vsnprintf(line + used, sizeof line - static_cast<size_t>(used) - 1,
                                    format, ap);
    if (body < 0) return;
    size_t length =
        std::min(sizeof line - 2, static_cast<size_t>(used) + static_cast<size_t>(body));
    line[length++] = '\n';
    if (written_.fetch_add(length) + length > kMaxBytesPerRun) return;
    ssize_t n;
    while ((n = ::write(fd_, line, length)) < 0 && errno == EINTR) {
    }
    // A failed write is dropped on purpose (see the header).
  }

 private:
  int fd_;
  std::atomic<size_t> written_{0};
};

}  // namespace

void FollowerInfoLog::Logv(const char* format, va_list ap) {
  char line[1024];
  if (std::vsnprintf(line, sizeof line, format, ap) < 0) return;
  // RocksDB's WAL reporter: "[WARN] [file:line] PATH.log: dropping N bytes; REASON".
  const std::string_view text(line);
  const size_t dropping = text.find(".log: dropping ");
  if (dropping == std::string_view::npos) return;
  const size_t space = text.rfind(' ', dropping);
  const size_t start = space == std::string_view::npos ? 0 : space + 1;
  const size_t reason = text.find(';', dropping);
  const size_t end = reason == std::string_view::npos ? text.size() : reason;
  std::lock_guard lock(mutex_);
  if (wal_damage_.empty()) wal_damage_ = std::string(text.substr(start, end - start));
}

std::string FollowerInfoLog::wal_damage() const {
  std::lock_guard lock(mutex_);
  return wal_damage_;
}

std::shared_ptr<rocksdb::Logger> OpenWriterInfoLog(const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path path = fs::path(dir) / "LOG";
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec && size > static_cast<uintmax_t>(kRotateAboveBytes)) {
    fs::rename(path, fs::path(dir) / "LOG.old", ec);
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return std::make_shared<DiscardedInfoLog>();  // no info log beats no log
  return std::make_shared<AppendedInfoLog>(fd);
}

}  // namespace las::log
