// Las's environment holds every LAS_CREDENTIAL_*; a program of the same user — a child
// surface, for one — must not read it from /proc (probe AE7). The real `las serve` and a
// real reader of the same, unprivileged user: as root, both run as nobody (setpriv), since
// root reads any process's environment.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/processes.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

namespace las {
namespace {

constexpr uid_t kNobody = 65534;
constexpr char kSecret[] = "sk-only-for-the-surface-it-is-injected-into";

// `argv` run as an unprivileged user: nobody when this test runs as root, else this user.
std::vector<std::string> Unprivileged(std::vector<std::string> argv) {
  if (::geteuid() != 0) return argv;
  std::vector<std::string> wrapped = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                                      "--clear-groups", "--"};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

// Whether the unprivileged user can read the environment of process `pid`.
bool EnvironmentReadable(pid_t pid) {
  auto read = testing::RunCommand(
      Unprivileged({"/bin/cat", "/proc/" + std::to_string(pid) + "/environ"}));
  return read.exit_code == 0;
}

TEST(ProcessPrivacyTest, AProgramOfTheSameUserCannotReadTheCredentialsInLasEnvironment) {
  testing::TempDir tmp;
  const std::string log = tmp.Sub("log");
  if (::geteuid() == 0) {  // nobody must reach and own the log directory
    ASSERT_EQ(::chmod(tmp.path().c_str(), 0711), 0);
    ASSERT_EQ(::mkdir(log.c_str(), 0700), 0);
    ASSERT_EQ(::chown(log.c_str(), kNobody, kNobody), 0);
  }
  const std::string credential = std::string("LAS_CREDENTIAL_MOST_API_KEY=") + kSecret;

  // The control: the same user reads an ordinary process's environment (so the check below
  // can fail).
  testing::ChildProcess ordinary(Unprivileged({"/usr/bin/env", credential, "/bin/cat"}));
  ASSERT_TRUE(testing::AwaitCondition([&] { return EnvironmentReadable(ordinary.pid()); }))
      << "the reader cannot read even an ordinary process of its user";

  testing::ChildProcess serve(
      Unprivileged({"/usr/bin/env", credential, LAS_EXECUTABLE, "serve", "--embedded", "--log", log}));
  serve.WriteLine(R"({"jsonrpc":"2.0","id":1,"method":"ping"})");  // answered once it serves
  ASSERT_TRUE(serve.ReadLine(std::chrono::seconds(60)).has_value()) << "las serve never answered";
  EXPECT_FALSE(EnvironmentReadable(serve.pid()));
}

}  // namespace
}  // namespace las
