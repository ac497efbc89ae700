// Reading files that hold trust (the trust store, the watermark) so that nobody but the
// current user can have planted or edited them, and reading other release files bounded.
//
// ReadSecureFile opens the path with O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_NONBLOCK and then
// checks the *opened descriptor* with fstat(2), so the checks and the read concern the
// same inode (no check-then-open race):
//
//   - the final path component is not a symbolic link      (else kFileSymlink)
//   - it is a regular file                                 (else kFileNotRegular)
//   - it is owned by the expected uid (default geteuid())  (else kFileOwner)
//   - no group or other permission bits (mode & 077 == 0)  (else kFilePermissions)
//   - at most max_bytes long                               (else kFileTooLarge)
//
// O_NOFOLLOW refuses only a symlink in the *last* component; directories above it are
// the operator's to secure (they are normally the user's own config/state directories).
// O_NONBLOCK keeps a FIFO planted at the path from blocking the open; it is then refused
// as not regular. A missing file is kFileMissing, one this user may not open (EACCES,
// EPERM) kFileAccessDenied, a path that cannot name a file (a part of it a file, a loop, too
// long) kFilePathInvalid; other open/read failures are kIoError with the errno text.
//
// Thread safety: free functions with no shared state.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>

#include "trust/reason.h"
#include "base/unique_fd.h"

namespace las::trust {

inline constexpr size_t kDefaultMaxSecureFileBytes = 1024 * 1024;

struct SecureFileOptions {
  // The uid that must own the file; nullopt means geteuid(). Tests inject another uid to
  // show the owner check without needing a second account.
  std::optional<uid_t> expected_uid;
  size_t max_bytes = kDefaultMaxSecureFileBytes;
};

// Why opening `path` failed with errno `err`: kFileSymlink (ELOOP under O_NOFOLLOW),
// kFileMissing, kFileAccessDenied (EACCES, EPERM), kFilePathInvalid (ENOTDIR, ELOOP
// otherwise, ENAMETOOLONG: base/path_error.h) or kIoError; `what` names the file.
Verdict OpenFailure(int err, const std::string& path, const std::string& what,
                    bool nofollow = false);

// The uid SecureFileOptions resolves to.
uid_t ExpectedUid(const SecureFileOptions& options);

// Opens `path` and checks the descriptor as above. On success the caller owns the
// returned descriptor (O_RDONLY, close-on-exec). `what` names the file in details
// ("trust store", "watermark").
VerdictOr<UniqueFd> OpenSecureFile(const std::string& path, const std::string& what,
                                   const SecureFileOptions& options = {});

// The checks of OpenSecureFile on an already open descriptor (borrowed, not closed).
Verdict CheckSecureDescriptor(int fd, const std::string& path, const std::string& what,
                              const SecureFileOptions& options = {});

// OpenSecureFile, then the whole content (at most options.max_bytes; a file that grows
// past the bound while being read is kFileTooLarge).
VerdictOr<std::string> ReadSecureFile(const std::string& path, const std::string& what,
                                      const SecureFileOptions& options = {});

// For release files whose integrity comes from the signature (manifest, signature file):
// opened with O_RDONLY|O_CLOEXEC|O_NONBLOCK (symlinks followed: anyone may hand Las a
// signed release), must be a regular file of at most `max_bytes`. No owner or mode
// checks.
VerdictOr<std::string> ReadBoundedFile(const std::string& path, const std::string& what,
                                       size_t max_bytes);

}  // namespace las::trust
