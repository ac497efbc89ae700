#include "transport/line_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace las::transport {
namespace {

struct Collected {
  std::vector<std::string> lines;
  std::vector<std::string> too_long;
  std::vector<std::string> partial;
  std::vector<std::string> tails;
};

class LineFramerTest : public ::testing::Test {
 protected:
  void Feed(LineFramer& f, std::string_view data) {
    f.Feed(data, [this](const LineEvent& e) { Record(e); });
  }
  void Finish(LineFramer& f) {
    f.Finish([this](const LineEvent& e) { Record(e); });
  }
  void Record(const LineEvent& e) {
    switch (e.kind) {
      case LineEvent::Kind::kLine: got.lines.emplace_back(e.bytes); break;
      case LineEvent::Kind::kTooLong: got.too_long.emplace_back(e.bytes); break;
      case LineEvent::Kind::kPartialAtEof: got.partial.emplace_back(e.bytes); break;
      case LineEvent::Kind::kTooLongEnd: got.tails.emplace_back(e.bytes); break;
    }
  }
  Collected got;
};

TEST_F(LineFramerTest, SplitsLinesAcrossChunks) {
  LineFramer f(100);
  Feed(f, "ab");
  Feed(f, "c\nde\n\nf");
  Feed(f, "g\n");
  EXPECT_EQ(got.lines, (std::vector<std::string>{"abc", "de", "", "fg"}));
  EXPECT_EQ(f.buffered_bytes(), 0u);
}

// With a tail kept, each over-long line's end is reported with its last bytes, however the
// line was cut into chunks; without one (the default) no end is reported.
TEST_F(LineFramerTest, KeptTailReportsTheLastBytesOfAnOverlongLine) {
  LineFramer f(4, 3);
  Feed(f, "abcdefg\n");         // over the limit and ended in one chunk
  Feed(f, "hij");
  Feed(f, "klm");               // over the limit here
  Feed(f, "n");
  Feed(f, "o\nok\n");           // ends here: tail crosses three chunks
  Feed(f, "pqrstuvwxyz");       // a third over-long line the stream ends inside
  Finish(f);
  EXPECT_EQ(got.too_long, (std::vector<std::string>{"abcd", "hijk", "pqrs"}));
  EXPECT_EQ(got.tails, (std::vector<std::string>{"efg", "mno"}));
  EXPECT_EQ(got.lines, (std::vector<std::string>{"ok"}));

  LineFramer plain(4);
  Feed(plain, "abcdefg\n");
  EXPECT_EQ(got.tails.size(), 2u) << "no tail without keep_tail_bytes";
}

TEST_F(LineFramerTest, LineOfExactlyTheLimitPasses) {
  LineFramer f(4);
  Feed(f, "abcd\n");
  EXPECT_EQ(got.lines, (std::vector<std::string>{"abcd"}));
  EXPECT_TRUE(got.too_long.empty());
}

TEST_F(LineFramerTest, OverlongLineReportedOnceAndSkipped) {
  LineFramer f(4);
  Feed(f, "ok\nabc");
  Feed(f, "defgh");  // crosses the limit here: reported now, before its newline
  ASSERT_EQ(got.too_long, (std::vector<std::string>{"abcd"}));
  EXPECT_TRUE(f.discarding());
  EXPECT_EQ(f.buffered_bytes(), 0u);
  Feed(f, std::string(1000, 'z'));  // still the same line: nothing buffered, no report
  EXPECT_EQ(f.buffered_bytes(), 0u);
  Feed(f, "zz\nnext\n");
  EXPECT_EQ(got.too_long.size(), 1u);
  EXPECT_EQ(got.lines, (std::vector<std::string>{"ok", "next"}));
}

TEST_F(LineFramerTest, OverlongLineInOneChunk) {
  LineFramer f(3);
  Feed(f, "abcdef\nxy\n");
  EXPECT_EQ(got.too_long, (std::vector<std::string>{"abc"}));
  EXPECT_EQ(got.lines, (std::vector<std::string>{"xy"}));
  EXPECT_FALSE(f.discarding());
}

TEST_F(LineFramerTest, NeverBuffersMoreThanTheLimit) {
  LineFramer f(1024);
  std::string chunk(300, 'a');
  for (int i = 0; i < 100; ++i) {
    Feed(f, chunk);
    EXPECT_LE(f.buffered_bytes(), 1024u);
  }
  EXPECT_EQ(got.too_long.size(), 1u);
}

// A partial line is held only up to the partial limit; a line that ends within one Feed is
// bounded by the line limit alone, and a limit lowered below what is held cuts at once.
TEST_F(LineFramerTest, ThePartialLimitBoundsOnlyWhatIsHeldBetweenFeeds) {
  LineFramer f(100);
  f.set_partial_limit(4);
  Feed(f, "0123456789\nab");
  EXPECT_EQ(got.lines, (std::vector<std::string>{"0123456789"})) << "ended in the same Feed";
  Feed(f, "cd");
  EXPECT_EQ(f.buffered_bytes(), 4u);
  Feed(f, "ef");
  EXPECT_EQ(got.too_long, (std::vector<std::string>{"abcd"})) << "held past the partial limit";
  EXPECT_TRUE(f.discarding());
  EXPECT_EQ(f.buffered_bytes(), 0u);
  Feed(f, "gh\nxy");
  EXPECT_EQ(got.lines.size(), 1u) << "the cut line's rest is skipped";
  f.set_partial_limit(1);
  Feed(f, "z");
  EXPECT_EQ(got.too_long, (std::vector<std::string>{"abcd", "xy"})) << "lowered below what is held";
  Feed(f, "\nok\n");
  EXPECT_EQ(got.lines, (std::vector<std::string>{"0123456789", "ok"}));
}

TEST_F(LineFramerTest, PartialLineAtEof) {
  LineFramer f(10);
  Feed(f, "a\nbc");
  Finish(f);
  EXPECT_EQ(got.lines, (std::vector<std::string>{"a"}));
  EXPECT_EQ(got.partial, (std::vector<std::string>{"bc"}));
  LineFramer g(2);
  Feed(g, "abcdef");
  Finish(g);  // the over-long line was reported already; no partial after it
  EXPECT_EQ(got.partial.size(), 1u);
}

// Random streams (lines of 0 to 2x the limit, some unterminated at the end) cut into random
// chunks give the events a whole-stream reading says they should.
TEST_F(LineFramerTest, RandomStreamsInRandomChunksMatchAWholeStreamReading) {
  constexpr size_t kLimit = 8;
  std::mt19937_64 rng(5);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  for (int stream = 0; stream < 3000; ++stream) {
    std::string text;
    Collected want;
    const size_t lines = pick(6);
    for (size_t i = 0; i <= lines; ++i) {
      std::string line;
      for (size_t n = pick(2 * kLimit + 2); n > 0; --n) line.push_back(static_cast<char>('a' + pick(3)));
      if (pick(7) == 0) line.push_back('\r');  // not special
      const bool last = i == lines;
      const bool terminated = !last || pick(2) == 0;
      text += line;
      if (terminated) text += '\n';
      if (line.size() > kLimit) {
        want.too_long.push_back(line.substr(0, kLimit));
      } else if (terminated) {
        want.lines.push_back(line);
      } else if (!line.empty()) {
        want.partial.push_back(line);
      }
    }
    got = {};
    LineFramer f(kLimit);
    for (size_t at = 0; at < text.size();) {
      const size_t n = std::min(text.size() - at, 1 + pick(kLimit * 2));
      Feed(f, std::string_view(text).substr(at, n));
      ASSERT_LE(f.buffered_bytes(), kLimit);
      at += n;
    }
    Finish(f);
    EXPECT_EQ(got.lines, want.lines) << text;
    EXPECT_EQ(got.too_long, want.too_long) << text;
    EXPECT_EQ(got.partial, want.partial) << text;
    EXPECT_EQ(f.buffered_bytes(), 0u);
  }
}

}  // namespace
}  // namespace las::transport
