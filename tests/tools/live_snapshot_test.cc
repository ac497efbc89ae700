// Restart through snapshots (tools/live_projections.h): the server's live projections
// write a snapshot every N events, restore the newest valid one at start-up and fold only
// the tail, and end with the same digests as before the restart and as `las replay`'s full
// fold. A damaged or foreign snapshot is ignored with a warning and the log folded from 1.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "base/hex.h"
#include "log/event_log.h"
#include "log/snapshot.h"
#include "projections/replay.h"
#include "tests/support/forwarding_log.h"
#include "tests/support/projection_saves.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"
#include "tools/live_projections.h"

namespace las::tools {
namespace {

using Digests = std::vector<std::pair<std::string, std::string>>;

std::unique_ptr<log::EventLog> OpenLog(const std::string& dir) {
  auto log = log::EventLog::Open(dir);
  EXPECT_TRUE(log.ok()) << log.status().ToString();
  return std::move(*log);
}

// Round `round` of a plausible history: every kind once, a session, a few calls.
void AppendRound(log::EventLog& log, int round) {
  auto batch = testing::OneOfEveryKind(round);
  for (auto& draft : testing::SampleSession("session-" + std::to_string(round))) {
    batch.push_back(std::move(draft));
  }
  for (uint64_t i = 0; i < 6; ++i) {
    batch.push_back(testing::SampleToolCallRequested(round * 10 + i));
    if (i != 0) batch.push_back(testing::SampleToolCallCompleted(round * 10 + i));
  }
  ASSERT_TRUE(log.Append(std::move(batch)).ok());
}

Digests ReplayDigests(log::EventLog& log) {
  projections::ProjectionSet set;
  auto cursor = log.Read(1);
  EXPECT_TRUE(cursor.ok());
  auto outcome = projections::Replay(**cursor, {}, {}, set);
  EXPECT_TRUE(outcome.status.ok()) << outcome.status.ToString();
  return set.Digests();
}

// This test process's snapshot key file, made by its first snapshot (each test runs in a
// process of its own).
const std::string& KeyFile() {
  static const testing::TempDir dir;
  static const std::string file = dir.Sub("config/las/snapshot.key");
  return file;
}

log::SnapshotKey Key() {
  auto key = ReadSnapshotKey(KeyFile());
  EXPECT_TRUE(key.ok()) << key.status().ToString();
  return key.ok() ? *key : log::SnapshotKey{};
}

struct Warnings {
  std::vector<std::string> lines;
  LiveOptions Options(uint64_t every) {
    LiveOptions options;
    options.snapshot_every = every;
    options.snapshot_key_file = KeyFile();
    options.warn = [this](std::string_view line) { lines.emplace_back(line); };
    return options;
  }
};

// Serves `rounds` rounds with snapshots every `every` events, catching up after each
// round as the server does; returns the digests it ended with.
Digests Serve(const std::string& dir, int first_round, int rounds, uint64_t every,
              Warnings& warnings) {
  auto log = OpenLog(dir);
  LiveProjections live(*log, warnings.Options(every));
  EXPECT_TRUE(live.CatchUp().ok());
  for (int round = first_round; round < first_round + rounds; ++round) {
    AppendRound(*log, round);
    EXPECT_TRUE(live.CatchUp().ok());
  }
  return live.set().Digests();
}

TEST(LiveSnapshots, ASnapshotIsWrittenEveryNEvents) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  Warnings warnings;
  auto log = OpenLog(dir.Sub("log"));
  LiveProjections live(*log, warnings.Options(10));
  ASSERT_TRUE(live.CatchUp().ok());
  EXPECT_TRUE(log->SnapshotSequences()->empty());
  std::vector<uint64_t> taken;
  for (uint64_t n = 0; n < 35; ++n) {
    std::vector<log::EventDraft> one;
    one.push_back(testing::SampleToolCallRequested(n));
    ASSERT_TRUE(log->Append(std::move(one)).ok());
    ASSERT_TRUE(live.CatchUp().ok());
    if (taken.empty() || live.last_snapshot() != taken.back()) {
      if (live.last_snapshot() != 0) taken.push_back(live.last_snapshot());
    }
  }
  EXPECT_EQ(taken, (std::vector<uint64_t>{10, 20, 30}));
  // Each was written off the loop thread; once the last write is collected, the newest two
  // are kept and no write failed.
  live.WaitForSnapshot();
  EXPECT_FALSE(live.snapshot_in_flight());
  EXPECT_TRUE(warnings.lines.empty()) << warnings.lines.front();
  EXPECT_EQ(*log->SnapshotSequences(), (std::vector<uint64_t>{30, 20}));
}

// The writer thread computes the digests from a copy restored from the saved bytes; they
// must be the live state's digests at that sequence, or a restart would ignore the snapshot.
TEST(LiveSnapshots, TheWriterThreadRecordsTheLiveStatesDigests) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  Warnings warnings;
  auto log = OpenLog(dir.Sub("log"));
  LiveProjections live(*log, warnings.Options(1));
  AppendRound(*log, 0);
  AppendRound(*log, 1);
  ASSERT_TRUE(live.CatchUp().ok());
  const uint64_t head = log->head().sequence;
  ASSERT_EQ(live.last_snapshot(), head);
  const Digests live_digests = live.set().Digests();
  live.WaitForSnapshot();
  ASSERT_TRUE(warnings.lines.empty()) << warnings.lines.front();

  auto record = log->GetSnapshot(head);
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  auto snapshot = log::DecodeSnapshot(*record, Key());
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(snapshot->sequence, head);
  EXPECT_EQ(snapshot->event_hash, *log->EventHash(head));
  Digests recorded;
  for (const auto& projection : snapshot->projections) {
    recorded.emplace_back(projection.name, ToHex(projection.digest));
  }
  std::sort(recorded.begin(), recorded.end());
  EXPECT_EQ(recorded, live_digests);
}

// A snapshot falling due while the previous write still runs waits for it, so none is
// skipped: one snapshot per CatchUp() with snapshot_every 1, every one written.
TEST(LiveSnapshots, BackToBackSnapshotsAreAllWritten) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  Warnings warnings;
  auto log = OpenLog(dir.Sub("log"));
  LiveProjections live(*log, warnings.Options(1));
  std::vector<uint64_t> taken;
  for (int round = 0; round < 4; ++round) {
    AppendRound(*log, round);
    ASSERT_TRUE(live.CatchUp().ok());
    taken.push_back(live.last_snapshot());
    EXPECT_EQ(taken.back(), log->head().sequence);
  }
  live.WaitForSnapshot();
  EXPECT_TRUE(warnings.lines.empty()) << warnings.lines.front();
  EXPECT_EQ(*log->SnapshotSequences(), (std::vector<uint64_t>{taken[3], taken[2]}));
}

// With snapshot_after_own_size the next snapshot waits until the events since the last one
// carry as many bytes as its saved states: exactly at the first event that reaches them.
TEST(LiveSnapshots, ALargeStateWaitsForAsManyEventBytesAsItsSnapshot) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  Warnings warnings;
  auto log = OpenLog(dir.Sub("log"));
  LiveOptions options = warnings.Options(1);
  options.snapshot_after_own_size = true;
  LiveProjections live(*log, options);
  AppendRound(*log, 0);  // a state of every kind, so the first snapshot is not tiny
  ASSERT_TRUE(live.CatchUp().ok());
  const uint64_t first = live.last_snapshot();
  ASSERT_EQ(first, log->head().sequence);
  live.WaitForSnapshot();
  auto snapshot = log::DecodeSnapshot(*log->GetSnapshot(first), Key());
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  uint64_t saved_bytes = 0;
  for (const auto& projection : snapshot->projections) {
    saved_bytes += projection.state.size();
  }
  uint64_t event_bytes = 0;
  for (uint64_t n = 0; live.last_snapshot() == first; ++n) {
    ASSERT_LT(n, 10000u) << "no second snapshot";
    std::vector<log::EventDraft> one;
    one.push_back(testing::SampleToolCallRequested(1000 + n));
    ASSERT_TRUE(log->Append(std::move(one)).ok());
    auto cursor = log->Read(log->head().sequence);
    ASSERT_TRUE(cursor.ok() && (*cursor)->Next().ok());
    event_bytes += (*cursor)->current().envelope.size();
    ASSERT_TRUE(live.CatchUp().ok());
    if (live.last_snapshot() == first) {
      EXPECT_LT(event_bytes, saved_bytes) << "a snapshot was due and not taken";
    }
  }
  EXPECT_GE(event_bytes, saved_bytes);
  EXPECT_EQ(live.last_snapshot(), log->head().sequence);
  EXPECT_GT(live.last_snapshot(), first + 1);  // it did wait
  live.WaitForSnapshot();
  EXPECT_TRUE(warnings.lines.empty()) << warnings.lines.front();
}

// The size rule holds across a restart: a server restored from a snapshot waits for as
// many event bytes as the one that took it (probe E6); and an interval near 2^64 never
// wraps into "due" (probe E5).
TEST(LiveSnapshots, ARestartKeepsTheSizeRuleAndAHugeIntervalNeverWraps) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  Warnings warnings;
  auto log = OpenLog(dir.Sub("log"));
  uint64_t first = 0;
  {
    LiveOptions options = warnings.Options(1);
    options.snapshot_after_own_size = true;
    LiveProjections live(*log, options);
    AppendRound(*log, 0);
    ASSERT_TRUE(live.CatchUp().ok());
    first = live.last_snapshot();
    ASSERT_EQ(first, log->head().sequence);
    live.WaitForSnapshot();
  }
  auto one_more = [&](uint64_t n) {
    std::vector<log::EventDraft> one;
    one.push_back(testing::SampleToolCallRequested(2000 + n));
    ASSERT_TRUE(log->Append(std::move(one)).ok());
  };
  {
    LiveOptions options = warnings.Options(1);
    options.snapshot_after_own_size = true;
    LiveProjections restarted(*log, options);
    ASSERT_TRUE(restarted.CatchUp().ok());
    ASSERT_EQ(restarted.startup().snapshot_sequence, first);
    one_more(0);
    ASSERT_TRUE(restarted.CatchUp().ok());
    EXPECT_EQ(restarted.last_snapshot(), first) << "one small event after a restart took a snapshot";
  }
  {
    LiveProjections restarted(*log, warnings.Options(std::numeric_limits<uint64_t>::max()));
    ASSERT_TRUE(restarted.CatchUp().ok());
    ASSERT_EQ(restarted.startup().snapshot_sequence, first);
    one_more(1);
    ASSERT_TRUE(restarted.CatchUp().ok());
    EXPECT_EQ(restarted.last_snapshot(), first) << "last snapshot + interval wrapped past 2^64";
  }
  EXPECT_TRUE(warnings.lines.empty()) << warnings.lines.front();
}

TEST(LiveSnapshots, NoSnapshotsWhenDisabled) {
  testing::TempDir dir;
  Warnings warnings;
  Serve(dir.Sub("log"), 0, 4, /*every=*/0, warnings);
  auto log = OpenLog(dir.Sub("log"));
  EXPECT_TRUE(log->SnapshotSequences()->empty());
}

TEST(LiveSnapshots, RestartFromASnapshotEqualsTheStateBeforeAndReplay) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  Warnings warnings;
  const Digests before = Serve(dir.Sub("log"), 0, 5, /*every=*/100, warnings);
  ASSERT_TRUE(warnings.lines.empty()) << warnings.lines.front();

  auto log = OpenLog(dir.Sub("log"));
  const uint64_t head = log->head().sequence;
  auto sequences = log->SnapshotSequences();
  ASSERT_FALSE(sequences->empty());
  ASSERT_LT(sequences->front(), head);  // a tail to fold after the snapshot

  LiveProjections live(*log, warnings.Options(0));
  ASSERT_TRUE(live.CatchUp().ok());
  EXPECT_EQ(live.startup().snapshot_sequence, sequences->front());
  EXPECT_EQ(live.startup().folded, head - sequences->front());
  EXPECT_EQ(live.startup().ignored_snapshots, 0u);
  EXPECT_EQ(live.sequence(), head);
  EXPECT_TRUE(warnings.lines.empty());
  EXPECT_EQ(live.set().Digests(), before);
  EXPECT_EQ(ReplayDigests(*log), before);

  // And it keeps folding after the restart like any live set.
  AppendRound(*log, 9);
  ASSERT_TRUE(live.CatchUp().ok());
  EXPECT_EQ(live.set().Digests(), ReplayDigests(*log));
}

// Restarts `dir` and expects the snapshot to be ignored: one warning naming `why`, a fold
// from sequence 1, and the digests of a full replay.
void ExpectIgnoredOnRestart(const std::string& dir, const Digests& expected,
                            const std::string& why) {
  Warnings warnings;
  auto log = OpenLog(dir);
  LiveProjections live(*log, warnings.Options(0));
  ASSERT_TRUE(live.CatchUp().ok());
  EXPECT_EQ(live.startup().snapshot_sequence, 0u);
  EXPECT_EQ(live.startup().ignored_snapshots, 1u);
  EXPECT_EQ(live.startup().folded, log->head().sequence);
  ASSERT_EQ(warnings.lines.size(), 2u);
  EXPECT_NE(warnings.lines[0].find(why), std::string::npos) << warnings.lines[0];
  EXPECT_NE(warnings.lines[1].find("from sequence 1"), std::string::npos) << warnings.lines[1];
  EXPECT_EQ(live.set().Digests(), expected);
  EXPECT_EQ(ReplayDigests(*log), expected);
}

// A log with exactly one snapshot, `tail` events before its head.
Digests LogWithOneSnapshot(const std::string& dir, uint64_t* snapshot_at) {
  Warnings warnings;
  Digests digests = Serve(dir, 0, 3, /*every=*/1000000, warnings);  // none written yet
  auto log = OpenLog(dir);
  LiveProjections live(*log, warnings.Options(1));
  EXPECT_TRUE(live.CatchUp().ok());  // folds from 1 and snapshots at the head
  *snapshot_at = live.last_snapshot();
  live.WaitForSnapshot();  // written on the writer thread
  EXPECT_EQ(*log->SnapshotSequences(), std::vector<uint64_t>{*snapshot_at});
  AppendRound(*log, 7);  // a tail after the snapshot
  projections::ProjectionSet set;
  auto cursor = log->Read(1);
  (void)projections::Replay(**cursor, {}, {}, set);
  (void)digests;
  return set.Digests();
}

// Decodes the snapshot at `at` in the log in `dir`, applies `change`, and puts it back
// re-encoded and sealed with `seal` (default: the test's key; a valid record then, where
// only what `change` altered is wrong).
void RewriteSnapshot(const std::string& dir, uint64_t at,
                     const std::function<void(log::Snapshot&)>& change,
                     std::optional<log::SnapshotKey> seal = std::nullopt) {
  auto log = OpenLog(dir);
  auto snapshot = log::DecodeSnapshot(*log->GetSnapshot(at), Key());
  ASSERT_TRUE(snapshot.ok());
  change(*snapshot);
  ASSERT_TRUE(log->PutSnapshot(at, log::EncodeSnapshot(*snapshot, seal.value_or(Key()))).ok());
}

// Makes a log with one snapshot in `donor` and puts that snapshot record, at its sequence,
// into the log in `dir` after `fill` wrote that log; returns the snapshot's sequence in `at`
// and the full-replay digests of the log in `dir`.
Digests ForeignSnapshot(const std::string& donor, const std::string& dir,
                        const std::function<void(log::EventLog&)>& fill, uint64_t* at) {
  LogWithOneSnapshot(donor, at);
  std::string record;
  {
    auto a = OpenLog(donor);
    record = *a->GetSnapshot(*at);
  }
  auto b = OpenLog(dir);
  fill(*b);
  EXPECT_TRUE(b->PutSnapshot(*at, record).ok());
  return ReplayDigests(*b);
}

TEST(LiveSnapshots, CorruptedSnapshotBytesAreIgnoredWithAWarning) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  uint64_t at = 0;
  const Digests expected = LogWithOneSnapshot(dir.Sub("log"), &at);
  {
    auto log = OpenLog(dir.Sub("log"));
    std::string record = *log->GetSnapshot(at);
    record[record.size() - 40] ^= 0x10;  // inside the last projection's state
    ASSERT_TRUE(log->PutSnapshot(at, record).ok());
  }
  ExpectIgnoredOnRestart(dir.Sub("log"), expected, "seal mismatch");
}

// Stored snapshots that cannot even be listed (a damaged table of their family: RocksDB
// reports a checksum mismatch) are warned of and left alone, and the log is folded from 1,
// instead of the server refusing to start on a log that verifies (probe AY2). No snapshot
// is written into that family meanwhile.
TEST(LiveSnapshots, SnapshotsThatCannotBeListedAreLeftAloneAndTheLogFolded) {
  class UnlistableSnapshots final : public testing::ForwardingLog {
   public:
    using ForwardingLog::ForwardingLog;
    Result<std::vector<uint64_t>> SnapshotSequences() override {
      return Corruption("listing snapshots: Corruption: block checksum mismatch");
    }
    Status PutSnapshot(uint64_t sequence, std::string_view record) override {
      ++puts;
      return ForwardingLog::PutSnapshot(sequence, record);
    }
    int puts = 0;
  };
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  uint64_t at = 0;
  LogWithOneSnapshot(dir.Sub("log"), &at);
  for (const bool with_key : {true, false}) {
    UnlistableSnapshots log(OpenLog(dir.Sub("log")));
    const Digests expected = ReplayDigests(log);
    Warnings warnings;
    LiveOptions options = warnings.Options(/*every=*/1);
    if (!with_key) options.snapshot_key_file.clear();
    LiveProjections live(log, options);
    ASSERT_TRUE(live.CatchUp().ok()) << with_key;
    EXPECT_EQ(live.set().Digests(), expected) << with_key;
    EXPECT_EQ(live.startup().snapshot_sequence, 0u);
    AppendRound(log, 99);
    ASSERT_TRUE(live.CatchUp().ok());
    live.WaitForSnapshot();
    EXPECT_EQ(log.puts, 0) << "nothing written into the unreadable family";
    ASSERT_FALSE(warnings.lines.empty());
    EXPECT_NE(warnings.lines[0].find("the stored snapshots cannot be read"), std::string::npos)
        << warnings.lines[0];
  }
}

// A snapshot write that fails as damage says so once, with what to do, and no more are
// taken (probe IX5: a line per snapshot, 1,200 of them); one that fails otherwise is said
// once while later ones fail the same way.
TEST(LiveSnapshots, ASnapshotWriteThatKeepsFailingIsSaidOnce) {
  class FailingPuts final : public testing::ForwardingLog {
   public:
    FailingPuts(std::unique_ptr<log::EventLog> log, Status failure)
        : ForwardingLog(std::move(log)), failure_(std::move(failure)) {}
    Status PutSnapshot(uint64_t, std::string_view) override {
      ++puts;
      return failure_;
    }
    int puts = 0;

   private:
    Status failure_;
  };
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  for (const Status& failure : {Corruption("listing snapshots: Corruption: block checksum mismatch"),
                                IoError("No space left on device")}) {
    testing::TempDir dir;
    FailingPuts log(OpenLog(dir.Sub("log")), failure);
    Warnings warnings;
    LiveProjections live(log, warnings.Options(/*every=*/1));
    ASSERT_TRUE(live.CatchUp().ok());
    for (int round = 0; round < 5; ++round) {
      AppendRound(log, round);
      ASSERT_TRUE(live.CatchUp().ok());
      live.WaitForSnapshot();
    }
    std::vector<std::string> failed;
    for (const std::string& line : warnings.lines) {
      if (line.find("writing a snapshot at sequence") != std::string::npos) failed.push_back(line);
    }
    ASSERT_EQ(failed.size(), 1u) << failure.ToString() << ": " << ::testing::PrintToString(warnings.lines);
    if (failure.code() == Code::kCorruption) {
      EXPECT_EQ(log.puts, 1) << "no more snapshots after damage";
      EXPECT_NE(failed[0].find("restore the last copy that verifies"), std::string::npos) << failed[0];
      EXPECT_NE(failed[0].find("no more snapshots are taken until las restarts"), std::string::npos);
    } else {
      EXPECT_GT(log.puts, 1) << "an I/O failure may pass: snapshots are tried again";
      EXPECT_NE(failed[0].find("said once while later ones fail the same way"), std::string::npos);
    }
  }
}

TEST(LiveSnapshots, ASnapshotWithAWrongRecordedDigestIsIgnored) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  uint64_t at = 0;
  const Digests expected = LogWithOneSnapshot(dir.Sub("log"), &at);
  RewriteSnapshot(dir.Sub("log"), at, [](log::Snapshot& snapshot) {
    snapshot.projections.front().digest[31] ^= 0x01;  // a valid record with a wrong digest
  });
  ASSERT_FALSE(HasFailure());
  ExpectIgnoredOnRestart(dir.Sub("log"), expected, "restored digest differs");
}

TEST(LiveSnapshots, ASnapshotWhoseStateWasAlteredIsIgnored) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  uint64_t at = 0;
  const Digests expected = LogWithOneSnapshot(dir.Sub("log"), &at);
  RewriteSnapshot(dir.Sub("log"), at, [](log::Snapshot& snapshot) {
    // The calls projection's state, resealed: "requested" now claims one more call.
    for (auto& p : snapshot.projections) {
      if (p.name == "calls") p.state[0] = static_cast<char>(p.state[0] + 1);
    }
  });
  ASSERT_FALSE(HasFailure());
  ExpectIgnoredOnRestart(dir.Sub("log"), expected, "'calls'");
}

TEST(LiveSnapshots, ASnapshotFromAnotherLogIsIgnored) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  // Two logs of the same length with different events: the snapshot of one names an
  // event whose chain hash differs in the other.
  testing::TempDir dir;
  uint64_t at = 0;
  const Digests expected = ForeignSnapshot(
      dir.Sub("a"), dir.Sub("b"),
      [](log::EventLog& b) {
        for (int round = 10; round < 14; ++round) AppendRound(b, round);
      },
      &at);
  ASSERT_GT(OpenLog(dir.Sub("b"))->head().sequence, at);
  ASSERT_FALSE(HasFailure());
  ExpectIgnoredOnRestart(dir.Sub("b"), expected, "another chain hash");
}

TEST(LiveSnapshots, ASnapshotBeyondTheHeadIsIgnored) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  // The snapshot of a longer log put into a shorter one (e.g. a log restored from an older
  // backup beside a newer snapshots family).
  testing::TempDir dir;
  uint64_t at = 0;
  const Digests expected = ForeignSnapshot(
      dir.Sub("a"), dir.Sub("b"), [](log::EventLog& b) { AppendRound(b, 20); }, &at);
  ASSERT_LT(OpenLog(dir.Sub("b"))->head().sequence, at);
  ASSERT_FALSE(HasFailure());
  ExpectIgnoredOnRestart(dir.Sub("b"), expected, "beyond the log's head");
}

// The forgery a seal stops: a snapshot of this very log (right sequence, chain hash and
// digests) that claims another state, written by someone without the key.
TEST(LiveSnapshots, ASnapshotSealedWithAnotherKeyIsIgnored) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  uint64_t at = 0;
  const Digests expected = LogWithOneSnapshot(dir.Sub("log"), &at);
  log::SnapshotKey forger = Key();
  forger[0] ^= 0x01;
  RewriteSnapshot(dir.Sub("log"), at, [](log::Snapshot&) {}, forger);
  ASSERT_FALSE(HasFailure());
  ExpectIgnoredOnRestart(dir.Sub("log"), expected, "seal mismatch");
}

TEST(LiveSnapshots, TheFirstSnapshotCreatesAPrivateKeyFile) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  Warnings warnings;
  LiveOptions options = warnings.Options(1);
  options.snapshot_key_file = dir.Sub("config/las/snapshot.key");
  options.random_fill = [](uint8_t* bytes, size_t size) { std::fill(bytes, bytes + size, 7); };
  auto log = OpenLog(dir.Sub("log"));
  {
    LiveProjections live(*log, options);
    ASSERT_TRUE(live.CatchUp().ok());
    EXPECT_FALSE(std::filesystem::exists(options.snapshot_key_file));  // nothing folded yet
    AppendRound(*log, 0);
    ASSERT_TRUE(live.CatchUp().ok());
    live.WaitForSnapshot();
  }
  EXPECT_TRUE(warnings.lines.empty()) << warnings.lines.front();
  struct stat st{};
  ASSERT_EQ(::stat(options.snapshot_key_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(dir.Sub("config/las").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto key = ReadSnapshotKey(options.snapshot_key_file);
  ASSERT_TRUE(key.ok());
  log::SnapshotKey sevens;
  sevens.fill(7);
  EXPECT_EQ(*key, sevens);
  // A restart with that key restores the snapshot.
  LiveProjections again(*log, options);
  ASSERT_TRUE(again.CatchUp().ok());
  EXPECT_EQ(again.startup().snapshot_sequence, log->head().sequence);
}

TEST(LiveSnapshots, WithoutTheKeyStoredSnapshotsAreIgnoredWithAWarning) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  uint64_t at = 0;
  const Digests expected = LogWithOneSnapshot(dir.Sub("log"), &at);
  ASSERT_TRUE(std::filesystem::remove(KeyFile()));
  // Not "no usable snapshot key": a missing file is no fault, the next snapshot makes one
  // (probe AF3).
  ExpectIgnoredOnRestart(dir.Sub("log"), expected, "the snapshot key file does not exist");
}

TEST(LiveSnapshots, AKeyFileOpenToOthersDisablesSnapshots) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  uint64_t at = 0;
  const Digests expected = LogWithOneSnapshot(dir.Sub("log"), &at);
  ASSERT_EQ(::chmod(KeyFile().c_str(), 0644), 0);
  Warnings warnings;
  auto log = OpenLog(dir.Sub("log"));
  {
    LiveProjections live(*log, warnings.Options(1));
    ASSERT_TRUE(live.CatchUp().ok());
    EXPECT_EQ(live.startup().snapshot_sequence, 0u);
    EXPECT_EQ(live.set().Digests(), expected);
    AppendRound(*log, 8);
    ASSERT_TRUE(live.CatchUp().ok());  // a snapshot falls due, and is not taken
  }
  ASSERT_EQ(warnings.lines.size(), 3u);  // disabled; the snapshot ignored; folding from 1
  EXPECT_NE(warnings.lines[0].find("snapshots disabled"), std::string::npos) << warnings.lines[0];
  EXPECT_NE(warnings.lines[0].find(KeyFile()), std::string::npos) << warnings.lines[0];
  EXPECT_EQ(*log->SnapshotSequences(), std::vector<uint64_t>{at});
}

TEST(LiveSnapshots, AKeyFileOfTheWrongSizeIsCalledTheKeysFaultNotTheLogs) {
  testing::TempDir dir;
  const std::string key_file = dir.Sub("short.key");
  {
    std::FILE* file = std::fopen(key_file.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fputs("sixteen bytes...", file);
    std::fclose(file);
  }
  ASSERT_EQ(::chmod(key_file.c_str(), 0600), 0);
  Warnings warnings;
  auto log = OpenLog(dir.Sub("log"));
  LiveOptions options = warnings.Options(1);
  options.snapshot_key_file = key_file;
  LiveProjections live(*log, options);
  ASSERT_TRUE(live.CatchUp().ok());
  AppendRound(*log, 1);
  ASSERT_TRUE(live.CatchUp().ok());  // a snapshot falls due, and is not taken
  EXPECT_TRUE(log->SnapshotSequences()->empty());
  ASSERT_FALSE(warnings.lines.empty());
  const std::string& line = warnings.lines[0];
  EXPECT_NE(line.find("snapshots disabled: the snapshot key " + key_file + " is not exactly 32"),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find("corruption"), std::string::npos) << "read as a broken chain: " << line;
  EXPECT_NE(line.find("give the right --snapshot-key"), std::string::npos) << line;
}

TEST(LiveSnapshots, NoKeyFileMeansNoSnapshots) {
  testing::TempDir dir;
  Warnings warnings;
  LiveOptions options = warnings.Options(1);
  options.snapshot_key_file.clear();
  auto log = OpenLog(dir.Sub("log"));
  LiveProjections live(*log, options);
  AppendRound(*log, 0);
  ASSERT_TRUE(live.CatchUp().ok());
  live.WaitForSnapshot();
  EXPECT_EQ(live.last_snapshot(), 0u);
  EXPECT_TRUE(log->SnapshotSequences()->empty());
  EXPECT_TRUE(warnings.lines.empty());
}

}  // namespace
}  // namespace las::tools
