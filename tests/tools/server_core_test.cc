#include "tools/server_core.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include "tests/support/temp_dir.h"
#include "tools/loop_appender.h"
#include "tools/server_options.h"

namespace las::tools {
namespace {

// A log found damaged while serving (a background compaction reads a bad block below the
// snapshot the start folded from, and the next append fails) ends the server with the same
// advice as damage found at the start (probe IV3: "appending to the log: Corruption: block
// checksum mismatch" alone).
TEST(ServerCoreTest, ALogThatFailsAsDamagedWhileServingEndsWithTheRestoreAdvice) {
  testing::TempDir tmp;
  boost::asio::io_context io;
  ServerOptions options;
  options.log_dir = tmp.Sub("log");
  options.snapshot_key_file = "";
  auto core = ServerCore::Open(io, options);
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  EXPECT_TRUE((*core)->status().ok());
  (*core)->appender().NoteFailure(Corruption("appending to the log: block checksum mismatch"));
  const Status ended = (*core)->status();
  EXPECT_EQ(ended.code(), Code::kCorruption);
  EXPECT_EQ(ended.message().rfind("appending to the log: block checksum mismatch; ", 0), 0u) << ended.ToString();
  EXPECT_NE(ended.message().find("restore the last copy that verifies"), std::string::npos) << ended.ToString();
  // Another failure is told as it is.
  options.log_dir = tmp.Sub("other");
  auto other = ServerCore::Open(io, options);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  (*other)->appender().NoteFailure(IoError("No space left on device"));
  EXPECT_EQ((*other)->status().message(), "No space left on device");
}

}  // namespace
}  // namespace las::tools
