#include "trust/secure_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/file_mode.h"
#include "base/path_error.h"

namespace las::trust {
namespace {

std::string Errno(int err) { return std::strerror(err); }

Verdict CheckRegularAndSize(const struct stat& st, const std::string& path,
                            const std::string& what, size_t max_bytes) {
  if (!S_ISREG(st.st_mode)) {
    return Reject(Reason::kFileNotRegular, what + " " + path + " is not a regular file");
  }
  if (st.st_size < 0 || static_cast<uint64_t>(st.st_size) > max_bytes) {
    return Reject(Reason::kFileTooLarge, what + " " + path + " is " + std::to_string(st.st_size) +
                                             " bytes, more than " + std::to_string(max_bytes));
  }
  return Verdict::Accept();
}

// Reads to end of file from offset 0 with pread, refusing more than max_bytes.
VerdictOr<std::string> ReadAll(int fd, const std::string& path, const std::string& what,
                               size_t max_bytes) {
  std::string out;
  char buffer[16 * 1024];
  off_t offset = 0;
  for (;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Reject(Reason::kIoError, "reading " + what + " " + path + ": " + Errno(errno));
    }
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
    offset += n;
    if (out.size() > max_bytes) {
      return Reject(Reason::kFileTooLarge,
                    what + " " + path + " grew past " + std::to_string(max_bytes) + " bytes");
    }
  }
  return out;
}

}  // namespace

Verdict OpenFailure(int err, const std::string& path, const std::string& what, bool nofollow) {
  // With O_NOFOLLOW, Linux reports a symlink in the last component as ELOOP.
  if (nofollow && err == ELOOP) {
    return Reject(Reason::kFileSymlink, what + " " + path + " is a symbolic link (refused: "
                                            "the file itself must be checked, not a link to it)");
  }
  if (err == ENOENT) return Reject(Reason::kFileMissing, what + " " + path + " does not exist");
  if (err == EACCES || err == EPERM) {
    return Reject(Reason::kFileAccessDenied, "cannot open " + what + " " + path + ": " + Errno(err));
  }
  if (std::string mistake = PathMistake(err); !mistake.empty()) {
    return Reject(Reason::kFilePathInvalid, "cannot open " + what + " " + path + ": " + mistake);
  }
  return Reject(Reason::kIoError, "cannot open " + what + " " + path + ": " + Errno(err));
}

uid_t ExpectedUid(const SecureFileOptions& options) {
  return options.expected_uid.value_or(::geteuid());
}

Verdict CheckSecureDescriptor(int fd, const std::string& path, const std::string& what,
                              const SecureFileOptions& options) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return Reject(Reason::kIoError, "cannot stat " + what + " " + path + ": " + Errno(errno));
  }
  if (S_ISLNK(st.st_mode)) {  // only reachable with an O_PATH descriptor; refuse anyway
    return Reject(Reason::kFileSymlink, what + " " + path + " is a symbolic link");
  }
  if (!S_ISREG(st.st_mode)) {
    return Reject(Reason::kFileNotRegular, what + " " + path + " is not a regular file");
  }
  const uid_t expected = ExpectedUid(options);
  if (st.st_uid != expected) {
    return Reject(Reason::kFileOwner, what + " " + path + " is owned by uid " +
                                          std::to_string(st.st_uid) + ", not uid " +
                                          std::to_string(expected));
  }
  if ((st.st_mode & 077) != 0) {
    return Reject(Reason::kFilePermissions,
                  what + " " + path + " has mode " + FileModeText(st.st_mode) +
                      "; group and other bits must be clear (chmod 600)");
  }
  return CheckRegularAndSize(st, path, what, options.max_bytes);
}

VerdictOr<UniqueFd> OpenSecureFile(const std::string& path, const std::string& what,
                                   const SecureFileOptions& options) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return OpenFailure(errno, path, what, /*nofollow=*/true);
  LAS_RETURN_IF_REJECTED(CheckSecureDescriptor(fd.get(), path, what, options));
  return fd;
}

VerdictOr<std::string> ReadSecureFile(const std::string& path, const std::string& what,
                                      const SecureFileOptions& options) {
  VerdictOr<UniqueFd> fd = OpenSecureFile(path, what, options);
  if (!fd.ok()) return fd.verdict();
  return ReadAll(fd->get(), path, what, options.max_bytes);
}

VerdictOr<std::string> ReadBoundedFile(const std::string& path, const std::string& what,
                                       size_t max_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return OpenFailure(errno, path, what, /*nofollow=*/false);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return Reject(Reason::kIoError, "cannot stat " + what + " " + path + ": " + Errno(errno));
  }
  LAS_RETURN_IF_REJECTED(CheckRegularAndSize(st, path, what, max_bytes));
  return ReadAll(fd.get(), path, what, max_bytes);
}

}  // namespace las::trust
