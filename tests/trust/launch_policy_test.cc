// Launch-time checks, with real files and real child processes executed the way the
// launcher must: fchdir to plan.cwd, keep plan.inherit_fds, fexecve(plan.binary).
#include "trust/launch_policy.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "tests/trust/trust_test_util.h"
#include "trust/digest.h"
#include "trust/shebang.h"

namespace las::trust {
namespace {

using testing::ReplaceFile;
using testing::WriteFile;

Sha256Digest DigestOfPath(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_TRUE(fd.valid()) << path;
  return Sha256OfFile(fd.get()).value();
}

// Runs the plan as a launcher must; returns the child's stdout.
std::string RunPlan(const LaunchPlan& plan) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return "pipe failed";
  std::vector<char*> argv;
  for (const std::string& a : plan.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : plan.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    if (::fchdir(plan.cwd.get()) != 0) ::_exit(126);
    for (int fd : plan.inherit_fds) ::fcntl(fd, F_SETFD, 0);
    ::fexecve(plan.binary.get(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(out[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) text += "[exit " + std::to_string(status) + "]";
  return text;
}

class LaunchPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_ = std::filesystem::canonical(root_.path()).string() + "/ws";
    std::filesystem::create_directories(ws_ + "/srv");
    outside_ = std::filesystem::canonical(root_.path()).string() + "/outside";
    std::filesystem::create_directories(outside_);
    policy_.workspace = ws_;
    policy_.environment = {{"MOST_TOKEN", "t0ken"}, {"HOME", "/root"}, {"LAS_TRUST_STORE", "/x"}};
  }

  // A "#!/bin/sh" server inside the workspace, signed as it is now.
  SurfaceBinding ScriptSurface(const std::string& body = "echo original") {
    const std::string script = ws_ + "/srv/server.sh";
    WriteFile(script, "#!/bin/sh\n" + body + "\n", 0700);
    SurfaceBinding s;
    s.name = "most";
    s.command = script;
    s.cwd = ws_ + "/srv";
    s.argv = {script};
    s.env = {"MOST_TOKEN", "MOST_ABSENT"};
    s.binary_sha256 = DigestOfPath(script);
    return s;
  }

  // /usr/bin/python3 running a script inside the workspace.
  SurfaceBinding PythonSurface(const std::string& code = "print('original')") {
    const std::string script = ws_ + "/srv/server.py";
    WriteFile(script, code + "\n", 0600);
    SurfaceBinding s;
    s.name = "lem";
    s.command = "/usr/bin/python3";
    s.cwd = ws_ + "/srv";
    s.argv = {"/usr/bin/python3", script};
    s.binary_sha256 = DigestOfPath("/usr/bin/python3");
    s.code = CodeBinding{script, DigestOfPath(script)};
    return s;
  }

  Reason ReasonOf(const SurfaceBinding& s) {
    VerdictOr<LaunchPlan> plan = PlanLaunch(s, policy_);
    return plan.ok() ? Reason::kAccepted : plan.verdict().reason();
  }

  las::testing::TempDir root_;
  std::string ws_;
  std::string outside_;
  LaunchPolicy policy_;
};

TEST_F(LaunchPolicyTest, SignedScriptRunsWithOnlyPathAndDeclaredEnv) {
  VerdictOr<LaunchPlan> plan = PlanLaunch(ScriptSurface("echo \"$MOST_TOKEN:$HOME:$PATH:$(pwd)\""), policy_);
  ASSERT_TRUE(plan.ok()) << plan.verdict().ToString();
  EXPECT_EQ(plan->env, (std::vector<std::string>{"PATH=/usr/local/bin:/usr/bin:/bin",
                                                  "PYTHONNOUSERSITE=1", "MOST_TOKEN=t0ken"}));
  EXPECT_EQ(plan->missing_env, (std::vector<std::string>{"MOST_ABSENT"}));
  EXPECT_TRUE(plan->binary_is_script);
  EXPECT_EQ(RunPlan(*plan), "t0ken::/usr/local/bin:/usr/bin:/bin:" + ws_ + "/srv\n");
}

// A script command runs with the program its #! line names: that line may not run code the
// release does not pin (probe CX2: `-mmod` ran an unpinned module of the workspace, `env -S
// PYTHONPATH=...` imported from elsewhere, a workspace interpreter was edited after signing).
TEST_F(LaunchPolicyTest, AScriptsShebangLineRunsNothingTheReleaseDoesNotPin) {
  WriteFile(ws_ + "/srv/interp", "#!/bin/sh\nexec /bin/sh \"$@\"\n", 0700);
  // Python outside the workspace under other names: a symlink, and a renamed copy.
  std::filesystem::create_symlink("/usr/bin/python3", outside_ + "/py");
  std::filesystem::create_directory_symlink("/usr/bin", outside_ + "/usrbin");
  std::filesystem::create_symlink("/usr/bin/env", outside_ + "/e");
  std::filesystem::create_symlink("/usr/bin/pdb3", outside_ + "/python3");
  std::filesystem::create_symlink("/usr/bin/nice", outside_ + "/sh");
  WriteFile(ws_ + "/srv/env", "#!/bin/sh\nexec /usr/bin/env \"$@\"\n", 0700);
  std::filesystem::copy_file(std::filesystem::canonical("/usr/bin/python3"), outside_ + "/runner");
  std::filesystem::permissions(outside_ + "/runner", std::filesystem::perms::owner_all);
  auto with_line = [&](const std::string& line, const std::string& body = "print('ran')") {
    SurfaceBinding s = ScriptSurface();
    WriteFile(s.command, line + "\n" + body + "\n", 0700);
    s.binary_sha256 = DigestOfPath(s.command);
    return s;
  };
  for (const std::string& line : {std::string("#!/usr/bin/python3 -mevilmod"),
                                  std::string("#!/usr/bin/python3 other.py"),
                                  std::string("#!/usr/bin/env -S PYTHONPATH=/tmp /usr/bin/python3"),
                                  std::string("#!/usr/bin/env -S python3 -c print(1)"),
                                  std::string("#!/usr/bin/env -C / python3"),
                                  "#!" + ws_ + "/srv/interp",
                                  std::string("#!/usr/bin/env -S ") + ws_ + "/srv/interp",
                                  std::string("#!./interp"),
                                  "#!" + outside_ + "/py -mevilmod",
                                  "#!" + outside_ + "/runner -c print(1)",
                                  // Probe GG1: Python named outside /usr/bin finds its library
                                  // (or a venv's) around that name, whatever its options.
                                  "#!" + outside_ + "/py", "#!" + outside_ + "/runner -u",
                                  // Probe GI2: /usr/bin reached through a link is not /usr/bin
                                  // to CPython, which searches from the name as written.
                                  "#!" + outside_ + "/usrbin/python3",
                                  // Probe CZ F1: env known by its bytes and where it is.
                                  "#!" + ws_ + "/srv/env python3",
                                  std::string("#!env python3"),
                                  "#!" + outside_ + "/e -S python3 -mevilmod",
                                  // Probe CZ F2: what GNU env -S reads otherwise.
                                  std::string("#!/usr/bin/env -S \"python3\" -mevilmod"),
                                  std::string("#!/usr/bin/env -S python3\\_-mevilmod"),
                                  std::string("#!/usr/bin/env -S python3\v-mevilmod"),
                                  std::string("#!/usr/bin/env -S ${NOPE}python3 -mevilmod"),
                                  std::string("#!/usr/bin/env -S python3\r"),
                                  std::string("#!/usr/bin/env -S PATH=bin:/usr/bin python3"),
                                  std::string("#!/usr/bin/env -S no-such-program"),
                                  std::string("#!/usr/bin/env -S env python3"),
                                  // Probe DD: wrappers and script-interpreters run what Las
                                  // cannot read; -i, -u, -E and these assignments bring the
                                  // user's site-packages back; `#` ends env's -S string.
                                  std::string("#!/usr/bin/nice ./evil"),
                                  std::string("#!/usr/bin/pdb3"),
                                  std::string("#!/usr/bin/env -S -i python3"),
                                  std::string("#!/usr/bin/env -S -u PYTHONNOUSERSITE python3"),
                                  std::string("#!/usr/bin/env -S PYTHONNOUSERSITE= python3"),
                                  std::string("#!/usr/bin/env -S HOME=/tmp python3"),
                                  std::string("#!/usr/bin/env -S python3 -W #"),
                                  std::string("#!/usr/bin/python3 -E"),
                                  "#!/usr/bin/python3 -u" + std::string(240, ' ') + "-E",
                                  // Probe DE: programs known by their file, never by name;
                                  // a shell given an operand, stdin or its startup files.
                                  "#!" + outside_ + "/python3",
                                  "#!" + outside_ + "/sh ./evil",
                                  std::string("#!/bin/sh ./evil"), std::string("#!/bin/sh -s"),
                                  std::string("#!/bin/bash -l"), std::string("#!/bin/bash -i"),
                                  std::string("#!/usr/bin/env -S sh ./evil")}) {
    VerdictOr<LaunchPlan> plan = PlanLaunch(with_line(line), policy_);
    ASSERT_FALSE(plan.ok()) << line;
    EXPECT_EQ(plan.verdict().reason(), Reason::kCodeNotPinned) << line << ": " << plan.verdict().ToString();
    EXPECT_NE(plan.verdict().detail().find("#! line"), std::string::npos) << plan.verdict().detail();
  }
  for (const char* line : {"#!/bin/sh", "#!/usr/bin/python3 -u", "#!/usr/bin/env python3",
                           "#!/usr/bin/env -S python3 -u",
                           "#!/usr/bin/env -S PYTHONUNBUFFERED=1 python3",
                           "#!/usr/bin/env -S -- python3",
                           "#!/usr/bin/env --split-string=python3 -u", "#!/usr/bin/python3 -Es",
                           "#!/usr/bin/python3 -P", "#!/bin/bash -e", "#!/bin/sh -eu",
                           "#!/usr/bin/env -S bash -euo pipefail", "#!/usr/bin/python3.11"}) {
    const bool shell = std::string_view(line).find("sh") != std::string_view::npos &&
                       std::string_view(line).find("python") == std::string_view::npos;
    VerdictOr<LaunchPlan> plan = PlanLaunch(with_line(line, shell ? "echo ran" : "print('ran')"), policy_);
    ASSERT_TRUE(plan.ok()) << line << ": " << plan.verdict().ToString();
    EXPECT_EQ(RunPlan(*plan), "ran\n") << line;
  }
  // Linux reads 256 bytes: a line ending at byte 255 is whole, one ending past it is not.
  std::string longest = "#!/usr/bin/python3 -u";
  longest.resize(255, ' ');
  EXPECT_TRUE(PlanLaunch(with_line(longest), policy_).ok());
  EXPECT_EQ(ReasonOf(with_line(longest + " ")), Reason::kCodeNotPinned);
}

TEST(ShebangTest, TheLineIsReadAsLinuxReadsIt) {
  EXPECT_FALSE(ParseShebang("print(1)\n#!/bin/sh").has_value());
  std::optional<Shebang> line = ParseShebang("#!  /bin/sh  -e -x \t\nrest");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->program, "/bin/sh");
  EXPECT_EQ(line->arguments, std::vector<std::string>{"-e -x"}) << "one argument, blanks trimmed";
  line = ParseShebang("#!/usr/bin/env");
  ASSERT_TRUE(line.has_value());
  EXPECT_TRUE(line->arguments.empty());
}

TEST_F(LaunchPolicyTest, BinaryChangedAfterSigningIsDigestMismatch) {
  SurfaceBinding s = ScriptSurface();
  WriteFile(s.command, "#!/bin/sh\necho evil\n", 0700);
  EXPECT_EQ(ReasonOf(s), Reason::kDigestMismatch);
}

TEST_F(LaunchPolicyTest, BinarySwappedBetweenCheckAndExecRunsTheCheckedBytes) {
  SurfaceBinding s = ScriptSurface();
  VerdictOr<LaunchPlan> plan = PlanLaunch(s, policy_);
  ASSERT_TRUE(plan.ok()) << plan.verdict().ToString();
  ReplaceFile(s.command, "#!/bin/sh\necho evil\n", 0700);
  // The path now names the attacker's file...
  EXPECT_NE(DigestOfPath(s.command), s.binary_sha256);
  // ...but the plan's descriptor still holds, and hashes to, the signed bytes, and that
  // is what runs.
  EXPECT_EQ(Sha256OfFile(plan->binary.get()).value(), s.binary_sha256);
  EXPECT_EQ(RunPlan(*plan), "original\n");
}

TEST_F(LaunchPolicyTest, InterpreterScriptSwappedBetweenCheckAndExecRunsTheCheckedScript) {
  SurfaceBinding s = PythonSurface();
  VerdictOr<LaunchPlan> plan = PlanLaunch(s, policy_);
  ASSERT_TRUE(plan.ok()) << plan.verdict().ToString();
  ASSERT_EQ(plan->argv.size(), 2u);
  EXPECT_EQ(plan->argv[1], "/dev/fd/" + std::to_string(plan->code.get()));
  EXPECT_FALSE(plan->binary_is_script);
  ReplaceFile(s.code->path, "print('evil')\n", 0600);
  EXPECT_EQ(RunPlan(*plan), "original\n");
}

TEST_F(LaunchPolicyTest, CodeChangedAfterSigningIsDigestMismatch) {
  SurfaceBinding s = PythonSurface();
  WriteFile(s.code->path, "print('evil')\n", 0600);
  EXPECT_EQ(ReasonOf(s), Reason::kDigestMismatch);
}

// What an interpreter runs is its script: a release that does not pin it admits any bytes.
TEST_F(LaunchPolicyTest, AnInterpreterWhoseScriptIsNotPinnedIsRefused) {
  SurfaceBinding s = PythonSurface();
  s.argv = {"/usr/bin/python3", "-u", s.code->path};
  s.code.reset();
  EXPECT_EQ(ReasonOf(s), Reason::kCodeNotPinned);
  s.argv = {"/usr/bin/python3", s.argv[2]};
  EXPECT_EQ(ReasonOf(s), Reason::kCodeNotPinned) << "no code binding at all";
}

// The code binding must be the file the interpreter runs, not any argument that names one.
TEST_F(LaunchPolicyTest, ACodePathThatIsNotTheScriptIsRefused) {
  SurfaceBinding s = PythonSurface();
  const std::string other = ws_ + "/srv/other.py";
  WriteFile(other, "print('unsigned')\n", 0600);
  s.argv = {"/usr/bin/python3", other, "--x", s.code->path};
  EXPECT_EQ(ReasonOf(s), Reason::kCodeNotPinned);
}

// Options that load no code may stand before the script, which still runs from the
// hashed descriptor; options that run something else are refused, whatever follows.
TEST_F(LaunchPolicyTest, OnlyOptionsThatLoadNoCodeMayPrecedeTheScript) {
  SurfaceBinding s = PythonSurface();
  const std::string script = s.code->path;
  s.argv = {"/usr/bin/python3", "-u", "-X", "utf8", "-Xint_max_str_digits=0", "-Wignore",
            "-W", "ignore::DeprecationWarning", "-OO", "--", script};
  VerdictOr<LaunchPlan> plan = PlanLaunch(s, policy_);
  ASSERT_TRUE(plan.ok()) << plan.verdict().ToString();
  EXPECT_EQ(plan->argv.back(), "/dev/fd/" + std::to_string(plan->code.get()));
  EXPECT_EQ(RunPlan(*plan), "original\n");
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{"/usr/bin/python3", "-m", "http.server", script},
        std::vector<std::string>{"/usr/bin/python3", "-c", "print(1)", script},
        std::vector<std::string>{"/usr/bin/python3", "-i", script},
        std::vector<std::string>{"/usr/bin/python3", "-", script},
        std::vector<std::string>{"/usr/bin/python3", "--check-hash-based-pycs", "never", script},
        // Bytecode from another directory; a module imported by name (probe AZ1).
        std::vector<std::string>{"/usr/bin/python3", "-X", "pycache_prefix=/tmp/pyc", script},
        std::vector<std::string>{"/usr/bin/python3", "-Xpycache_prefix=/tmp/pyc", script},
        std::vector<std::string>{"/usr/bin/python3", "-X", "presite=evil", script},
        std::vector<std::string>{"/usr/bin/python3", "-X", "somethingnew", script},
        std::vector<std::string>{"/usr/bin/python3", "-W", "ignore::evil.Warning", script},
        std::vector<std::string>{"/usr/bin/python3", "-Wignore:x:evil.Warning:m:1", script}}) {
    s.argv = argv;
    EXPECT_EQ(ReasonOf(s), Reason::kCodeNotPinned) << argv[1];
  }
}

// An environment variable that makes the loader or an interpreter load other code is as
// good as an unpinned script: a surface may not declare one. Python children never read
// the user's site-packages.
TEST_F(LaunchPolicyTest, EnvironmentThatLoadsOtherCodeIsRefused) {
  for (const char* name :
       {"LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME",
        "PYTHONPYCACHEPREFIX", "PYTHONINSPECT", "PYTHONWARNINGS", "PYTHONBREAKPOINT",
        "PYTHONPLATLIBDIR", "PYTHONSOMETHINGNEW", "NODE_OPTIONS", "NODE_PATH",
        "NODE_REPL_EXTERNAL_MODULE", "BASH_ENV", "BASH_FUNC_ls%%", "SHELLOPTS", "PS4",
        "PERL5OPT", "PERL5DB", "OPENSSL_CONF", "OPENSSL_MODULES", "OPENSSL_ENGINES",
        "OPENSSL_CONF_INCLUDE", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "CLASSPATH",
        "DOTNET_STARTUP_HOOKS", "CORECLR_PROFILER_PATH_64", "DOTNET_ADDITIONAL_DEPS",
        "DOTNET_ROOT", "DOTNET_ROOT_X64", "DOTNET_SHARED_STORE", "ZDOTDIR", "PHPRC",
        "PHP_INI_SCAN_DIR", "LUA_INIT", "LUA_INIT_5_4", "LUA_PATH", "LUA_CPATH_5_4"}) {
    SurfaceBinding s = PythonSurface();
    s.env = {"MOST_TOKEN", name};
    EXPECT_EQ(ReasonOf(s), Reason::kCodeNotPinned) << name;
  }
  SurfaceBinding s = PythonSurface();
  s.env = {"PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONHASHSEED", "NODE_ENV"};
  VerdictOr<LaunchPlan> plan = PlanLaunch(s, policy_);
  ASSERT_TRUE(plan.ok()) << plan.verdict().ToString();
  EXPECT_NE(std::find(plan->env.begin(), plan->env.end(), "PYTHONNOUSERSITE=1"), plan->env.end());
}

// Not only a command that reads as Python: a `#!/usr/bin/python3` script (to Las a command
// like any other) would import the user's site-packages too, and none is pinned (probe BW1).
// A declared PYTHONNOUSERSITE cannot turn that off.
TEST_F(LaunchPolicyTest, NoChildImportsTheUsersSitePackages) {
  SurfaceBinding s = ScriptSurface();
  const std::string script = ws_ + "/srv/server.sh";
  WriteFile(script, "#!/usr/bin/python3\nimport site\nprint(site.ENABLE_USER_SITE)\n", 0700);
  s.binary_sha256 = DigestOfPath(script);
  s.env = {"PYTHONNOUSERSITE"};
  policy_.environment["PYTHONNOUSERSITE"] = "";
  VerdictOr<LaunchPlan> plan = PlanLaunch(s, policy_);
  ASSERT_TRUE(plan.ok()) << plan.verdict().ToString();
  EXPECT_EQ(std::count(plan->env.begin(), plan->env.end(), "PYTHONNOUSERSITE=1"), 1);
  EXPECT_EQ(std::count_if(plan->env.begin(), plan->env.end(),
                          [](const std::string& e) { return e.starts_with("PYTHONNOUSERSITE"); }),
            1);
  EXPECT_EQ(RunPlan(*plan), "False\n");
}

// A workspace copy of an interpreter (a virtualenv made with --copies) is one too.
TEST_F(LaunchPolicyTest, AWorkspaceCopyOfAnInterpreterMustPinItsScript) {
  SurfaceBinding s = PythonSurface();
  // Named like one, or not: a copy is known by its bytes.
  const std::string copy = ws_ + "/venv/bin/py";
  std::filesystem::create_directories(ws_ + "/venv/bin");
  std::filesystem::copy_file("/usr/bin/python3", copy);
  s.command = copy;
  s.binary_sha256 = DigestOfPath(copy);
  const std::string script = s.code->path;
  s.argv = {copy, script};
  s.code.reset();
  EXPECT_EQ(ReasonOf(s), Reason::kCodeNotPinned);
  s.code = CodeBinding{script, DigestOfPath(script)};
  VerdictOr<LaunchPlan> plan = PlanLaunch(s, policy_);
  ASSERT_TRUE(plan.ok()) << plan.verdict().ToString();
  EXPECT_EQ(RunPlan(*plan), "original\n");
}

// Probes GD1, GE1-GE4: a copy of Python takes its standard library from the first
// directory at or above it holding lib/pythonX.Y/os.py (or os.pyc, or pythonXY.zip), or from
// a virtual environment's `home` — code the release does not pin, run before the script.
// Every Python child gets PYTHONHOME, the system's prefix: what is planted is never run.
// What PYTHONHOME does not override is refused: a ._pth file, a build tree, a FIFO pyvenv.cfg.
TEST_F(LaunchPolicyTest, APythonCopyRunsOnlyTheSystemsStandardLibrary) {
  const std::string system = std::filesystem::canonical("/usr/bin/python3").filename().string();
  if (!std::filesystem::exists("/usr/lib/" + system + "/os.py")) GTEST_SKIP() << "no system stdlib";
  SurfaceBinding s = PythonSurface();
  const std::string copy = ws_ + "/srv/py";
  std::filesystem::copy_file("/usr/bin/python3", copy);
  s.command = copy;
  s.binary_sha256 = DigestOfPath(copy);
  s.argv = {copy, s.code->path};

  // Planted above the copy, as os.py, os.pyc and a zip: a library that refuses to start.
  const std::string planted = ws_ + "/lib/" + system;
  std::filesystem::create_directories(planted);
  WriteFile(planted + "/os.py", "raise SystemExit('planted')\n", 0600);
  std::filesystem::copy_file(planted + "/os.py", planted + "/os.pyc");
  VerdictOr<LaunchPlan> plan = PlanLaunch(s, policy_);
  ASSERT_TRUE(plan.ok()) << plan.verdict().ToString();
  const std::string home = "PYTHONHOME=" + std::filesystem::canonical("/usr/bin/python3")
                                               .parent_path().parent_path().string();
  EXPECT_NE(std::find(plan->env.begin(), plan->env.end(), home), plan->env.end());
  EXPECT_EQ(RunPlan(*plan), "original\n") << "the system's library ran, not the planted one";

  // A virtual environment is the system Python's, inside the workspace (probes GE4, GG2, GG5).
  WriteFile(ws_ + "/pyvenv.cfg", "home = /usr/bin\n", 0600);
  EXPECT_EQ(ReasonOf(s), Reason::kAccepted);
  WriteFile(ws_ + "/pyvenv.cfg", "HOME = " + outside_ + "\n", 0600);  // any case, as CPython reads it
  EXPECT_EQ(ReasonOf(s), Reason::kCodeNotPinned) << "made by another Python";
  std::filesystem::remove(ws_ + "/pyvenv.cfg");
  SurfaceBinding at_root = s;
  const std::string root_copy = ws_ + "/py";
  std::filesystem::copy_file("/usr/bin/python3", root_copy);
  at_root.command = root_copy;
  at_root.argv = {root_copy, s.code->path};
  at_root.binary_sha256 = DigestOfPath(root_copy);
  ASSERT_EQ(ReasonOf(at_root), Reason::kAccepted);
  const std::string above = std::filesystem::path(ws_).parent_path().string() + "/pyvenv.cfg";
  WriteFile(above, "home = /usr/bin\n", 0600);
  VerdictOr<LaunchPlan> outside = PlanLaunch(at_root, policy_);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.verdict().detail().find(", outside the workspace " + ws_), std::string::npos)
      << outside.verdict().detail();
  // Named with `./` or `sub/..`, as CPython normalizes it (probe GI1).
  for (const std::string& named : {ws_ + "/./py", ws_ + "/srv/../py"}) {
    SurfaceBinding dotted = at_root;
    dotted.command = named;
    dotted.argv = {named, s.code->path};
    EXPECT_EQ(ReasonOf(dotted), Reason::kCodeNotPinned) << named;
  }
  std::filesystem::remove(above);
  // Beside a copy at the workspace's root, the environment's prefix is the root's parent
  // (probe GI3).
  WriteFile(ws_ + "/pyvenv.cfg", "home = /usr/bin\n", 0600);
  EXPECT_EQ(ReasonOf(at_root), Reason::kCodeNotPinned);
  std::filesystem::remove(ws_ + "/pyvenv.cfg");

  // What PYTHONHOME does not override is refused, naming the file.
  for (const std::string& file : {ws_ + "/srv/py._pth", ws_ + "/srv/pybuilddir.txt"}) {
    WriteFile(file, ws_ + "\n", 0600);
    VerdictOr<LaunchPlan> refused = PlanLaunch(s, policy_);
    ASSERT_FALSE(refused.ok()) << file;
    EXPECT_EQ(refused.verdict().reason(), Reason::kCodeNotPinned);
    EXPECT_NE(refused.verdict().detail().find(file), std::string::npos) << refused.verdict().detail();
    std::filesystem::remove(file);
  }
  // -E and -I make CPython ignore PYTHONHOME: refused for a copy, not for the system's own.
  for (const std::string option : {"-I", "-sE", "-Bs"}) {
    SurfaceBinding with = s;
    with.argv = {copy, option, s.code->path};
    EXPECT_EQ(ReasonOf(with), option == "-Bs" ? Reason::kAccepted : Reason::kCodeNotPinned) << option;
  }
  SurfaceBinding system_isolated = PythonSurface();
  system_isolated.argv = {"/usr/bin/python3", "-I", system_isolated.code->path};
  EXPECT_EQ(ReasonOf(system_isolated), Reason::kAccepted);
  // A FIFO pyvenv.cfg is refused, not read (it would hold the launch).
  ASSERT_EQ(::mkfifo((ws_ + "/pyvenv.cfg").c_str(), 0600), 0);
  EXPECT_EQ(ReasonOf(s), Reason::kCodeNotPinned);
}

TEST_F(LaunchPolicyTest, NodeRunsTheHashedScriptByItsResolvedPath) {
  if (!std::filesystem::exists("/usr/bin/node")) GTEST_SKIP() << "no /usr/bin/node";
  policy_.node_executable = "/usr/bin/node";
  const std::string script = ws_ + "/srv/server.js";
  WriteFile(script, "console.log('original')\n", 0600);
  SurfaceBinding s;
  s.name = "echo";
  s.command = "/usr/bin/node";
  s.cwd = ws_;
  s.argv = {"/usr/bin/node", script};
  s.binary_sha256 = DigestOfPath("/usr/bin/node");
  s.code = CodeBinding{script, DigestOfPath(script)};
  VerdictOr<LaunchPlan> plan = PlanLaunch(s, policy_);
  ASSERT_TRUE(plan.ok()) << plan.verdict().ToString();
  // Node resolves an ES module's relative imports against its location: it gets the
  // path, resolved by the kernel from the descriptor that was hashed.
  EXPECT_EQ(plan->argv[1], std::filesystem::canonical(script).string());
  EXPECT_EQ(RunPlan(*plan), "original\n");
}

TEST_F(LaunchPolicyTest, CwdEscapeThroughDotDotIsRejected) {
  SurfaceBinding s = ScriptSurface();
  s.cwd = ws_ + "/srv/../..";
  EXPECT_EQ(ReasonOf(s), Reason::kWorkspaceEscape);
}

TEST_F(LaunchPolicyTest, CwdEscapeThroughSymlinkIsRejected) {
  SurfaceBinding s = ScriptSurface();
  std::filesystem::create_directory_symlink(outside_, ws_ + "/innocent");
  s.cwd = ws_ + "/innocent";
  EXPECT_EQ(ReasonOf(s), Reason::kWorkspaceEscape);
}

TEST_F(LaunchPolicyTest, SiblingWithWorkspacePrefixIsOutside) {
  std::filesystem::create_directories(ws_ + "2");
  SurfaceBinding s = ScriptSurface();
  s.cwd = ws_ + "2";
  EXPECT_EQ(ReasonOf(s), Reason::kWorkspaceEscape);
}

TEST_F(LaunchPolicyTest, CodePathEscapeThroughSymlinkIsRejected) {
  SurfaceBinding s = PythonSurface();
  WriteFile(outside_ + "/evil.py", "print('original')\n", 0600);
  std::filesystem::remove(s.code->path);
  std::filesystem::create_symlink(outside_ + "/evil.py", s.code->path);
  EXPECT_EQ(ReasonOf(s), Reason::kWorkspaceEscape);
}

TEST_F(LaunchPolicyTest, CommandOutsideWorkspaceIsNotAllowed) {
  SurfaceBinding s = ScriptSurface();
  s.command = "/bin/sh";
  s.argv = {"/bin/sh"};
  s.binary_sha256 = DigestOfPath("/bin/sh");
  EXPECT_EQ(ReasonOf(s), Reason::kCommandNotAllowed);
}

TEST_F(LaunchPolicyTest, CommandSymlinkedFromWorkspaceToOutsideIsNotAllowed) {
  SurfaceBinding s = ScriptSurface();
  std::filesystem::remove(s.command);
  std::filesystem::create_symlink("/bin/sh", s.command);
  s.binary_sha256 = DigestOfPath("/bin/sh");
  EXPECT_EQ(ReasonOf(s), Reason::kCommandNotAllowed);
}

TEST_F(LaunchPolicyTest, NodeIsAllowedOnlyWhenItIsTheConfiguredExecutable) {
  if (!std::filesystem::exists("/usr/bin/node")) GTEST_SKIP() << "no /usr/bin/node";
  SurfaceBinding s;
  s.name = "echo";
  s.command = "/usr/bin/node";
  s.cwd = ws_;
  const std::string script = ws_ + "/srv/server.js";
  WriteFile(script, "console.log('original')\n", 0600);
  s.argv = {"/usr/bin/node", script};
  s.binary_sha256 = DigestOfPath("/usr/bin/node");
  s.code = CodeBinding{script, DigestOfPath(script)};
  EXPECT_EQ(ReasonOf(s), Reason::kCommandNotAllowed);  // no node configured
  // The refusal names the variable that allows Node (probe HY2: nothing said how).
  const std::string detail = PlanLaunch(s, policy_).verdict().detail();
  EXPECT_NE(detail.find("(or the Node executable LAS_NODE names: it is not set)"),
            std::string::npos)
      << detail;
  policy_.node_executable = "/usr/bin/node";
  EXPECT_EQ(ReasonOf(s), Reason::kAccepted);
}

TEST_F(LaunchPolicyTest, RelativeWorkspaceIsNotAbsolute) {
  policy_.workspace = "ws";
  EXPECT_EQ(ReasonOf(ScriptSurface()), Reason::kNotAbsolute);
}

TEST_F(LaunchPolicyTest, IsInsideDirectoryMatchesWholeComponents) {
  EXPECT_TRUE(IsInsideDirectory("/a/b", "/a/b"));
  EXPECT_TRUE(IsInsideDirectory("/a/b", "/a/b/c"));
  EXPECT_FALSE(IsInsideDirectory("/a/b", "/a/bc"));
  EXPECT_FALSE(IsInsideDirectory("/a/b", "/a"));
  EXPECT_TRUE(IsInsideDirectory("/", "/x"));
}

}  // namespace
}  // namespace las::trust
