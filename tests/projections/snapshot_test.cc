// Snapshots: the record codec (log/snapshot.h) refuses every damaged record; a set saved
// and restored has the same digests as the fold it came from; WriteSnapshot and
// LoadNewestSnapshot store, select and reject snapshots against the log they belong to;
// FoldFromNewestSnapshot folds a follower's view from one to the same digests as a full fold.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "log/event_log.h"
#include "log/log_reader.h"
#include "log/snapshot.h"
#include "projections/projection_set.h"
#include "projections/replay.h"
#include "projections/snapshots.h"
#include "projections/state_codec.h"
#include "tests/log/raw_db.h"
#include "tests/support/projection_saves.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace las::projections {
namespace {

using Digests = std::vector<std::pair<std::string, std::string>>;

// The snapshot key these tests seal with, and another one (a forger's).
const log::SnapshotKey kKey = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                               17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
log::SnapshotKey OtherKey() {
  log::SnapshotKey other = kKey;
  other[31] ^= 0x01;
  return other;
}

// A log touching every projection: every kind of event, three sessions, some calls.
std::unique_ptr<log::EventLog> SampleLog(const std::string& dir, int rounds = 3) {
  auto log = log::EventLog::Open(dir);
  EXPECT_TRUE(log.ok()) << log.status().ToString();
  for (int round = 0; round < rounds; ++round) {
    auto batch = testing::OneOfEveryKind(round);
    for (auto& draft : testing::SampleSession("session-" + std::to_string(round))) {
      batch.push_back(std::move(draft));
    }
    for (uint64_t i = 0; i < 20; ++i) {
      batch.push_back(testing::SampleToolCallRequested(round * 100 + i));
      if (i % 3 != 0) batch.push_back(testing::SampleToolCallCompleted(round * 100 + i));
    }
    EXPECT_TRUE((*log)->Append(std::move(batch)).ok());
  }
  return std::move(*log);
}

void Append(log::EventLog& log, uint64_t first, uint64_t n) {
  std::vector<log::EventDraft> batch;
  for (uint64_t i = first; i < first + n; ++i) batch.push_back(testing::SampleToolCallRequested(i));
  ASSERT_TRUE(log.Append(std::move(batch)).ok());
}

ProjectionSet Fold(log::EventLog& log) {
  ProjectionSet set;
  auto cursor = log.Read(1);
  EXPECT_TRUE(cursor.ok());
  auto outcome = Replay(**cursor, {}, {}, set);
  EXPECT_TRUE(outcome.status.ok()) << outcome.status.ToString();
  return set;
}

log::Snapshot Decoded(log::EventLog& log, uint64_t sequence) {
  auto record = log.GetSnapshot(sequence);
  EXPECT_TRUE(record.ok());
  auto snapshot = log::DecodeSnapshot(*record, kKey);
  EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  return *snapshot;
}

// ---- the record codec ----

log::Snapshot SmallSnapshot() {
  log::Snapshot s;
  s.projection_set_version = 7;
  s.sequence = 0x0102030405060708;
  s.event_hash.fill(0xAB);
  s.projections.push_back({"alpha", {}, std::string("\x00\x01\xff state", 9)});
  s.projections.push_back({"beta", {}, ""});
  s.projections[0].digest.fill(0x11);
  s.projections[1].digest.fill(0x22);
  return s;
}

TEST(SnapshotRecord, RoundTrips) {
  const log::Snapshot in = SmallSnapshot();
  auto out = log::DecodeSnapshot(log::EncodeSnapshot(in, kKey), kKey);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->projection_set_version, 7u);
  EXPECT_EQ(out->sequence, in.sequence);
  EXPECT_EQ(out->event_hash, in.event_hash);
  ASSERT_EQ(out->projections.size(), 2u);
  EXPECT_EQ(out->projections[0].name, "alpha");
  EXPECT_EQ(out->projections[0].state, in.projections[0].state);
  EXPECT_EQ(out->projections[0].digest, in.projections[0].digest);
  EXPECT_EQ(out->projections[1].name, "beta");
  EXPECT_EQ(out->projections[1].digest, in.projections[1].digest);
}

TEST(SnapshotRecord, EveryFlippedByteIsRefused) {
  const std::string record = log::EncodeSnapshot(SmallSnapshot(), kKey);
  for (size_t i = 0; i < record.size(); ++i) {
    std::string damaged = record;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x40);
    auto decoded = log::DecodeSnapshot(damaged, kKey);
    ASSERT_FALSE(decoded.ok()) << "byte " << i;
    // A damaged version field reads as another version; everything else as corruption.
    EXPECT_TRUE(decoded.status().code() == Code::kCorruption ||
                decoded.status().code() == Code::kUnsupported)
        << decoded.status().ToString();
  }
}

TEST(SnapshotRecord, ARecordSealedWithAnotherKeyIsRefused) {
  const std::string forged = log::EncodeSnapshot(SmallSnapshot(), OtherKey());
  auto decoded = log::DecodeSnapshot(forged, kKey);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), Code::kCorruption);
  EXPECT_NE(decoded.status().message().find("seal mismatch"), std::string::npos);
  EXPECT_TRUE(log::DecodeSnapshot(forged, OtherKey()).ok());
}

TEST(SnapshotRecord, TruncatedAndExtendedRecordsAreRefused) {
  const std::string record = log::EncodeSnapshot(SmallSnapshot(), kKey);
  for (size_t size = 0; size < record.size(); ++size) {
    EXPECT_FALSE(log::DecodeSnapshot(record.substr(0, size), kKey).ok()) << "size " << size;
  }
  EXPECT_EQ(log::DecodeSnapshot(record + "x", kKey).status().code(), Code::kCorruption);
}

TEST(SnapshotRecord, AnotherFormatVersionIsUnsupported) {
  std::string record = log::EncodeSnapshot(SmallSnapshot(), kKey);
  record[11] = 3;  // the low byte of the big-endian format version after the 8-byte magic
  EXPECT_EQ(log::DecodeSnapshot(record, kKey).status().code(), Code::kUnsupported);
}

TEST(StateCodec, ReaderNeverReadsPastTheEnd) {
  std::string bytes;
  StateWriter w(&bytes);
  w.Uint(300);
  w.Int(-5);
  w.String("hello");
  w.Bool(true);
  StateReader in(bytes);
  uint64_t u = 0;
  int64_t i = 0;
  std::string s;
  bool b = false;
  EXPECT_TRUE(in.Uint(u) && in.Int(i) && in.String(s) && in.Bool(b));
  EXPECT_TRUE(in.done());
  EXPECT_EQ(u, 300u);
  EXPECT_EQ(i, -5);
  EXPECT_EQ(s, "hello");
  EXPECT_TRUE(b);
  StateReader shorter(std::string_view(bytes).substr(0, 5));  // cuts the string
  EXPECT_TRUE(shorter.Uint(u) && shorter.Int(i));
  EXPECT_FALSE(shorter.String(s));
  EXPECT_FALSE(shorter.ok());
}

// ---- the set ----

// Each projection on its own: Save, then Restore into a fresh one of the same kind (made
// by a fresh set), gives the same canonical JSON. Projections without Save are listed.
TEST(ProjectionSnapshot, EveryProjectionWithSaveRoundTrips) {
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  ProjectionSet folded = Fold(*log);
  ProjectionSet fresh;
  std::vector<std::string> round_tripped;
  for (const auto& projection : folded.all()) {
    std::string state;
    if (!projection->Save(state)) continue;
    auto* target = const_cast<Projection*>(fresh.Find(projection->name()));
    ASSERT_NE(target, nullptr);
    ASSERT_TRUE(target->Restore(state)) << projection->name();
    EXPECT_EQ(target->CanonicalJson(), projection->CanonicalJson()) << projection->name();
    EXPECT_NE(projection->CanonicalJson(), ProjectionSet().Find(projection->name())->CanonicalJson())
        << projection->name() << ": the sample log should leave a non-empty state";
    // Cut anywhere, the state is refused rather than misread.
    for (size_t cut : {size_t{0}, state.size() / 2, state.size() - 1}) {
      if (cut >= state.size()) continue;
      ProjectionSet other;
      auto* damaged = const_cast<Projection*>(other.Find(projection->name()));
      EXPECT_FALSE(damaged->Restore(std::string_view(state).substr(0, cut)))
          << projection->name() << " cut at " << cut;
    }
    round_tripped.emplace_back(projection->name());
  }
  for (const char* mine : {"calls", "releases", "sessions"}) {
    EXPECT_NE(std::find(round_tripped.begin(), round_tripped.end(), mine), round_tripped.end())
        << mine;
  }
}

// Without Save in every projection no snapshot is ever written (correct, but every start-up
// folds the whole log) and the tests below skip; this one says so as a failure.
TEST(ProjectionSetSnapshot, EveryProjectionImplementsSave) {
  std::vector<std::string> unsupported;
  EXPECT_TRUE(ProjectionSet().Save({}, &unsupported).has_value())
      << "projections without Save/Restore: " << ::testing::PrintToString(unsupported);
  EXPECT_TRUE(unsupported.empty());
}

TEST(ProjectionSetSnapshot, SaveAndRestoreGiveTheSameDigests) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  ProjectionSet folded = Fold(*log);
  std::vector<std::string> unsupported;
  auto snapshot = folded.Save(*log->EventHash(folded.sequence()), &unsupported);
  ASSERT_TRUE(snapshot.has_value()) << "projections without Save: " << ::testing::PrintToString(unsupported);
  EXPECT_EQ(snapshot->sequence, log->head().sequence);
  EXPECT_EQ(snapshot->event_hash, log->head().hash);
  EXPECT_EQ(snapshot->projections.size(), folded.all().size());

  // Through the record bytes, as a restart sees it.
  auto decoded = log::DecodeSnapshot(log::EncodeSnapshot(*snapshot, kKey), kKey);
  ASSERT_TRUE(decoded.ok());
  ProjectionSet restored;
  ASSERT_TRUE(restored.Restore(*decoded).ok());
  EXPECT_EQ(restored.sequence(), folded.sequence());
  EXPECT_EQ(restored.Digests(), folded.Digests());
  for (const auto& projection : folded.all()) {
    EXPECT_EQ(restored.Find(projection->name())->CanonicalJson(), projection->CanonicalJson())
        << projection->name();
  }
}

TEST(ProjectionSetSnapshot, RestoreRefusesAWrongDigestOrState) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  ProjectionSet folded = Fold(*log);
  auto snapshot = folded.Save(log->head().hash);
  ASSERT_TRUE(snapshot.has_value());
  for (size_t i = 0; i < snapshot->projections.size(); ++i) {
    auto wrong_digest = *snapshot;
    wrong_digest.projections[i].digest[0] ^= 1;
    ProjectionSet a;
    EXPECT_EQ(a.Restore(wrong_digest).code(), Code::kCorruption) << snapshot->projections[i].name;

    auto garbled = *snapshot;
    garbled.projections[i].state += "\x05trailing";
    ProjectionSet b;
    EXPECT_EQ(b.Restore(garbled).code(), Code::kCorruption) << snapshot->projections[i].name;
  }
  auto missing = *snapshot;
  missing.projections.pop_back();
  ProjectionSet c;
  EXPECT_EQ(c.Restore(missing).code(), Code::kCorruption);
  auto other_version = *snapshot;
  ++other_version.projection_set_version;
  ProjectionSet d;
  EXPECT_EQ(d.Restore(other_version).code(), Code::kUnsupported);
}

// ---- in the log ----

// `set` saved against `log`'s head hash (EXPECTs every projection saves).
log::Snapshot SavedAtHead(const ProjectionSet& set, log::EventLog& log) {
  auto snapshot = set.Save(log.head().hash);
  EXPECT_TRUE(snapshot.has_value());
  return snapshot.value_or(log::Snapshot{});
}

// Expects LoadNewestSnapshot to use no snapshot: it starts from nothing and ignores exactly
// one record, for a reason mentioning `why` ("" = any reason).
void ExpectTheOnlySnapshotIgnored(log::EventLog& log, const std::string& why) {
  auto loaded = LoadNewestSnapshot(log, kKey);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->snapshot_sequence, 0u);
  EXPECT_EQ(loaded->set.sequence(), 0u);
  ASSERT_EQ(loaded->ignored.size(), 1u);
  EXPECT_NE(loaded->ignored[0].find(why), std::string::npos) << loaded->ignored[0];
}

TEST(LogSnapshots, WriteKeepsTheNewestTwoAndLoadTakesTheNewest) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  for (int i = 0; i < 3; ++i) {
    Append(*log, 1000 + i * 10, 10);
    ProjectionSet set = Fold(*log);
    auto written = WriteSnapshot(*log, set, kKey);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
  }
  const uint64_t head = log->head().sequence;
  auto sequences = log->SnapshotSequences();
  ASSERT_TRUE(sequences.ok());
  EXPECT_EQ(*sequences, (std::vector<uint64_t>{head, head - 10}));

  Append(*log, 2000, 5);
  auto loaded = LoadNewestSnapshot(*log, kKey);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->snapshot_sequence, head);
  EXPECT_TRUE(loaded->ignored.empty());
  EXPECT_EQ(loaded->set.sequence(), head);
}

TEST(LogSnapshots, ADamagedNewestFallsBackToTheOlderOne) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  ProjectionSet first = Fold(*log);
  ASSERT_TRUE(WriteSnapshot(*log, first, kKey).ok());
  Append(*log, 500, 4);
  ProjectionSet second = Fold(*log);
  ASSERT_TRUE(WriteSnapshot(*log, second, kKey).ok());
  std::string record = *log->GetSnapshot(second.sequence());
  record[record.size() / 2] ^= 0x01;
  ASSERT_TRUE(log->PutSnapshot(second.sequence(), record).ok());

  auto loaded = LoadNewestSnapshot(*log, kKey);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->snapshot_sequence, first.sequence());
  ASSERT_EQ(loaded->ignored.size(), 1u);
  EXPECT_NE(loaded->ignored[0].find("seal mismatch"), std::string::npos) << loaded->ignored[0];
}

TEST(LogSnapshots, ASnapshotBeyondTheHeadIsIgnored) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  log::Snapshot snapshot = SavedAtHead(Fold(*log), *log);
  ASSERT_FALSE(HasFailure());
  snapshot.sequence = log->head().sequence + 5;
  ASSERT_TRUE(log->PutSnapshot(snapshot.sequence, log::EncodeSnapshot(snapshot, kKey)).ok());
  ExpectTheOnlySnapshotIgnored(*log, "beyond the log's head");
}

// Two records beyond the head (copied from a longer log) would count as the newest two and
// evict every snapshot written after them; writing deletes them instead.
TEST(LogSnapshots, WritingDeletesRecordsBeyondTheHead) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  log::Snapshot stray = SavedAtHead(Fold(*log), *log);
  ASSERT_FALSE(HasFailure());
  const uint64_t head = log->head().sequence;
  for (uint64_t beyond : {head + 1000, head + 1001}) {
    stray.sequence = beyond;
    ASSERT_TRUE(log->PutSnapshot(beyond, log::EncodeSnapshot(stray, kKey)).ok());
  }
  ASSERT_TRUE(WriteSnapshot(*log, Fold(*log), kKey).ok());
  auto sequences = log->SnapshotSequences();
  ASSERT_TRUE(sequences.ok());
  EXPECT_EQ(*sequences, (std::vector<uint64_t>{head}));
  auto loaded = LoadNewestSnapshot(*log, kKey);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->snapshot_sequence, head);
  EXPECT_TRUE(loaded->ignored.empty());
}

TEST(LogSnapshots, ASnapshotWhoseEventHashDiffersIsIgnored) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  ProjectionSet set = Fold(*log);
  ASSERT_TRUE(WriteSnapshot(*log, set, kKey).ok());
  log::Snapshot snapshot = Decoded(*log, set.sequence());
  snapshot.event_hash[5] ^= 0x80;  // re-encoded: the seal is valid, the hash is not
  ASSERT_TRUE(log->PutSnapshot(set.sequence(), log::EncodeSnapshot(snapshot, kKey)).ok());
  ExpectTheOnlySnapshotIgnored(*log, "another chain hash");
}

TEST(LogSnapshots, ASnapshotStoredUnderAnotherSequenceIsIgnored) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  ProjectionSet set = Fold(*log);
  const log::Snapshot snapshot = SavedAtHead(set, *log);
  ASSERT_FALSE(HasFailure());
  ASSERT_TRUE(log->PutSnapshot(set.sequence() - 1, log::EncodeSnapshot(snapshot, kKey)).ok());
  ExpectTheOnlySnapshotIgnored(*log, "");
}

// The attack a seal stops: whoever can write the log directory but not read the key puts
// in a well-formed snapshot of this very log (right sequence, chain hash and digests).
TEST(LogSnapshots, AWellFormedSnapshotSealedWithAnotherKeyIsIgnored) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  ASSERT_TRUE(WriteSnapshot(*log, Fold(*log), OtherKey()).ok());
  ExpectTheOnlySnapshotIgnored(*log, "seal mismatch");
}

TEST(LogSnapshots, NothingToSnapshotInAnEmptyLog) {
  testing::TempDir dir;
  auto log = log::EventLog::Open(dir.Sub("log"));
  ASSERT_TRUE(log.ok());
  ProjectionSet set;
  EXPECT_EQ(WriteSnapshot(**log, set, kKey).status().code(), Code::kInvalidArgument);
  auto loaded = LoadNewestSnapshot(**log, kKey);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->snapshot_sequence, 0u);
}

TEST(LogSnapshots, SnapshotsAreNotEventsAndSurviveReopening) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  log::Head head;
  {
    auto log = SampleLog(dir.Sub("log"));
    head = log->head();
    ASSERT_TRUE(WriteSnapshot(*log, Fold(*log), kKey).ok());
    EXPECT_EQ(log->head().sequence, head.sequence);
    EXPECT_EQ(log->head().hash, head.hash);
    EXPECT_TRUE(log->Verify().ok());
  }
  auto log = log::EventLog::Open(dir.Sub("log"));
  ASSERT_TRUE(log.ok());
  auto sequences = (*log)->SnapshotSequences();
  ASSERT_TRUE(sequences.ok());
  EXPECT_EQ(*sequences, std::vector<uint64_t>{head.sequence});
  EXPECT_EQ((*log)->EventHash(head.sequence).value(), head.hash);
  EXPECT_EQ((*log)->EventHash(head.sequence + 1).status().code(), Code::kNotFound);
  EXPECT_EQ((*log)->EventHash(0).status().code(), Code::kNotFound);
}

// Snapshots `log` at its head (sealed with kKey), then appends `more` events; returns the
// snapshot's sequence.
uint64_t SnapshotThenAppend(log::EventLog& log, uint64_t more) {
  EXPECT_TRUE(WriteSnapshot(log, Fold(log), kKey).ok());
  const uint64_t snapshot = log.head().sequence;
  Append(log, 3000, more);
  return snapshot;
}

TEST(LogSnapshots, AFollowerFoldsFromTheNewestSnapshotToTheDigestsOfAFullFold) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  const uint64_t snapshot = SnapshotThenAppend(*log, 7);
  const Digests full = Fold(*log).Digests();

  auto follower = log::LogReader::Open(dir.Sub("log"));
  ASSERT_TRUE(follower.ok()) << follower.status().ToString();
  const uint64_t head = (*follower)->head().value().sequence;
  ASSERT_EQ(head, snapshot + 7);
  struct Case {
    std::optional<log::SnapshotKey> key;
    uint64_t used;
  };
  for (const Case& c : {Case{kKey, snapshot}, Case{std::nullopt, 0}, Case{OtherKey(), 0}}) {
    ProjectionSet set;
    auto folded = FoldFromNewestSnapshot(**follower, head, c.key, set);
    ASSERT_TRUE(folded.ok()) << folded.status().ToString();
    EXPECT_EQ(*folded, c.used);
    EXPECT_EQ(set.sequence(), head);
    EXPECT_EQ(set.Digests(), full);
  }
}

TEST(LogSnapshots, AFoldFromASnapshotStillVerifiesTheEventsAfterIt) {
  SKIP_UNLESS_EVERY_PROJECTION_SAVES();
  testing::TempDir dir;
  auto log = SampleLog(dir.Sub("log"));
  const uint64_t snapshot = SnapshotThenAppend(*log, 3);
  const uint64_t head = log->head().sequence;
  log.reset();
  {
    testing::RawDb db(dir.Sub("log"));
    std::string value = db.Get("events", testing::SequenceKey(snapshot + 2));
    value[value.size() / 2] = static_cast<char>(value[value.size() / 2] ^ 0x10);
    db.Put("events", testing::SequenceKey(snapshot + 2), value);
  }
  auto follower = log::LogReader::Open(dir.Sub("log"));
  ASSERT_TRUE(follower.ok()) << follower.status().ToString();
  ProjectionSet set;
  auto folded = FoldFromNewestSnapshot(**follower, head, kKey, set);
  EXPECT_EQ(folded.status().code(), Code::kCorruption);
  EXPECT_NE(folded.status().message().find("event " + std::to_string(snapshot + 2)),
            std::string::npos)
      << folded.status().ToString();
}

}  // namespace
}  // namespace las::projections
