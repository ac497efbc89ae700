// `las release` and `las check` given paths the operator got wrong: a directory or FIFO
// where a file belongs, a path under a file, a symlink loop, a name too long, a file where a
// directory belongs, a file that is not JSON. Each is a usage error (exit 2) that says what
// is wrong, never "this release must not be admitted" (exit 1) or an I/O error (exit 9)
// with the bare system text (probes BI2, BI3, BI4, AU8).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli/release_cli_fixture.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::Las;
using testing::Lines;
using testing::ReleaseScratch;
using testing::Spit;

// A signed release, and beside it a file, a directory, a FIFO and a symlink loop.
class ReleasePathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(r_.Keygen().exit_code, 0);
    ASSERT_EQ(r_.Draft().exit_code, 0);
    ASSERT_EQ(r_.Sign({"--sequence", "1"}).exit_code, 0);
    Spit(a_file(), "a file\n");
    fs::create_directories(a_dir());
    ASSERT_EQ(::mkfifo(a_fifo().c_str(), 0600), 0);
    fs::create_symlink("loop", loop());
  }

  std::string a_file() const { return r_.Sub("afile"); }
  std::string a_dir() const { return r_.Sub("adir"); }
  std::string a_fifo() const { return r_.Sub("fifo"); }
  std::string loop() const { return r_.Sub("loop"); }

  // `las release verify` of the good release, with `flag` naming `path` instead.
  CommandResult VerifyWith(const std::string& flag, const std::string& path) const {
    std::vector<std::string> args = {"release", "verify"};
    const std::vector<std::pair<std::string, std::string>> files = {
        {"--manifest", r_.manifest()}, {"--signature", r_.signature()},
        {"--trust-store", r_.trust_store()}, {"--watermark", r_.watermark()}};
    for (const auto& [name, file] : files) args.insert(args.end(), {name, name == flag ? path : file});
    return Las(args);
  }

  ReleaseScratch r_;
};

// `release verify` said "FAILED: this release must not be admitted" (exit 1) for a
// directory or FIFO named as one of its files; `release sign` gives 2 for the same mistake.
TEST_F(ReleasePathsTest, VerifyGivenADirectoryOrFifoIsAUsageErrorNotAFailure) {
  ASSERT_EQ(VerifyWith("--manifest", r_.manifest()).exit_code, 0);
  for (const std::string flag : {"--manifest", "--signature", "--trust-store", "--watermark"}) {
    for (const std::string& path : {a_dir(), a_fifo()}) {
      const CommandResult run = VerifyWith(flag, path);
      EXPECT_EQ(run.exit_code, 2) << flag << " " << path << ": " << run.out << run.err;
      EXPECT_NE(run.out.find("file-not-regular"), std::string::npos) << flag << ": " << run.out;
      EXPECT_EQ(run.err, "las release verify: could not verify (see above)\n") << flag;
    }
  }
  // A release that is bad still fails as one: the manifest changed after signing.
  Spit(r_.manifest(), testing::Slurp(r_.manifest()) + " ");
  EXPECT_EQ(VerifyWith("--manifest", r_.manifest()).exit_code, 1);
}

// ENOTDIR, ELOOP and ENAMETOOLONG were `io-error` rows and exit 9 (AU8).
TEST_F(ReleasePathsTest, VerifyGivenAPathThatNamesNoFileIsAUsageError) {
  const std::vector<std::string> mistakes = {a_file() + "/x", loop(), r_.Sub(std::string(300, 'v'))};
  for (const std::string flag : {"--manifest", "--signature", "--trust-store", "--watermark"}) {
    for (const std::string& path : mistakes) {
      if (flag == "--trust-store" || flag == "--watermark") {
        if (path == loop()) continue;  // a symlink there is `file-symlink`, a refusal (1)
      }
      const CommandResult run = VerifyWith(flag, path);
      EXPECT_EQ(run.exit_code, 2) << flag << " " << path.substr(0, 60) << ": " << run.out << run.err;
      EXPECT_NE(run.out.find("file-path-invalid"), std::string::npos) << flag << ": " << run.out;
    }
  }
}

TEST_F(ReleasePathsTest, SignGivenAPathThatNamesNoFileIsAUsageError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--manifest", a_file() + "/m.json"}, {"--manifest", loop()},
      {"--secret-key", a_file() + "/k"},    {"--out", a_file() + "/m.sig"},
      {"--out", r_.Sub(std::string(300, 'o'))}};
  for (const auto& [flag, path] : cases) {
    std::vector<std::string> args = {"release", "sign", "--bump"};
    for (const auto& [name, file] : std::vector<std::pair<std::string, std::string>>{
             {"--manifest", r_.manifest()}, {"--secret-key", r_.secret_key()}, {"--out", r_.signature()}}) {
      args.insert(args.end(), {name, name == flag ? path : file});
    }
    const CommandResult run = Las(args);
    EXPECT_EQ(run.exit_code, 2) << flag << " " << path.substr(0, 60) << ": " << run.err;
    EXPECT_EQ(run.err.rfind("las release sign: invalid_argument: ", 0), 0u) << run.err;
    EXPECT_EQ(Lines(run.err).size(), 1u) << run.err;
  }
}

// keygen --out-dir FILE said "io: creating directory FILE: File exists".
TEST_F(ReleasePathsTest, KeygenAndDraftSayAFileIsNotADirectory) {
  for (const std::string& dir : {a_file(), a_file() + "/keys"}) {
    const CommandResult run = Las({"release", "keygen", "--out-dir", dir});
    EXPECT_EQ(run.exit_code, 2) << dir << ": " << run.err;
    EXPECT_NE(run.err.find(a_file() + " is not a directory"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("File exists"), std::string::npos) << run.err;
  }
  const CommandResult draft =
      Las({"release", "draft", "--surface", "echo", "--cwd", r_.workspace(), "--workspace",
           r_.workspace(), "--manifest", a_file() + "/m.json", "--", "/usr/bin/python3", r_.script(),
           "echo"});
  EXPECT_EQ(draft.exit_code, 2) << draft.err;
  EXPECT_NE(draft.err.find(a_file() + " is not a directory"), std::string::npos) << draft.err;
}

// Probes GV2, GV3: a refused keygen or draft left the directories it had made on the way;
// GV1: a relative --workspace was refused as if LAS_WORKSPACE were.
TEST_F(ReleasePathsTest, ARefusedKeygenOrDraftMakesNoDirectoryAndARelativeWorkspaceIsMadeAbsolute) {
  const CommandResult keygen = Las({"release", "keygen", "--secret-key", r_.Sub("kg/a/s.key"),
                                    "--public-key", a_file() + "/p.pub"});
  EXPECT_EQ(keygen.exit_code, 2) << keygen.err;
  EXPECT_FALSE(fs::exists(r_.Sub("kg"))) << "a refused keygen made a directory";
  const CommandResult refused =
      Las({"release", "draft", "--surface", "echo", "--cwd", r_.workspace(), "--workspace",
           r_.workspace(), "--manifest", r_.Sub("newdir/sub/m.json"), "--", "/bin/false"});
  EXPECT_EQ(refused.exit_code, 8) << refused.err;
  EXPECT_FALSE(fs::exists(r_.Sub("newdir"))) << "a refused draft made a directory";
  const std::string relative = fs::relative(r_.workspace(), fs::current_path()).string();
  ASSERT_FALSE(relative.empty());
  ASSERT_NE(relative[0], '/');
  const CommandResult drafted =
      Las({"release", "draft", "--surface", "echo", "--cwd", r_.workspace(), "--workspace", relative,
           "--manifest", r_.Sub("newdir/sub/m.json"), "--", "/usr/bin/python3", r_.script(), "echo"});
  EXPECT_EQ(drafted.exit_code, 0) << drafted.err;
  EXPECT_TRUE(fs::exists(r_.Sub("newdir/sub/m.json")));
}

// Probe GW2: a keygen refused for want of permission to make a later path's directory had
// made an earlier path's already.
TEST_F(ReleasePathsTest, AKeygenRefusedPermissionToMakeADirectoryMakesNone) {
  testing::TempDir tmp;
  fs::create_directories(tmp.Sub("w"));
  fs::create_directories(tmp.Sub("ro"));
  if (::geteuid() == 0) {
    fs::permissions(tmp.path(), fs::perms::all);
    ASSERT_EQ(::chown(tmp.Sub("w").c_str(), 65534, 65534), 0);
  }
  fs::permissions(tmp.Sub("ro"), fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                     fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const CommandResult run = testing::RunCommand(testing::AsUnprivilegedUser(
      {LAS_EXECUTABLE, "release", "keygen", "--secret-key", tmp.Sub("w/new/s.key"), "--public-key",
       tmp.Sub("ro/new/p.pub")}));
  EXPECT_EQ(run.exit_code, 8) << run.err;
  EXPECT_NE(run.err.find("creating directory " + tmp.Sub("ro/new")), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(tmp.Sub("w/new"))) << "a refused keygen made a directory";
}

// A --cwd or --workspace that is a file (or under one) was exit 8 `io-error`, and a workspace
// that is a file was `workspace-escape` (probe BI3).
TEST_F(ReleasePathsTest, DraftGivenAFileAsItsCwdOrWorkspaceSaysSo) {
  const std::string manifest = r_.Sub("new.json");
  struct Case {
    std::string cwd;
    std::string workspace;
  };
  for (const Case& c : {Case{a_file(), r_.workspace()}, Case{a_file() + "/x", r_.workspace()},
                        Case{loop(), r_.workspace()}, Case{r_.workspace(), a_file()},
                        Case{r_.workspace(), a_file() + "/x"}}) {
    const CommandResult run =
        Las({"release", "draft", "--surface", "echo", "--cwd", c.cwd, "--workspace", c.workspace,
             "--manifest", manifest, "--", "/usr/bin/python3", r_.script(), "echo"});
    EXPECT_EQ(run.exit_code, 2) << c.cwd << " " << c.workspace << ": " << run.err;
    EXPECT_NE(run.err.find("file-path-invalid"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("workspace-escape"), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(manifest));
  }
  const CommandResult file_workspace =
      Las({"release", "draft", "--surface", "echo", "--cwd", r_.workspace(), "--workspace", a_file(),
           "--manifest", manifest, "--", "/usr/bin/python3", r_.script(), "echo"});
  EXPECT_NE(file_workspace.err.find("workspace " + a_file() + " is not a directory"), std::string::npos)
      << file_workspace.err;
  // `las check` shows the same row, not workspace-escape.
  const CommandResult check =
      Las({"check", "--manifest", r_.manifest(), "--signature", r_.signature(), "--trust-store",
           r_.trust_store(), "--watermark", r_.watermark(), "--workspace", a_file()});
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  EXPECT_EQ(check.out.find("workspace-escape"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("file-path-invalid"), std::string::npos) << check.out;
}

// A manifest that is not JSON named the library's exception (probe BI4), and a bad
// --expires-in did not name the flag (probe BI6).
TEST_F(ReleasePathsTest, SignSaysWhatIsWrongInItsOwnWords) {
  const std::string junk = r_.Sub("junk.json");
  Spit(junk, "not json\n");
  const CommandResult run = Las({"release", "sign", "--bump", "--manifest", junk, "--secret-key",
                                 r_.secret_key(), "--out", r_.Sub("junk.sig")});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("invalid JSON: syntax error at line 1, column 2"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("json.exception"), std::string::npos) << run.err;
  for (const std::string duration : {"367d", "5y", ""}) {
    const CommandResult long_expiry = r_.Sign({"--bump", "--expires-in", duration});
    EXPECT_EQ(long_expiry.exit_code, 2) << long_expiry.err;
    EXPECT_EQ(long_expiry.err.rfind("las release sign: invalid_argument: --expires-in: duration", 0), 0u)
        << long_expiry.err;
  }
}

}  // namespace
}  // namespace las
