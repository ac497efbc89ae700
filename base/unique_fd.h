// UniqueFd: sole ownership of one open file descriptor, closed on destruction.
//
// Shared by trust/ (launch plans hand the descriptors it opened and hashed to the
// launcher, which executes exactly them) and transport/ (pipes of child processes), so
// ownership must be explicit and move-only.
//
// Thread safety: like any value; do not share one UniqueFd between threads.
#pragma once

#include <unistd.h>

#include <utility>

namespace las {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) Reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }

  bool valid() const { return fd_ >= 0; }
  // Borrowed: valid while this object owns it.
  int get() const { return fd_; }
  // Gives up ownership; the caller must close the result.
  int Release() { return std::exchange(fd_, -1); }
  void Reset(int fd = -1) {
    // close(2) errors on a read-only descriptor carry no information worth acting on.
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace las
