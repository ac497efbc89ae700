// The log directory a writing command is given (probe AE5, log/log_directory.h): refused
// with exit 8 and the fix when others could write it or it belongs to another user; noted
// once by `las serve` and `las daemon` when others may only read it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/child_process.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

using testing::CommandResult;
using testing::RunCommand;

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

class LogDirectoryCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    run_ = tmp_.Sub("run");
    ASSERT_EQ(::mkdir(run_.c_str(), 0700), 0);
    dir_ = tmp_.Sub("log");
  }
  void MakeLogDirectory(mode_t mode) {
    ASSERT_EQ(::mkdir(dir_.c_str(), 0700), 0);
    ASSERT_EQ(::chmod(dir_.c_str(), mode), 0);
  }
  // A writing command run in this test's own runtime directory (its sockets stay here),
  // without a snapshot key.
  CommandResult Las(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/env", "XDG_RUNTIME_DIR=" + run_, LAS_EXECUTABLE});
    args.insert(args.end(), {"--log", dir_});
    return RunCommand(args);
  }
  CommandResult Serve() { return Las({"serve", "--snapshot-key", ""}); }

  testing::TempDir tmp_;
  std::string run_;
  std::string dir_;
};

TEST_F(LogDirectoryCliTest, ADirectoryOthersMayWriteIsRefusedByEveryWriterWithTheFix) {
  MakeLogDirectory(0777);
  for (std::vector<std::string> verb : {std::vector<std::string>{"serve", "--snapshot-key", ""},
                                        {"list"}, {"grant", "worker", "--all"}}) {
    const CommandResult refused = Las(verb);
    EXPECT_EQ(refused.exit_code, 8) << verb[0] << ": " << refused.err;
    EXPECT_TRUE(Has(refused.err, "las " + verb[0] + ": denied: ")) << refused.err;
    EXPECT_TRUE(Has(refused.err, "chmod 700")) << refused.err;
    EXPECT_FALSE(Has(refused.err, "another las process")) << refused.err;
    EXPECT_EQ(Count(refused.err, "\n"), 1u) << "one line: " << refused.err;
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir_)) << "a refused command wrote into the directory";
  ASSERT_EQ(::chmod(dir_.c_str(), 0700), 0);  // the fix the message names
  const CommandResult granted = Las({"grant", "worker", "--all"});
  EXPECT_EQ(granted.exit_code, 0) << granted.err;
}

// Probe GW1: a writer refused at the log's open (a file as its log, here) had already made
// its snapshot key and the directories on the key's way: a mistyped --snapshot-key left a
// new secret key behind. A key that existed before stays.
TEST_F(LogDirectoryCliTest, AWriterRefusedAtTheLogsOpenLeavesNoNewSnapshotKey) {
  ASSERT_TRUE(std::ofstream(dir_) << "a file\n");
  const std::string key = tmp_.Sub("keys/a/b/new.key");
  const CommandResult refused = Las({"serve", "--snapshot-key", key});
  EXPECT_EQ(refused.exit_code, 5) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(tmp_.Sub("keys"))) << "the refused writer made its key";
  // The default key (XDG_CONFIG_HOME/las/snapshot.key) of an operator verb, likewise.
  const CommandResult granted =
      RunCommand({"/usr/bin/env", "XDG_RUNTIME_DIR=" + run_, "XDG_CONFIG_HOME=" + tmp_.Sub("config"),
                  LAS_EXECUTABLE, "grant", "worker", "--all", "--log", dir_});
  EXPECT_EQ(granted.exit_code, 5) << granted.err;
  EXPECT_FALSE(std::filesystem::exists(tmp_.Sub("config")));
  std::filesystem::remove(dir_);
  ASSERT_EQ(Las({"serve", "--snapshot-key", key}).exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(key));
  std::filesystem::remove_all(dir_);
  ASSERT_TRUE(std::ofstream(dir_) << "a file\n");
  EXPECT_EQ(Las({"serve", "--snapshot-key", key}).exit_code, 5);
  EXPECT_TRUE(std::filesystem::exists(key)) << "a key made before is kept";
}

// A --snapshot-key the operator named that no file can be at is a mistyped flag: refused
// before the log is made (probe IZ2: the server ran unsealed, exit 0, with a note).
TEST_F(LogDirectoryCliTest, ANamedSnapshotKeyThatCannotBeAFileIsRefused) {
  const std::string key_dir = tmp_.Sub("key-dir");
  ASSERT_EQ(::mkdir(key_dir.c_str(), 0700), 0);
  const std::string fifo = tmp_.Sub("key-fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string file = tmp_.Sub("key-file");
  ASSERT_TRUE(std::ofstream(file) << "x");
  for (const std::string& key : {key_dir, fifo, file + "/sub"}) {
    for (const char* verb : {"serve", "list"}) {
      const CommandResult refused = Las({verb, "--snapshot-key", key});
      EXPECT_EQ(refused.exit_code, 2) << verb << " " << key << ": " << refused.err;
      EXPECT_TRUE(Has(refused.err, "--snapshot-key: " + key)) << refused.err;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir_)) << "a refused server made its log";
}

TEST_F(LogDirectoryCliTest, ADirectoryOfAnotherUserIsRefusedWithTheFix) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a directory to another user here";
  MakeLogDirectory(0700);
  ASSERT_EQ(::chown(dir_.c_str(), 65534, 65534), 0);
  const CommandResult refused = Serve();
  EXPECT_EQ(refused.exit_code, 8) << refused.err;
  EXPECT_TRUE(Has(refused.err, "belongs to uid 65534")) << refused.err;
  EXPECT_TRUE(Has(refused.err, "chown")) << refused.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
  // An auditor still reads another user's log (here: none yet, so "no log", not "denied").
  const CommandResult replay = RunCommand({LAS_EXECUTABLE, "replay", "--log", dir_});
  EXPECT_EQ(replay.exit_code, 4) << replay.err;
}

// `mkdir -p` (0755) or systemd's StateDirectory= leave a directory others may read: it is
// used, and the server says so once, with the fix; a private one gets no note.
TEST_F(LogDirectoryCliTest, ServeNotesADirectoryOthersMayReadOnce) {
  MakeLogDirectory(0755);
  const CommandResult served = Serve();
  EXPECT_EQ(served.exit_code, 0) << served.err;
  EXPECT_EQ(Count(served.err, "chmod 700"), 1u) << served.err;
  EXPECT_TRUE(Has(served.err, "las serve: the log directory " + dir_ + " may be read by group or others (mode 0755)"))
      << served.err;
  struct stat st {};
  ASSERT_EQ(::stat(dir_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u) << "an existing directory keeps its mode";

  ASSERT_EQ(::chmod(dir_.c_str(), 0700), 0);
  const CommandResult private_served = Serve();
  EXPECT_EQ(private_served.exit_code, 0) << private_served.err;
  EXPECT_FALSE(Has(private_served.err, "may be read by group or others")) << private_served.err;
}

TEST_F(LogDirectoryCliTest, DaemonNotesADirectoryOthersMayReadOnce) {
  MakeLogDirectory(0750);
  const std::string err = tmp_.Sub("daemon.err");
  testing::ChildProcess daemon(
      {"/bin/sh", "-c", "exec /usr/bin/env XDG_RUNTIME_DIR=\"$1\" \"$0\" daemon --log \"$2\" --snapshot-key '' 2>\"$3\"",
       LAS_EXECUTABLE, run_, dir_, err});
  ASSERT_TRUE(daemon.ReadLine().has_value()) << "the daemon listens";
  daemon.Kill(SIGTERM);
  const int status = daemon.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::ifstream in(err);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(Count(text.str(), "chmod 700"), 1u) << text.str();
  EXPECT_TRUE(Has(text.str(), "las daemon: the log directory " + dir_ + " may be read by group or others (mode 0750)"))
      << text.str();
}

// Every directory a writer makes on the way to its log is the owner's alone, whatever the
// umask: made with it (0777 under `umask 000`), a missing ~/.local/state/las could be
// replaced by another user's (probe AU1).
TEST_F(LogDirectoryCliTest, TheDirectoriesMadeOnTheWayAreTheOwnersAloneWhateverTheUmask) {
  const std::string top = tmp_.Sub("new");
  dir_ = top + "/a/b/log";
  const CommandResult served = RunCommand(
      {"/bin/sh", "-c", "umask 000; exec \"$@\"", "sh", "/usr/bin/env", "XDG_RUNTIME_DIR=" + run_,
       LAS_EXECUTABLE, "serve", "--snapshot-key", "", "--log", dir_});
  ASSERT_EQ(served.exit_code, 0) << served.err;
  for (const std::string& made : {top, top + "/a", top + "/a/b", dir_}) {
    struct stat st {};
    ASSERT_EQ(::stat(made.c_str(), &st), 0) << made;
    EXPECT_EQ(st.st_mode & 07777, 0700u) << made;
  }
}

// A log whose making failed part way (here the file size limit; a full disk or too few
// descriptors alike) is not left half made: the next start found RocksDB's first files
// without a format marker and refused them as damaged or foreign for good (probe AU3).
TEST_F(LogDirectoryCliTest, ALogWhoseMakingFailedIsNotLeftHalfMade) {
  if (::access("/usr/bin/prlimit", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/prlimit";
  const CommandResult failed =
      RunCommand({"/usr/bin/prlimit", "--fsize=100", "/usr/bin/env", "XDG_RUNTIME_DIR=" + run_,
                  LAS_EXECUTABLE, "serve", "--snapshot-key", "", "--log", dir_});
  ASSERT_EQ(failed.exit_code, 9) << failed.err;
  EXPECT_TRUE(Has(failed.err, "las serve: io: ")) << failed.err;
  EXPECT_FALSE(std::filesystem::exists(dir_)) << "the directory the failed start made is gone";

  const CommandResult served = Serve();
  EXPECT_EQ(served.exit_code, 0) << served.err;
  const CommandResult replayed = Las({"replay"});
  EXPECT_EQ(replayed.exit_code, 0) << replayed.err;
}

// A snapshot key that whoever writes the log directory can replace seals nothing (probe DC3:
// a swapped key and a snapshot sealed with it were restored): it is not used, nor made.
TEST_F(LogDirectoryCliTest, ASnapshotKeyInsideTheLogDirectoryIsNotUsed) {
  ASSERT_EQ(Serve().exit_code, 0);  // the log exists
  const std::string key = dir_ + "/snapshot.key";
  const CommandResult served = Las({"serve", "--snapshot-every", "1", "--snapshot-key", key});
  EXPECT_EQ(served.exit_code, 0) << served.err;
  EXPECT_TRUE(Has(served.err, "snapshots and the head seal disabled: the snapshot key")) << served.err;
  EXPECT_FALSE(std::filesystem::exists(key)) << "no key was made there";
}

// With no home directory (no HOME, no passwd entry) and no XDG_STATE_HOME there is no
// default log: not /.local/state/las/log at the root of the file system (probe AU9).
TEST_F(LogDirectoryCliTest, WithNoHomeThereIsNoDefaultLog) {
  constexpr uid_t kStranger = 54321;
  if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0 || ::getpwuid(kStranger) != nullptr) {
    GTEST_SKIP() << "needs root, /usr/bin/setpriv and a uid without a passwd entry";
  }
  for (const std::vector<std::string>& verb : {std::vector<std::string>{"replay"},
                                              {"grant", "worker", "--all"}}) {
    std::vector<std::string> argv = {"/usr/bin/env", "-u", "HOME", "-u", "XDG_STATE_HOME",
                                     "/usr/bin/setpriv", "--reuid", std::to_string(kStranger),
                                     "--regid", std::to_string(kStranger), "--clear-groups",
                                     LAS_EXECUTABLE};
    argv.insert(argv.end(), verb.begin(), verb.end());
    const CommandResult refused = RunCommand(argv);
    EXPECT_EQ(refused.exit_code, 2) << verb[0] << ": " << refused.err;
    EXPECT_TRUE(Has(refused.err, "give --log DIR")) << refused.err;
    EXPECT_FALSE(Has(refused.err, "/.local/state")) << refused.err;
  }
}

}  // namespace
}  // namespace las
