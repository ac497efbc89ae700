// Projection digests: the streamed canonical JSON is byte-identical to the nlohmann-tree
// serialization it replaced (so digests did not change), the digest is the SHA-256 of
// CanonicalJson(), and digests are equal across folds, a restart and a follower.
#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/hex.h"
#include "log/event_builder.h"
#include "log/event_log.h"
#include "log/log_reader.h"
#include "projections/calls_projection.h"
#include "projections/projection_set.h"
#include "projections/releases_projection.h"
#include "projections/sessions_projection.h"
#include "tests/support/sample_events.h"
#include "tests/support/temp_dir.h"

namespace las::projections {
namespace {

// The calls projection's canonical JSON as an nlohmann tree would serialize it (the
// reference for the streamed writer; the summary replaced the per-call ledger in
// ProjectionSet version 2).
std::string ReferenceJson(const CallsProjection& p) {
  const auto& summary = p.summary();
  nlohmann::json open = nlohmann::json::object();
  for (const auto& [id, c] : summary.open) {
    open[id] = {{"surface", c.surface},
                {"tool", c.tool},
                {"agent_id", c.agent_id},
                {"session_id", c.session_id},
                {"requested_sequence", c.requested_sequence}};
  }
  nlohmann::json out = {{"open", std::move(open)},
                        {"requested", summary.requested},
                        {"completed", summary.completed},
                        {"denied", summary.denied},
                        {"ledger_hash", ToHex(summary.ledger_hash)}};
  return out.dump();
}

std::string ReferenceJson(const ReleasesProjection& p) {
  const auto& releases = p.releases();
  nlohmann::json keys = nlohmann::json::object();
  for (const auto& [id, k] : releases.keys) {
    keys[id] = {{"watermark", k.watermark},
                {"accepted", k.accepted},
                {"rejected", k.rejected},
                {"manifest_sha256", k.manifest_sha256},
                {"last_rejection", k.last_rejection}};
  }
  nlohmann::json surfaces = nlohmann::json::object();
  for (const auto& [name, v] : releases.surfaces) {
    surfaces[name] = {{"admitted", v.admitted},
                      {"release_sequence", v.release_sequence},
                      {"reason", v.reason},
                      {"sequence", v.sequence}};
  }
  return nlohmann::json{{"keys", std::move(keys)}, {"surfaces", std::move(surfaces)}}.dump();
}

std::string ReferenceJson(const SessionsProjection& p) {
  nlohmann::json open = nlohmann::json::object();
  for (const auto& [id, r] : p.sessions().open) {
    open[id] = {{"agent_id", r.agent_id},
                {"client_name", r.client_name},
                {"client_version", r.client_version},
                {"transport", r.transport},
                {"opened_sequence", r.opened_sequence},
                {"opened_micros", r.opened_micros}};
  }
  return nlohmann::json{{"closed", p.sessions().closed}, {"open", std::move(open)}}.dump();
}

std::string Sha256Hex(const std::string& text) {
  std::array<uint8_t, crypto_hash_sha256_BYTES> digest{};
  crypto_hash_sha256(digest.data(), reinterpret_cast<const unsigned char*>(text.data()),
                     text.size());
  return ToHex(digest);
}

// Every kind a few times, many calls (so the calls text spans several sink chunks), and
// call ids, agents and reasons that need escaping.
std::vector<log::EventDraft> Events() {
  std::vector<log::EventDraft> out;
  for (int i = 0; i < 3; ++i) {
    for (auto& draft : testing::OneOfEveryKind(i)) out.push_back(std::move(draft));
  }
  for (uint64_t n = 0; n < 6000; ++n) {
    out.push_back(testing::SampleToolCallRequested(n));
    if (n % 3 == 0) out.push_back(testing::SampleToolCallCompleted(n));  // 4000 stay open
  }
  const char* odd[] = {"quote\"back\\slash", "tab\tnew\nline", "ctl\x01\x1f", "é€𝄞", "z", ""};
  for (const char* id : odd) {
    log::EventBuilder b;
    auto payload = fb::CreateToolCallDeniedDirect(b.fbb(), id, "finance", "pay", "no\"grant\n");
    out.push_back(b.Finish(payload, std::string("agent\x02") + id, std::string("s\\") + id));
    // An open call with the same odd id, agent and session: its text needs escaping.
    log::EventBuilder r;
    auto requested = fb::CreateToolCallRequestedDirect(r.fbb(), id, "finance", "pay\"x");
    out.push_back(r.Finish(requested, std::string("agent\x02") + id, std::string("s\\") + id));
  }
  return out;
}

ProjectionSet FoldDrafts(const std::vector<log::EventDraft>& drafts) {
  ProjectionSet set;
  uint64_t sequence = 0;
  for (const auto& draft : drafts) {
    log::StoredEvent event;
    event.sequence = ++sequence;
    event.envelope.assign(draft.envelope.begin(), draft.envelope.end());
    set.Apply(event);
  }
  return set;
}

TEST(ProjectionDigest, CanonicalJsonIsByteIdenticalToThePreviousTreeSerialization) {
  const ProjectionSet set = FoldDrafts(Events());
  const auto* calls = dynamic_cast<const CallsProjection*>(set.Find("calls"));
  const auto* releases = dynamic_cast<const ReleasesProjection*>(set.Find("releases"));
  const auto* sessions = dynamic_cast<const SessionsProjection*>(set.Find("sessions"));
  ASSERT_NE(calls, nullptr);
  ASSERT_NE(releases, nullptr);
  ASSERT_NE(sessions, nullptr);
  ASSERT_GT(calls->summary().open.size(), 4000u);
  EXPECT_EQ(calls->CanonicalJson(), ReferenceJson(*calls));
  EXPECT_EQ(releases->CanonicalJson(), ReferenceJson(*releases));
  EXPECT_EQ(sessions->CanonicalJson(), ReferenceJson(*sessions));
  EXPECT_GT(calls->CanonicalJson().size(), 4 * CanonicalWriter::kChunkBytes);
}

TEST(ProjectionDigest, IsTheSha256OfTheCanonicalJson) {
  const ProjectionSet set = FoldDrafts(Events());
  const auto digests = set.Digests();
  ASSERT_EQ(digests.size(), set.all().size());
  for (const auto& [name, digest] : digests) {
    const Projection* p = set.Find(name);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(digest, Sha256Hex(p->CanonicalJson())) << name;
    EXPECT_EQ(digest, Digest(*p)) << name;
  }
}

TEST(ProjectionDigest, EmptyProjectionsHaveFixedText) {
  ProjectionSet set;
  EXPECT_EQ(set.Find("calls")->CanonicalJson(),
            R"({"completed":0,"denied":0,"ledger_hash":")" + std::string(64, '0') +
                R"(","open":{},"requested":0})");
  EXPECT_EQ(set.Find("releases")->CanonicalJson(), R"({"keys":{},"surfaces":{}})");
  EXPECT_EQ(set.Find("sessions")->CanonicalJson(), R"({"closed":0,"open":{}})");
}

TEST(ProjectionDigest, IsDeterministicAcrossFoldsAndDependsOnTheEvents) {
  const auto drafts = Events();
  EXPECT_EQ(FoldDrafts(drafts).Digests(), FoldDrafts(drafts).Digests());
  auto fewer = Events();
  fewer.pop_back();
  EXPECT_NE(FoldDrafts(fewer).Digests(), FoldDrafts(drafts).Digests());
}

ProjectionSet FoldCursor(log::EventCursor& cursor) {
  ProjectionSet set;
  while (true) {
    auto more = cursor.Next();
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) return set;
    set.Apply(cursor.current());
  }
}

TEST(ProjectionDigest, EqualAcrossRestartAndFollower) {
  testing::TempDir dir;
  const std::string path = dir.Sub("log");
  std::vector<std::pair<std::string, std::string>> live;
  {
    auto log = log::EventLog::Open(path);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    auto appended = (*log)->Append(Events());
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    auto cursor = (*log)->Read(1);
    ASSERT_TRUE(cursor.ok());
    live = FoldCursor(**cursor).Digests();
  }
  auto reopened = log::EventLog::Open(path);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto cursor = (*reopened)->Read(1);
  ASSERT_TRUE(cursor.ok());
  EXPECT_EQ(FoldCursor(**cursor).Digests(), live);

  auto reader = log::LogReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto follower = (*reader)->Read(1);
  ASSERT_TRUE(follower.ok());
  EXPECT_EQ(FoldCursor(**follower).Digests(), live);
}

}  // namespace
}  // namespace las::projections
