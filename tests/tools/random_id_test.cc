#include "tools/random_id.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace las::tools {
namespace {

bool IsLowerHex(std::string_view text) {
  return text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

TEST(RandomId, IsThePrefixAnd16BytesInHex) {
  const std::string id = RandomId("call-");
  ASSERT_EQ(id.size(), 5u + 32u);
  EXPECT_EQ(id.substr(0, 5), "call-");
  EXPECT_TRUE(IsLowerHex(id.substr(5))) << id;
}

// Many blocks' worth, so refills are crossed many times.
TEST(RandomId, NeverRepeatsAcrossBlockRefills) {
  std::set<std::string> seen;
  for (int i = 0; i < 20000; ++i) ASSERT_TRUE(seen.insert(RandomId("")).second) << "after " << i;
}

TEST(RandomId, ThreadsDrawDistinctIds) {
  constexpr int kThreads = 4;
  constexpr int kEach = 2000;
  std::vector<std::vector<std::string>> drawn(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&drawn, t] {
      for (int i = 0; i < kEach; ++i) drawn[t].push_back(RandomId("x"));
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<std::string> all;
  for (const auto& ids : drawn) all.insert(ids.begin(), ids.end());
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kEach));
}

// A child process must not hand out the ids its parent will: the block filled before the
// fork is discarded in the child.
TEST(RandomId, AForkedChildDoesNotRepeatItsParent) {
  (void)RandomId("");  // the parent's block is now filled, with ids left in it
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    std::string ids;
    for (int i = 0; i < 8; ++i) ids += RandomId("") + "\n";
    const bool written = ::write(fds[1], ids.data(), ids.size()) == static_cast<ssize_t>(ids.size());
    ::_exit(written ? 0 : 1);
  }
  ::close(fds[1]);
  std::string from_child;
  char buffer[512];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) from_child.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  std::set<std::string> parent;
  for (int i = 0; i < 8; ++i) parent.insert(RandomId(""));
  size_t lines = 0;
  for (size_t start = 0, end; (end = from_child.find('\n', start)) != std::string::npos; start = end + 1) {
    ++lines;
    EXPECT_EQ(parent.count(from_child.substr(start, end - start)), 0u) << "the child repeated a parent id";
  }
  EXPECT_EQ(lines, 8u);
}

}  // namespace
}  // namespace las::tools
