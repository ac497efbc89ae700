// Launch-time checks for one surface of an accepted release, and the LaunchPlan that
// lets the launcher (transport/, tools/) execute exactly the bytes that were checked.
//
// PlanLaunch opens everything it checks and checks the *open descriptors*:
//
//   - cwd: opened O_DIRECTORY; the path the kernel reports for the descriptor
//     (/proc/self/fd/N, i.e. after `..` and every symlink) must be LAS_WORKSPACE (itself
//     realpath-resolved) or inside it                          -> kWorkspaceEscape
//   - command: exactly "/usr/bin/python3", or exactly the current Node executable
//     (LaunchPolicy::node_executable), or a file whose resolved path is inside the
//     workspace                                                -> kCommandNotAllowed
//   - the command's bytes, hashed through the open descriptor (Sha256OfFile), equal
//     binary_sha256                                            -> kDigestMismatch
//     — a file over kMaxLaunchedFileBytes is not hashed at all -> kFileTooLarge
//   - a script command's `#!` line runs nothing the release does not pin: no workspace
//     interpreter, no code-loading options or env assignments (trust/shebang.h)
//                                                              -> kCodeNotPinned
//   - the code path (the script an interpreter runs): resolved inside the workspace
//     (kWorkspaceEscape), hashed through its open descriptor, equal to code_sha256
//     (kDigestMismatch; over kMaxLaunchedFileBytes: kFileTooLarge)
//   - a Python interpreter runs the system's standard library and native modules, not
//     ones found around a copy of it or named by a virtual environment's `home`
//     (trust/python_stdlib.h; probe GD1)                      -> kCodeNotPinned
//
// The plan keeps those descriptors open. The launcher must execute `binary` itself
// (fexecve(3) / execveat(fd, "", ..., AT_EMPTY_PATH)), never the path, and fchdir(2) to
// `cwd`: replacing a file or a directory at its path after the check then changes
// nothing. An interpreter opens its script by path, which would reopen the race, so for
// Python the plan's argv names the script as "/dev/fd/N", N being the kept-open, hashed
// descriptor (Linux reopens the same inode through /proc/self/fd); Python resolves
// sys.path[0] through the link, so a script's sibling imports still work (they are not
// pinned by the manifest). Node cannot run a multi-file ES module from "/dev/fd/N" (its
// relative imports resolve against the main module's location), so Node gets the
// kernel-resolved path of the hashed file: for Node children a swap of the entry script
// in the microseconds between the check and Node's open is not excluded (documented).
//
// Residual risk, documented in docs/RELEASES.md: the descriptors pin the inode, not its
// content; someone who can write into the very file (same inode) between the hash and
// the exec changes what runs. The workspace is the operator's own tree.
//
// Environment: the child's env is PATH=kChildPath, kNoUserSite, and each declared name that
// is present in LaunchPolicy::environment, nothing else. Declared names that are absent are
// listed in missing_env (names only) and simply not set.
//
// Thread safety: PlanLaunch is a free function, safe on any thread (the launcher runs it
// off the server's loop: hashing takes about a second per GiB); a LaunchPlan is move-only
// (it owns fds).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trust/environment.h"
#include "trust/interpreter_argv.h"  // kSystemPython
#include "trust/manifest.h"
#include "trust/reason.h"
#include "base/unique_fd.h"

namespace las::trust {

inline constexpr std::string_view kChildPath = "/usr/local/bin:/usr/bin:/bin";
// In every child's environment: no Python it runs imports the user's site-packages.
inline constexpr std::string_view kNoUserSite = "PYTHONNOUSERSITE=1";

struct LaunchPolicy {
  std::string workspace;        // LAS_WORKSPACE; must be absolute
  std::string node_executable;  // the current Node executable; empty: Node not allowed
  Environment environment;      // Las's own environment; only declared names pass
};

struct LaunchPlan {
  // Owned descriptors, all O_CLOEXEC in this process.
  UniqueFd binary;  // the hashed command; execute this descriptor
  UniqueFd code;    // the hashed code file, or invalid if the surface binds none
  UniqueFd cwd;     // the checked working directory; fchdir to it in the child

  std::string binary_path;  // resolved, for messages only (never executed by path)
  std::string cwd_path;     // resolved
  std::vector<std::string> argv;  // the signed argv, code path replaced (see above)
  std::vector<std::string> env;   // "NAME=value" entries; may hold secrets: never log values
  std::vector<std::string> missing_env;  // declared names absent from the environment
  // Descriptors the child must still have, under the same numbers, after exec: the
  // launcher clears FD_CLOEXEC on each in the child (after fork, before exec) and must not
  // dup2 anything onto them. Holds `code` when set, and `binary` when it is a "#!" script
  // (the kernel hands the script to its interpreter as /dev/fd/N).
  std::vector<int> inherit_fds;
  bool binary_is_script = false;
};

// The largest command or code file a release may bind: a child is a program, not a disk
// image, and a file swapped for a huge one must not keep a launch hashing for minutes
// (probe EX1: 16 GiB held `las serve` 47 s). `las release draft` refuses larger files too.
inline constexpr uint64_t kMaxLaunchedFileBytes = 1ull << 30;
// The message for `what` (e.g. "command") at `path`, of `size` bytes, over that bound.
std::string LaunchedFileTooLarge(const std::string& what, const std::string& path, uint64_t size);

// Checks `surface` under `policy` as described above. On success the caller owns the
// plan's descriptors.
VerdictOr<LaunchPlan> PlanLaunch(const SurfaceBinding& surface, const LaunchPolicy& policy);

// The variables `surface` declares that `environment` does not set (PYTHONNOUSERSITE
// aside: Las sets it for every child), in declared order: the child starts without them.
std::vector<std::string> DeclaredVariablesMissing(const SurfaceBinding& surface,
                                                  const Environment& environment);

// True if `path` equals `root` or lies below it; both must be resolved absolute paths.
bool IsInsideDirectory(std::string_view root, std::string_view path);

}  // namespace las::trust
