// tools/unstalled_stderr.h: a reader that is behind gets every line (probe HD1: 371 of
// 1,000 notes were lost to `2>&1 | cat`); one that never reads costs one wait, not one per
// line, and is told how many lines it missed once it reads again (probe HB1).
#include "tools/unstalled_stderr.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace las::tools {
namespace {

// What `fd` holds now, without waiting.
std::string ReadAvailable(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  std::string got;
  char buffer[65536];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) got.append(buffer, static_cast<size_t>(n));
  ::fcntl(fd, F_SETFL, flags);
  return got;
}

size_t Lines(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(UnstalledStderr, AReaderThatIsBehindGetsEveryLine) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  std::string got;
  std::thread reader([&] {
    char buffer[4096];
    for (ssize_t n; (n = ::read(ends[0], buffer, sizeof buffer)) > 0;) {
      got.append(buffer, static_cast<size_t>(n));
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // slower than the writer
    }
  });
  FILE* stream = OpenUnstalledWriter(ends[1], std::chrono::milliseconds(5000));
  ASSERT_NE(stream, nullptr);
  const std::string line = "las serve: surface s left out (schema-unsupported): " + std::string(100, 'x') + "\n";
  for (int i = 0; i < 2000; ++i) std::fputs(line.c_str(), stream);
  std::fclose(stream);
  reader.join();
  ::close(ends[0]);
  EXPECT_EQ(Lines(got), 2000u);
  EXPECT_EQ(got.find("dropped"), std::string::npos);
}

TEST(UnstalledStderr, NoReaderCostsOneWaitAndIsToldWhatItMissed) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const int flags = ::fcntl(ends[1], F_GETFL);
  ::fcntl(ends[1], F_SETFL, flags | O_NONBLOCK);
  const std::string block(4096, 'z');
  while (::write(ends[1], block.data(), block.size()) > 0) {
  }
  FILE* stream = OpenUnstalledWriter(ends[1], std::chrono::milliseconds(1000));
  ASSERT_NE(stream, nullptr);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) std::fputs("a note\n", stream);
  // Waiting for each line would take 5 s; one wait, then the others go at once.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(4000));

  const std::string filled = ReadAvailable(ends[0]);
  EXPECT_EQ(filled.find("a note"), std::string::npos) << "nothing fitted";
  std::fputs("after\n", stream);
  const std::string after = ReadAvailable(ends[0]);
  EXPECT_EQ(after, "las: 5 lines of standard error were dropped: it was not read\nafter\n");
  std::fclose(stream);
  ::close(ends[0]);
}

// Probe HF3: a line longer than the room left was cut, and the notice glued to it; each
// 16 KiB piece stdio handed over counted as a line.
TEST(UnstalledStderr, ALineCutShortIsEndedAndCountedOnce) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const int flags = ::fcntl(ends[1], F_GETFL);
  ::fcntl(ends[1], F_SETFL, flags | O_NONBLOCK);
  const std::string block(4096, 'z');
  while (::write(ends[1], block.data(), block.size()) > 0) {
  }
  char room[8192];
  ASSERT_EQ(::read(ends[0], room, sizeof room), static_cast<ssize_t>(sizeof room));
  FILE* stream = OpenUnstalledWriter(ends[1], std::chrono::milliseconds(100));
  ASSERT_NE(stream, nullptr);
  std::fputs((std::string(40000, 'x') + "\n").c_str(), stream);  // three pieces of 16 KiB or less
  std::fputs("dropped too\n", stream);
  const std::string before = ReadAvailable(ends[0]);
  std::fputs("after\n", stream);
  const std::string after = ReadAvailable(ends[0]);
  EXPECT_EQ(before.find("dropped too"), std::string::npos);
  const std::string told = "\nlas: 2 lines of standard error were dropped: it was not read\nafter\n";
  ASSERT_GE(after.size(), told.size());
  EXPECT_EQ(after.substr(after.size() - told.size()), told) << after.substr(after.size() - 200);
  EXPECT_EQ(after.find_first_not_of('x'), after.size() - told.size()) << "only the cut line's start before it";
  std::fclose(stream);
  ::close(ends[0]);
}

// Probe HH3: a piece of a long line written whole, the next one dropped: the notice was
// glued to the unfinished line.
TEST(UnstalledStderr, ALineLeftUnfinishedIsEndedBeforeTheNotice) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const int flags = ::fcntl(ends[1], F_GETFL);
  ::fcntl(ends[1], F_SETFL, flags | O_NONBLOCK);
  const std::string block(4096, 'z');
  while (::write(ends[1], block.data(), block.size()) > 0) {
  }
  char room[8192];
  ASSERT_EQ(::read(ends[0], room, sizeof room), static_cast<ssize_t>(sizeof room));
  FILE* stream = OpenUnstalledWriter(ends[1], std::chrono::milliseconds(100));
  ASSERT_NE(stream, nullptr);
  // stdio hands this line over in pieces of its buffer (8 KiB): the first fills the room.
  std::fputs((std::string(40000, 'x') + "\n").c_str(), stream);
  ReadAvailable(ends[0]);
  std::fputs("after\n", stream);
  const std::string after = ReadAvailable(ends[0]);
  EXPECT_EQ(after, "\nlas: 1 lines of standard error were dropped: it was not read\nafter\n");
  std::fclose(stream);
  ::close(ends[0]);
}

}  // namespace
}  // namespace las::tools
