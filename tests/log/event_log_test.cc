// EventLog: appends, round trips, chain, group commit, reopen.
#include "log/event_log.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <algorithm>
#include <set>
#include <thread>

#include "log/envelope.h"
#include "log/event_builder.h"
#include "log/event_json.h"
#include "log/log_reader.h"
#include "log/rocks_store.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace las::log {
namespace {

using testing::OneOfEveryKind;
using testing::TempDir;

std::unique_ptr<EventLog> OpenOrDie(const std::string& dir, const LogOptions& options = {}) {
  auto log = EventLog::Open(dir, options);
  EXPECT_TRUE(log.ok()) << log.status().ToString();
  return log.ok() ? std::move(*log) : nullptr;
}

std::vector<StoredEvent> ReadAll(EventLog& log, uint64_t from = 1) {
  std::vector<StoredEvent> out;
  auto cursor = log.Read(from);
  EXPECT_TRUE(cursor.ok()) << cursor.status().ToString();
  while (true) {
    auto more = (*cursor)->Next();
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    out.push_back((*cursor)->current());
  }
  return out;
}

TEST(EventLogTest, EveryKindRoundTripsByteForByteExceptPatchedFields) {
  TempDir tmp;
  ManualClock clock(1'700'000'000'000'000);
  auto log = OpenOrDie(tmp.Sub("log"), {.create_if_missing = true, .clock = &clock});
  std::vector<EventDraft> drafts = OneOfEveryKind(3);
  // Every kind in the union, none left out.
  ASSERT_EQ(drafts.size(), static_cast<size_t>(fb::EventPayload::MAX));
  std::vector<std::string> expected_payloads;
  for (const auto& draft : drafts) {
    StoredEvent unpatched{0, {}, std::string(draft.envelope.begin(), draft.envelope.end())};
    expected_payloads.push_back(nlohmann::json::parse(EventToJson(unpatched))["payload"].dump());
  }

  auto range = log->Append(drafts);
  ASSERT_TRUE(range.ok()) << range.status().ToString();
  EXPECT_EQ(range->first, 1u);
  EXPECT_EQ(range->last, drafts.size());

  auto events = ReadAll(*log);
  ASSERT_EQ(events.size(), drafts.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const fb::Envelope& e = EnvelopeOf(events[i]);
    EXPECT_EQ(e.sequence(), i + 1);
    EXPECT_EQ(static_cast<size_t>(e.payload_type()), i + 1) << "union order";
    EXPECT_EQ(e.time_micros(), 1'700'000'000'000'000);
    EXPECT_EQ(e.agent_id()->str(), "agent-3");
    EXPECT_EQ(e.session_id()->str(), "session-3");
    EXPECT_EQ(nlohmann::json::parse(EventToJson(events[i]))["payload"].dump(), expected_payloads[i])
        << KindName(e.payload_type());
  }
  EXPECT_TRUE(log->Verify().ok());
}

TEST(EventLogTest, JsonRendersSchemaNamesBytesAsHexAndEnumsByName) {
  TempDir tmp;
  auto log = OpenOrDie(tmp.Sub("log"));
  ASSERT_TRUE(log->Append(OneOfEveryKind(1)).ok());
  auto events = ReadAll(*log);
  std::string accepted = EventToJson(events[0]);
  EXPECT_NE(accepted.find("\"kind\":\"ReleaseAccepted\""), std::string::npos) << accepted;
  EXPECT_NE(accepted.find("\"manifest\":\"7b7d01\""), std::string::npos) << accepted;
  EXPECT_NE(accepted.find("\"seq\":1"), std::string::npos);
  std::string completed = EventToJson(events[9]);
  EXPECT_NE(completed.find("\"outcome\":\"ToolError\""), std::string::npos) << completed;
  std::string grant = EventToJson(events[13]);
  EXPECT_NE(grant.find("\"selectors\":[{\"surface\":\"weles\",\"tool\":\"echo\",\"definition_sha256\":\"d256\"}]"),
            std::string::npos)
      << grant;
}

// An agent's text that reorders or hides what a terminal shows (U+202E, U+200B, a tag
// character) is printed as \u escapes: the same JSON value, shown as stored (probe CL2).
TEST(EventLogTest, JsonEscapesCodePointsThatReorderOrHideText) {
  TempDir tmp;
  auto log = OpenOrDie(tmp.Sub("log"));
  const std::string subject = "pay\u202Eevil\u200b\U000E0041 z\u00f3\u0142w";
  log::EventBuilder b;
  auto payload = las::fb::CreateMessageSentDirect(b.fbb(), "m1", "agent-b", subject.c_str(), "{}");
  ASSERT_TRUE(log->Append({b.Finish(payload, "agent-a", "s1")}).ok());
  const std::string line = EventToJson(ReadAll(*log).at(0));
  EXPECT_NE(line.find(R"("subject":"pay\u202eevil\u200b\udb40\udc41 zółw")"), std::string::npos)
      << line;
  EXPECT_EQ(nlohmann::json::parse(line)["payload"]["subject"], subject);
}

TEST(EventLogTest, TimesRfc3339CannotWriteAreNull) {
  EXPECT_EQ(FormatRfc3339Micros(0), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(FormatRfc3339Micros(-1), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(FormatRfc3339Micros(253402300799999999), "9999-12-31T23:59:59.999999Z");
  EXPECT_EQ(FormatRfc3339Micros(253402300800000000), std::nullopt);
  EXPECT_EQ(FormatRfc3339Micros(-62167219200000000), "0000-01-01T00:00:00.000000Z");
  EXPECT_EQ(FormatRfc3339Micros(-62167219200000001), std::nullopt);
  EXPECT_EQ(FormatRfc3339Micros(INT64_MIN), std::nullopt);
  EXPECT_EQ(FormatRfc3339Micros(INT64_MAX), std::nullopt);
}

// An event that stores no value for a scalar field (a writer that does not force defaults,
// or an event older than the field) prints it as its default, as one that stores the
// default does: every field of the table, by name (probe AT1: they were left out).
TEST(EventLogTest, JsonPrintsAbsentScalarsAsTheirDefaults) {
  flatbuffers::FlatBufferBuilder builder;
  builder.ForceDefaults(false);
  const auto call_id = builder.CreateString("call-1");
  fb::ToolCallCompletedBuilder completed(builder);
  completed.add_call_id(call_id);
  const auto payload = completed.Finish();
  const fb::Hash32 genesis;  // the prev_hash a verifying reader requires
  fb::EnvelopeBuilder envelope(builder);
  envelope.add_sequence(1);
  envelope.add_prev_hash(&genesis);
  envelope.add_payload_type(fb::EventPayload::ToolCallCompleted);
  envelope.add_payload(payload.Union());
  builder.Finish(envelope.Finish(), "LASE");
  const StoredEvent event{1, {}, std::string(reinterpret_cast<const char*>(builder.GetBufferPointer()),
                                             builder.GetSize())};
  const nlohmann::json printed = nlohmann::json::parse(EventToJson(event));
  const nlohmann::json& fields = printed["payload"];
  EXPECT_EQ(fields["call_id"], "call-1") << printed.dump();
  EXPECT_EQ(fields["outcome"], "Ok") << printed.dump();
  EXPECT_EQ(fields["result_size"], 0) << printed.dump();
  EXPECT_EQ(fields["result_truncated"], false) << printed.dump();
  EXPECT_EQ(fields["duration_micros"], 0) << printed.dump();
  EXPECT_EQ(fields["error_code"], "") << printed.dump();
  EXPECT_EQ(printed["time_micros"], 0) << printed.dump();
}

TEST(EventLogTest, SequencesAreDenseAcrossAppendsAndReopen) {
  TempDir tmp;
  const uint64_t kKinds = OneOfEveryKind(0).size();
  {
    auto log = OpenOrDie(tmp.Sub("log"));
    EXPECT_EQ(log->Append(OneOfEveryKind(0))->last, kKinds);
    auto second = log->Append({testing::SampleToolCallRequested(1)});
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(second->first, kKinds + 1);
    EXPECT_EQ(second->last, kKinds + 1);
  }
  auto log = OpenOrDie(tmp.Sub("log"));
  EXPECT_EQ(log->head().sequence, kKinds + 1);
  auto third = log->Append({testing::SampleToolCallCompleted(1)});
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->first, kKinds + 2);
  EXPECT_TRUE(log->Verify().ok());
  EXPECT_EQ(ReadAll(*log, kKinds - 3).size(), 6u);
  EXPECT_EQ(ReadAll(*log, kKinds + 3).size(), 0u);
}

TEST(EventLogTest, TimeNeverGoesBackwardsEvenWhenTheClockDoes) {
  TempDir tmp;
  ManualClock clock(5'000'000);
  auto log = OpenOrDie(tmp.Sub("log"), {.create_if_missing = true, .clock = &clock});
  ASSERT_TRUE(log->Append({testing::SampleToolCallRequested(1)}).ok());
  clock.Set(1'000'000);
  ASSERT_TRUE(log->Append({testing::SampleToolCallRequested(2)}).ok());
  auto events = ReadAll(*log);
  EXPECT_EQ(EnvelopeOf(events[1]).time_micros(), 5'000'000);
}

TEST(EventLogTest, RejectsEmptyBatchesAndForeignBytesAndWritesNothing) {
  TempDir tmp;
  auto log = OpenOrDie(tmp.Sub("log"));
  EXPECT_EQ(log->Append({}).status().code(), Code::kInvalidArgument);
  EventDraft garbage{{1, 2, 3, 4, 5, 6, 7, 8}};
  std::vector<EventDraft> mixed = {testing::SampleToolCallRequested(1), garbage};
  EXPECT_EQ(log->Append(mixed).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(log->head().sequence, 0u);
  EXPECT_TRUE(ReadAll(*log).empty());
}

TEST(EventLogTest, ConcurrentAppendersGetDistinctDenseSequencesAndShareSyncs) {
  TempDir tmp;
  auto log = OpenOrDie(tmp.Sub("log"));
  constexpr int kThreads = 16;
  constexpr int kPerThread = 40;
  std::vector<std::vector<uint64_t>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto range = log->Append({testing::SampleToolCallRequested(static_cast<uint64_t>(i)),
                                  testing::SampleToolCallCompleted(static_cast<uint64_t>(i))});
        ASSERT_TRUE(range.ok()) << range.status().ToString();
        ASSERT_EQ(range->last, range->first + 1) << "a batch stays contiguous";
        got[t].push_back(range->first);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<uint64_t> firsts;
  for (const auto& v : got) firsts.insert(v.begin(), v.end());
  EXPECT_EQ(firsts.size(), static_cast<size_t>(kThreads * kPerThread));
  EXPECT_EQ(log->head().sequence, static_cast<uint64_t>(2 * kThreads * kPerThread));
  EXPECT_TRUE(log->Verify().ok());
  EXPECT_LT(log->stats().synced_groups, static_cast<uint64_t>(kThreads * kPerThread))
      << "appends that arrive during a sync share the next one";
}

TEST(EventLogTest, DeferredAppendsBecomeDurableWithTheNextSyncedAppend) {
  TempDir tmp;
  // A long deferral interval: only the synced append can have made the first one durable.
  auto log = OpenOrDie(tmp.Sub("log"), {.deferred_sync_micros = 60'000'000});
  ASSERT_TRUE(log->Append({testing::SampleToolCallCompleted(1)}, Durability::kDeferred).ok());
  ASSERT_TRUE(log->Append({testing::SampleToolCallRequested(2)}, Durability::kSynced).ok());
  LogStats stats = log->stats();
  EXPECT_EQ(stats.deferred_groups, 1u);
  EXPECT_EQ(stats.synced_groups, 1u);
  EXPECT_EQ(stats.background_syncs, 0u) << "the synced append covered the deferred one";
  EXPECT_TRUE(log->Verify().ok());
}

TEST(EventLogTest, DeferredAppendsAreSyncedInTheBackgroundWhenNothingElseComes) {
  TempDir tmp;
  auto log = OpenOrDie(tmp.Sub("log"), {.deferred_sync_micros = 1000});
  ASSERT_TRUE(log->Append({testing::SampleToolCallCompleted(1)}, Durability::kDeferred).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (log->stats().background_syncs == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(log->stats().background_syncs, 1u);
}

TEST(EventLogTest, AsyncAppendsReportTheirOwnRangesInOrder) {
  TempDir tmp;
  auto log = OpenOrDie(tmp.Sub("log"));
  std::mutex mu;
  std::condition_variable cv;
  std::vector<AppendedRange> ranges(3);
  int done = 0;
  for (size_t i = 0; i < 3; ++i) {
    std::vector<EventDraft> drafts;
    for (size_t n = 0; n <= i; ++n) drafts.push_back(testing::SampleToolCallRequested(n));
    log->AppendAsync(std::move(drafts), i == 1 ? Durability::kDeferred : Durability::kSynced,
                     [&, i](Result<AppendedRange> range) {
                       ASSERT_TRUE(range.ok()) << range.status().ToString();
                       std::lock_guard lock(mu);
                       ranges[i] = *range;
                       ++done;
                       cv.notify_one();
                     });
  }
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return done == 3; }));
  EXPECT_EQ(ranges[0].first, 1u);
  EXPECT_EQ(ranges[0].last, 1u);
  EXPECT_EQ(ranges[1].first, 2u);
  EXPECT_EQ(ranges[1].last, 3u);
  EXPECT_EQ(ranges[2].first, 4u);
  EXPECT_EQ(ranges[2].last, 6u);
  lock.unlock();
  EXPECT_TRUE(log->Verify().ok());
}

TEST(EventLogTest, AsyncAppendsUnderLoadKeepCallerOrderAndShareSyncs) {
  TempDir tmp;
  auto log = OpenOrDie(tmp.Sub("log"));
  constexpr int kCallers = 8;
  constexpr int kEach = 50;
  std::mutex mu;
  std::condition_variable cv;
  // firsts[c][i]: the sequence given to caller c's i-th append (callbacks may complete in
  // another order: deferred ones do not wait for a sync).
  std::vector<std::vector<uint64_t>> firsts(kCallers, std::vector<uint64_t>(kEach, 0));
  int done = 0;
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int i = 0; i < kEach; ++i) {
        log->AppendAsync({testing::SampleToolCallRequested(static_cast<uint64_t>(i))},
                         i % 2 == 0 ? Durability::kSynced : Durability::kDeferred,
                         [&, c, i](Result<AppendedRange> range) {
                           ASSERT_TRUE(range.ok());
                           std::lock_guard lock(mu);
                           firsts[c][static_cast<size_t>(i)] = range->first;
                           ++done;
                           cv.notify_one();
                         });
      }
    });
  }
  for (auto& caller : callers) caller.join();
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return done == kCallers * kEach; }));
  std::set<uint64_t> all;
  for (const auto& mine : firsts) {
    EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end())) << "one caller's appends stay in order";
    all.insert(mine.begin(), mine.end());
  }
  EXPECT_EQ(all.size(), static_cast<size_t>(kCallers * kEach));
  EXPECT_EQ(*all.rbegin(), static_cast<uint64_t>(kCallers * kEach));
  lock.unlock();
  EXPECT_LT(log->stats().synced_groups, static_cast<uint64_t>(kCallers * kEach / 2));
  EXPECT_TRUE(log->Verify().ok());
}

TEST(EventLogTest, AsyncRejectsAnInvalidBatchAtOnce) {
  TempDir tmp;
  auto log = OpenOrDie(tmp.Sub("log"));
  bool called = false;
  log->AppendAsync({}, Durability::kSynced, [&](Result<AppendedRange> range) {
    called = true;
    EXPECT_EQ(range.status().code(), Code::kInvalidArgument);
  });
  EXPECT_TRUE(called);
}

TEST(EventLogTest, ClosingTheLogSyncsPendingDeferredAppends) {
  TempDir tmp;
  {
    auto log = OpenOrDie(tmp.Sub("log"), {.deferred_sync_micros = 60'000'000});
    ASSERT_TRUE(log->Append({testing::SampleToolCallCompleted(1)}, Durability::kDeferred).ok());
    log.reset();
  }
  auto log = OpenOrDie(tmp.Sub("log"));
  EXPECT_EQ(log->head().sequence, 1u);
}

TEST(EventLogTest, SecondWriterInTheSameProcessIsLockedOut) {
  TempDir tmp;
  auto first = OpenOrDie(tmp.Sub("log"));
  auto second = EventLog::Open(tmp.Sub("log"));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kLocked) << second.status().ToString();
}


TEST(EventLogTest, AppendInPlaceLeavesTheEventsAsStoredInTheCallersVector) {
  TempDir tmp;
  auto log = OpenOrDie(tmp.Sub("log"));
  std::vector<EventDraft> drafts = {testing::SampleToolCallRequested(1),
                                    testing::SampleToolCallCompleted(1)};
  auto range = log->AppendInPlace(drafts, Durability::kSynced);
  ASSERT_TRUE(range.ok()) << range.status().ToString();
  EXPECT_EQ(range->first, 1u);
  EXPECT_EQ(range->last, 2u);
  auto cursor = log->Read(1);
  ASSERT_TRUE(cursor.ok());
  for (const EventDraft& draft : drafts) {
    auto next = (*cursor)->Next();
    ASSERT_TRUE(next.ok() && *next);
    const std::string& stored = (*cursor)->current().envelope;
    EXPECT_EQ(std::string(draft.envelope.begin(), draft.envelope.end()), stored)
        << "sequence, time and prev_hash are patched into the caller's own bytes";
  }
  // The range carries the last event's chain hash; the one before is the last's prev_hash.
  EXPECT_EQ(range->last_hash, *log->EventHash(2));
  EXPECT_EQ(range->last_hash, log->head().hash);
  EXPECT_EQ(PrevHashOf(drafts[1]), *log->EventHash(1));
}

// durable_sequence() moves with the syncs, not the writes; a wait for an event not written
// yet is refused at once — it used to sync forever and hang the log's close (probe BT4).
TEST(EventLogTest, DurableSequenceFollowsSyncsAndAWaitBeyondTheHeadIsRefused) {
  TempDir tmp;
  auto log = OpenOrDie(tmp.Sub("log"), {.deferred_sync_micros = 60'000'000});
  ASSERT_TRUE(log->Append({testing::SampleToolCallRequested(1)}).ok());
  EXPECT_EQ(log->durable_sequence(), 1u);
  auto deferred = log->Append({testing::SampleToolCallRequested(2)}, Durability::kDeferred);
  ASSERT_TRUE(deferred.ok());
  EXPECT_EQ(log->head().sequence, 2u);
  EXPECT_EQ(log->durable_sequence(), 1u) << "written, not yet synced";

  std::optional<Status> beyond;
  log->AwaitDurableAsync(3, [&](Status status) { beyond = status; });
  ASSERT_TRUE(beyond.has_value()) << "answered before AwaitDurableAsync returned";
  EXPECT_EQ(beyond->code(), Code::kInvalidArgument) << beyond->ToString();

  std::mutex mu;
  std::condition_variable cv;
  std::optional<Status> synced;
  log->AwaitDurableAsync(2, [&](Status status) {
    std::lock_guard lock(mu);
    synced = status;
    cv.notify_one();
  });
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return synced.has_value(); }));
  EXPECT_TRUE(synced->ok()) << synced->ToString();
  EXPECT_EQ(log->durable_sequence(), 2u);
}

TEST(EventLogTest, AwaitDurableAsyncSyncsADeferredWriteOffTheCallersThread) {
  TempDir tmp;
  // A long deferral interval: only the requested sync can make the write durable.
  auto log = OpenOrDie(tmp.Sub("log"), {.deferred_sync_micros = 60'000'000});
  auto range = log->Append({testing::SampleToolCallRequested(1)}, Durability::kDeferred);
  ASSERT_TRUE(range.ok());
  std::mutex mu;
  std::condition_variable cv;
  std::optional<Status> synced;
  std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_on;
  log->AwaitDurableAsync(range->last, [&](Status status) {
    std::lock_guard lock(mu);
    synced = status;
    ran_on = std::this_thread::get_id();
    cv.notify_one();
  });
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return synced.has_value(); }));
  EXPECT_TRUE(synced->ok()) << synced->ToString();
  EXPECT_NE(ran_on, caller);
  lock.unlock();
  EXPECT_EQ(log->stats().synced_groups, 1u);
  EXPECT_EQ(log->stats().background_syncs, 0u);
}

// A snapshot only saves time: one that would leave the disk less free than the reserve is
// not written (kIo, nothing stored), and the log goes on appending (probe N2: the snapshot
// took the last free bytes and the log refused every later append).
TEST(EventLogTest, ASnapshotThatWouldTakeTheAppendsReserveIsNotWritten) {
  TempDir tmp;
  LogOptions options;
  options.snapshot_free_reserve_bytes = UINT64_MAX;
  auto log = EventLog::Open(tmp.Sub("log"), options);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  const Status refused = (*log)->PutSnapshot(1, "record");
  EXPECT_EQ(refused.code(), Code::kIo);
  EXPECT_NE(refused.message().find("bytes free"), std::string::npos) << refused.message();
  auto sequences = (*log)->SnapshotSequences();
  ASSERT_TRUE(sequences.ok());
  EXPECT_TRUE(sequences->empty());
  EXPECT_TRUE((*log)->Append(OneOfEveryKind(0)).ok());
  log->reset();

  auto with_room = EventLog::Open(tmp.Sub("log"));
  ASSERT_TRUE(with_room.ok()) << with_room.status().ToString();
  ASSERT_TRUE((*with_room)->PutSnapshot(1, "record").ok()) << "the test disk has 64 MiB free";
  EXPECT_EQ(*(*with_room)->GetSnapshot(1), "record");
}

// The log's directory moved away under the writer: a flush, and every later append, fail
// with kIo naming the move — an I/O failure of this process, not damage in the events (a
// daemon then ends with the I/O exit code, probe N6).
TEST(EventLogTest, ADirectoryMovedAwayUnderTheWriterIsAnIoErrorNotCorruption) {
  TempDir tmp;
  auto log = OpenOrDie(tmp.Sub("log"));
  ASSERT_TRUE(log->Append({testing::SampleToolCallRequested(1)}).ok());
  std::filesystem::rename(tmp.Sub("log"), tmp.Sub("log.moved"));
  const Status flushed = log->Flush();
  EXPECT_EQ(flushed.code(), Code::kIo) << flushed.ToString();
  EXPECT_NE(flushed.ToString().find("moved"), std::string::npos) << flushed.ToString();
  auto appended = log->Append({testing::SampleToolCallCompleted(1)});
  ASSERT_FALSE(appended.ok());
  EXPECT_EQ(appended.status().code(), Code::kIo) << appended.status().ToString();
}

// A background flush that was writing a table file when the directory moved sets RocksDB's
// background error, which the next write returns: "IO error: No such file or directory:
// While open a file for random read: .../000024.ldb" (seen once in ~30 runs of
// DaemonTest.AFailedLogEndsTheDaemonWithExitNine under ASan, which then exited 3). From a
// write that is an I/O failure; only at an open is a file missing from the MANIFEST damage.
TEST(EventLogTest, AMissingFileReportedByAWriteIsAnIoErrorAndByAnOpenIsDamage) {
  const rocksdb::Status missing = rocksdb::Status::PathNotFound(
      "While open a file for random read: /tmp/x/log/000024.ldb: No such file or directory");
  EXPECT_EQ(FromRocksWrite(missing, "appending to the log").code(), Code::kIo);
  EXPECT_EQ(FromRocks(missing, "opening the log").code(), Code::kCorruption);
  EXPECT_EQ(FromRocksWrite(rocksdb::Status::Corruption("bad block"), "appending").code(),
            Code::kCorruption);
  EXPECT_TRUE(FromRocksWrite(rocksdb::Status::OK(), "appending").ok());
}

}  // namespace
}  // namespace las::log
