#include "transport/line_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace las::transport {
namespace {

struct Collected {
  std::vector<std::string> lines;
  std::vector<std::string> too_long;
  std::vector<std::string> partial;
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

}  // namespace
}  // namespace las::transport
