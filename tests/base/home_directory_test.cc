#include "base/home_directory.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <string>

namespace las {
namespace {

std::string PasswdHome() {
  const passwd* pw = ::getpwuid(::getuid());
  return pw != nullptr && pw->pw_dir != nullptr && pw->pw_dir[0] == '/' ? pw->pw_dir : "";
}

TEST(HomeDirectory, AnAbsoluteHomeVariableWins) {
  EXPECT_EQ(HomeDirectory("/srv/op"), "/srv/op");
}

// Without an absolute HOME every default is looked for under the passwd entry's home (probe
// CO2: the policy files were not, while the log was).
TEST(HomeDirectory, ElseThePasswdHome) {
  for (const char* home : {"", "relative/home", "~"}) {
    EXPECT_EQ(HomeDirectory(home), PasswdHome()) << '"' << home << '"';
  }
}

}  // namespace
}  // namespace las
