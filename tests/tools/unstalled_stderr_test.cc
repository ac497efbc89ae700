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

// A pipe filled to the last byte, then `room` bytes read out of it; its write end
// non-blocking, as OpenUnstalledWriter makes it.
bool FullPipe(int ends[2], size_t room) {
  if (::pipe(ends) != 0) return false;
  ::fcntl(ends[1], F_SETFL, ::fcntl(ends[1], F_GETFL) | O_NONBLOCK);
  const std::string block(4096, 'z');
  while (::write(ends[1], block.data(), block.size()) > 0) {
  }
  std::string freed(room, '\0');
  return room == 0 || ::read(ends[0], freed.data(), room) == static_cast<ssize_t>(room);
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
  ASSERT_TRUE(FullPipe(ends, 0));
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

// A line longer than the room left, handed over by stdio in pieces of its buffer (8 KiB):
// with 4 KiB of room the first piece is cut (probe HF3: the notice was glued to it, and
// each piece counted as a line); with 8 KiB it goes whole and the next is dropped (probe
// HH3: the notice was glued to the unfinished line). Either way the line is ended before
// the notice and counted once.
TEST(UnstalledStderr, ALineCutShortOrLeftUnfinishedIsEndedAndCountedOnce) {
  for (const size_t room : {size_t{4096}, size_t{8192}}) {
    int ends[2];
    ASSERT_TRUE(FullPipe(ends, room));
    FILE* stream = OpenUnstalledWriter(ends[1], std::chrono::milliseconds(100));
    ASSERT_NE(stream, nullptr);
    std::fputs((std::string(40000, 'x') + "\n").c_str(), stream);
    std::fputs("dropped too\n", stream);
    const std::string before = ReadAvailable(ends[0]);
    EXPECT_EQ(before.find("dropped too"), std::string::npos) << room;
    EXPECT_EQ(before.size() - before.find('x'), room) << "the line's start, as far as it went";
    std::fputs("after\n", stream);
    EXPECT_EQ(ReadAvailable(ends[0]), "\nlas: 2 lines of standard error were dropped: it was not read\nafter\n")
        << room;
    std::fclose(stream);
    ::close(ends[0]);
  }
}

// Probe HJ5: a note whose text all went but not its newline is not counted as dropped.
TEST(UnstalledStderr, ANoteMissingOnlyItsNewlineIsNotCounted) {
  int ends[2];
  ASSERT_TRUE(FullPipe(ends, 4096));
  FILE* stream = OpenUnstalledWriter(ends[1], std::chrono::milliseconds(100));
  ASSERT_NE(stream, nullptr);
  std::fputs((std::string(4096, 'x') + "\n").c_str(), stream);  // one byte over the room
  ReadAvailable(ends[0]);
  std::fputs("after\n", stream);
  EXPECT_EQ(ReadAvailable(ends[0]), "\nafter\n");
  std::fclose(stream);
  ::close(ends[0]);
}

}  // namespace
}  // namespace las::tools
