#include "trust/launch_policy.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "base/path_error.h"
#include "trust/digest.h"
#include "trust/interpreter_argv.h"
#include "trust/python_stdlib.h"
#include "trust/release_paths.h"
#include "trust/secure_file.h"
#include "trust/shebang.h"

namespace las::trust {
namespace {

std::string Errno() { return std::strerror(errno); }

// The path the kernel holds for an open descriptor: every symlink and ".." resolved at
// open time, so it describes the inode we actually hold.
VerdictOr<std::string> PathOfDescriptor(int fd, const std::string& what) {
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  char buffer[PATH_MAX + 1];
  const ssize_t n = ::readlink(link.c_str(), buffer, PATH_MAX);
  if (n < 0) return Reject(Reason::kIoError, "cannot resolve the open " + what + ": " + Errno());
  return std::string(buffer, static_cast<size_t>(n));
}

// Opens `path` read-only (following symlinks: the result is checked by where it landed).
VerdictOr<UniqueFd> OpenRegular(const std::string& path, const std::string& what, struct stat* st) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return OpenFailure(errno, path, what);
  if (::fstat(fd.get(), st) != 0) return Reject(Reason::kIoError, "cannot stat " + what + " " + path + ": " + Errno());
  if (!S_ISREG(st->st_mode)) return Reject(Reason::kFileNotRegular, what + " " + path + " is not a regular file");
  // O_NONBLOCK only guarded the open against FIFOs; clear it for the exec'd descriptor.
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) (void)::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

Verdict CheckDigest(int fd, const Sha256Digest& signed_digest, const std::string& what,
                    const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return Reject(Reason::kIoError, "cannot stat " + what + " " + path + ": " + Errno());
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxLaunchedFileBytes) {
    return Reject(Reason::kFileTooLarge,
                  LaunchedFileTooLarge(what, path, static_cast<uint64_t>(st.st_size)));
  }
  Result<Sha256Digest> actual = Sha256OfFile(fd, kMaxLaunchedFileBytes);
  if (!actual.ok()) {
    const Reason reason = actual.status().code() == Code::kInvalidArgument ? Reason::kFileTooLarge
                                                                            : Reason::kIoError;
    return Reject(reason, "hashing " + what + " " + path + ": " + actual.status().message());
  }
  if (*actual != signed_digest) {
    return Reject(Reason::kDigestMismatch, what + " " + path + " has sha256 " + Sha256Hex(*actual) +
                                               "; the release signed " + Sha256Hex(signed_digest));
  }
  return Verdict::Accept();
}

// The `#!` line of the file open at `fd`, if it has one (Linux reads at most 256 bytes).
std::optional<Shebang> ShebangOf(int fd) {
  char head[kShebangBytes];
  const ssize_t n = ::pread(fd, head, sizeof head, 0);
  return n > 0 ? ParseShebang(std::string_view(head, static_cast<size_t>(n))) : std::nullopt;
}

}  // namespace

bool IsInsideDirectory(std::string_view root, std::string_view path) {
  if (root == "/") return !path.empty() && path.front() == '/';
  if (path.size() < root.size() || path.substr(0, root.size()) != root) return false;
  return path.size() == root.size() || path[root.size()] == '/';
}

std::string LaunchedFileTooLarge(const std::string& what, const std::string& path, uint64_t size) {
  return what + " " + path + " is " + std::to_string(size) +
         " bytes; a child's command or code file may have at most " +
         std::to_string(kMaxLaunchedFileBytes);
}

VerdictOr<LaunchPlan> PlanLaunch(const SurfaceBinding& surface, const LaunchPolicy& policy) {
  const std::string name = "surface " + surface.name + ": ";
  LAS_RETURN_IF_REJECTED(CheckAbsolutePath("LAS_WORKSPACE", policy.workspace));
  char resolved[PATH_MAX];
  if (::realpath(policy.workspace.c_str(), resolved) == nullptr) {
    const int err = errno;
    if (err == ENOENT) return Reject(Reason::kFileMissing, "workspace " + policy.workspace + " does not exist");
    if (std::string mistake = PathMistake(err); !mistake.empty()) {
      return Reject(Reason::kFilePathInvalid, "workspace " + policy.workspace + ": " + mistake);
    }
    return Reject(Reason::kIoError, "cannot resolve workspace " + policy.workspace + ": " + Errno());
  }
  const std::string workspace = resolved;
  // A file given as the workspace would make every cwd "outside" it (probe BI3).
  if (struct stat workspace_st {}; ::stat(resolved, &workspace_st) == 0 && !S_ISDIR(workspace_st.st_mode)) {
    return Reject(Reason::kFilePathInvalid, "workspace " + policy.workspace +
                                                " is not a directory; give the directory the "
                                                "surfaces' code lives under");
  }
  LaunchPlan plan;

  // Working directory.
  plan.cwd = UniqueFd(::open(surface.cwd.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!plan.cwd.valid()) return OpenFailure(errno, surface.cwd, name + "cwd");
  VerdictOr<std::string> cwd_path = PathOfDescriptor(plan.cwd.get(), "cwd");
  if (!cwd_path.ok()) return cwd_path.verdict();
  if (!IsInsideDirectory(workspace, *cwd_path)) {
    return Reject(Reason::kWorkspaceEscape, name + "cwd " + surface.cwd + " resolves to " +
                                                *cwd_path + ", outside the workspace " + workspace);
  }
  plan.cwd_path = std::move(cwd_path).value();

  // Command.
  const bool is_python = surface.command == kSystemPython;
  const bool is_node = !policy.node_executable.empty() && surface.command == policy.node_executable;
  struct stat st {};
  VerdictOr<UniqueFd> binary = OpenRegular(surface.command, name + "command", &st);
  if (!binary.ok()) return binary.verdict();
  VerdictOr<std::string> binary_path = PathOfDescriptor(binary->get(), "command");
  if (!binary_path.ok()) return binary_path.verdict();
  if (!is_python && !is_node && !IsInsideDirectory(workspace, *binary_path)) {
    return Reject(Reason::kCommandNotAllowed,
                  name + "command " + surface.command + " resolves to " + *binary_path +
                      ": a command must be inside the workspace " + workspace + ", or be " +
                      std::string(kSystemPython) +
                      // Node is allowed by name only: say which variable names it (probe HY2).
                      (policy.node_executable.empty()
                           ? " (or the Node executable LAS_NODE names: it is not set)"
                           : " or " + policy.node_executable + " (LAS_NODE)"));
  }
  if ((st.st_mode & 0111) == 0) {
    return Reject(Reason::kCommandNotAllowed, name + "command " + surface.command + " is not executable");
  }
  LAS_RETURN_IF_REJECTED(CheckDigest(binary->get(), surface.binary_sha256, name + "command", surface.command));
  plan.binary = std::move(binary).value();
  plan.binary_path = std::move(binary_path).value();
  const std::optional<Shebang> shebang = ShebangOf(plan.binary.get());
  plan.binary_is_script = shebang.has_value();
  if (shebang) {
    LAS_RETURN_IF_REJECTED(CheckShebang(*shebang, workspace, policy.node_executable, name));
    plan.inherit_fds.push_back(plan.binary.get());
  }

  // Code file: an interpreter's script must be pinned, and be the file it runs.
  plan.argv = surface.argv;
  size_t script_index = 0;
  const Interpreter interpreter = InterpreterOf(
      surface.command, static_cast<uint64_t>(st.st_size), surface.binary_sha256, policy.node_executable);
  if (interpreter != Interpreter::kNone) {
    VerdictOr<size_t> index = ScriptOperandIndex(interpreter, surface.argv, surface.name);
    if (!index.ok()) return index.verdict();
    if (!surface.code) {
      return Reject(Reason::kCodeNotPinned, name + "the release pins no code for the script " +
                                                surface.argv[*index] + " that " + surface.command +
                                                " runs");
    }
    if (surface.argv[*index] != surface.code->path) {
      return Reject(Reason::kCodeNotPinned, name + "the pinned code " + surface.code->path +
                                                " is not the script " + surface.argv[*index] +
                                                " that " + surface.command + " runs");
    }
    script_index = *index;
    // A copy of Python runs code it finds around itself before the pinned script: its
    // library is fixed by PYTHONHOME (below); what that does not fix is refused (probes
    // GD1, GE1-GE4).
    if (interpreter == Interpreter::kPython) {
      std::optional<std::string> foreign = UnpinnedPythonStartup(surface.command, plan.binary_path, workspace);
      if (!foreign && IgnoresPythonHome(surface.argv, script_index) && !IsSystemPython(plan.binary_path)) {
        foreign = "-E or -I makes it ignore PYTHONHOME, and so take its library from around " +
                  surface.command;
      }
      if (foreign) {
        return Reject(Reason::kCodeNotPinned,
                      name + "the interpreter " + surface.command + " would run code the release " +
                          "does not pin before the script: " + *foreign + "; run " +
                          std::string(kSystemPython) +
                          ", or a virtual environment made by it with --copies");
      }
    }
  }
  if (surface.code) {
    VerdictOr<UniqueFd> code = OpenRegular(surface.code->path, name + "code", &st);
    if (!code.ok()) return code.verdict();
    VerdictOr<std::string> code_path = PathOfDescriptor(code->get(), "code");
    if (!code_path.ok()) return code_path.verdict();
    if (!IsInsideDirectory(workspace, *code_path)) {
      return Reject(Reason::kWorkspaceEscape, name + "code " + surface.code->path + " resolves to " +
                                                  *code_path + ", outside the workspace " + workspace);
    }
    LAS_RETURN_IF_REJECTED(CheckDigest(code->get(), surface.code->sha256, name + "code", surface.code->path));
    plan.code = std::move(code).value();
    plan.inherit_fds.push_back(plan.code.get());
    // Python gets the hashed descriptor itself. Node resolves an ES module's relative
    // imports against the main module's location, which "/dev/fd/N" would break for every
    // multi-file package, so Node gets the resolved path of the very file that was hashed
    // (see the residual risk in the header).
    const std::string script =
        interpreter == Interpreter::kNode ? *code_path : "/dev/fd/" + std::to_string(plan.code.get());
    if (script_index != 0) {
      plan.argv[script_index] = script;
    } else {
      // A command that is no interpreter reads its code path as it likes: every mention.
      for (size_t i = 1; i < plan.argv.size(); ++i) {
        if (plan.argv[i] == surface.code->path) plan.argv[i] = script;
      }
    }
  }

  // Environment: a fixed PATH and the declared names, nothing inherited implicitly; none
  // that would load code the release does not pin.
  plan.env.push_back("PATH=" + std::string(kChildPath));
  // Python would import the user's site-packages (usercustomize, .pth files) at start: not
  // pinned. Set for every child, not only a command that reads as Python: a `#!` script
  // that runs a Python, or any child that starts one, would import them too (probe BW1).
  plan.env.push_back(std::string(kNoUserSite));
  // A Python child's standard library and native modules are the system's, whatever lies
  // around a copy of it or a virtual environment's `home` names (trust/python_stdlib.h).
  if (interpreter == Interpreter::kPython) {
    if (const std::string home = SystemPythonHome(); !home.empty()) plan.env.push_back("PYTHONHOME=" + home);
  }
  for (const std::string& var : surface.env) {
    if (EnvironmentLoadsCode(var)) {
      return Reject(Reason::kCodeNotPinned,
                    name + "the environment variable " + var +
                        " makes the child load code the release does not pin");
    }
    if (var == "PYTHONNOUSERSITE") continue;  // set above, whatever Las's own says
    auto it = policy.environment.find(var);
    if (it != policy.environment.end()) plan.env.push_back(var + "=" + it->second);
  }
  plan.missing_env = DeclaredVariablesMissing(surface, policy.environment);
  return plan;
}

std::vector<std::string> DeclaredVariablesMissing(const SurfaceBinding& surface,
                                                  const Environment& environment) {
  std::vector<std::string> missing;
  for (const std::string& var : surface.env) {
    if (var != "PYTHONNOUSERSITE" && environment.count(var) == 0) missing.push_back(var);
  }
  return missing;
}

}  // namespace las::trust
