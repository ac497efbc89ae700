// The log when memory runs out mid-append (probe FR4): RocksDB's write path does not survive
// std::bad_alloc — a write cut short left its writer queue waiting, and the close's flush
// hung for ever, holding the log's lock. Each allocation of an append is failed in turn
// (tests/support/allocation_failures.h): the append fails with kIo or succeeds, the close
// never hangs, and the log verifies in a fresh process with every acknowledged event.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "log/event_log.h"
#include "tests/support/allocation_failures.h"
#include "tests/support/run_command.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace las::log {
namespace {

TEST(OutOfMemoryLog, AnAppendThatRunsOutOfMemoryFailsAndTheLogClosesAndReopensWhole) {
  // Nothing here opens RocksDB: a child forked after it would inherit Env::Default's thread
  // pool without its threads, and a flush it scheduled would wait for ever. The log is
  // judged by a fresh process (las_log_appender verify) once the run's has ended: a log
  // abandoned after running out of memory is released only by its process's exit.
  testing::TempDir tmp;
  const std::string dir = tmp.Sub("log");
  const std::string outcome = tmp.Sub("outcome");  // the run's: "BEFORE acked|failed"
  const testing::Runs runs = testing::FailEachAllocationInTurn(
      [&] {
        ::alarm(30);  // a close that hangs ends the run (SIGALRM): judged wrong
        // Only the append's allocations fail (on this thread: the blocking append leads its
        // group, so its batch is built, written and synced here).
        const long nth = testing::allocations_until_failure;
        testing::allocations_until_failure = -1;
        std::filesystem::remove_all(dir);  // the last run's
        auto log = EventLog::Open(dir, {.create_if_missing = true});
        if (!log.ok() || !(*log)->Append(testing::OneOfEveryKind(1)).ok()) {
          return Status(Corruption("the log could not be made"));
        }
        const uint64_t before = (*log)->head().sequence;
        std::vector<EventDraft> drafts = {testing::SampleToolCallRequested(7),
                                          testing::SampleToolCallCompleted(7)};
        testing::allocations_until_failure = nth;
        Result<AppendedRange> range = (*log)->Append(std::move(drafts));
        testing::allocations_until_failure = -1;
        const Status appended = range.ok() ? Status::Ok() : range.status();
        std::ofstream(outcome) << before << (appended.ok() ? " acked" : " failed");
        log->reset();  // the close: must not hang
        return appended;
      },
      [](const Status& appended) -> std::string {
        return appended.ok() || appended.code() == Code::kIo ? "" : appended.ToString();
      },
      [&]() -> std::string {
        uint64_t before = 0;
        std::string acked;
        std::ifstream(outcome) >> before >> acked;
        const testing::CommandResult verified = testing::RunCommand({LAS_APPENDER_PATH, "verify", dir});
        if (verified.exit_code != 0) return "the log does not verify: " + verified.err;
        const std::string head = verified.out.substr(verified.out.find(' ') + 1);
        const uint64_t events = std::stoull(head);
        if (acked == "acked" && events != before + 2) return "an acknowledged append is missing";
        if (events != before && events != before + 2) return "a part of an append: " + head;
        return "";
      });
  EXPECT_TRUE(runs.wrong.empty()) << ::testing::PrintToString(runs.wrong);
  EXPECT_GT(runs.failed_one, 3) << runs.crashed << " crashed";
}

}  // namespace
}  // namespace las::log
