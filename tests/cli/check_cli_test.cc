// `las check` as an operator runs it: a real signed release of a copy of stand_in.py, the
// real `las`, real python children. Each failure is reported with its reason code, the
// other checks still run, and nothing moves the watermark.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "log/event_log.h"
#include "tests/cli/release_cli_fixture.h"
#include "projections/projection_set.h"
#include "projections/snapshots.h"
#include "tests/log/raw_db.h"
#include "tools/decision_events.h"
#include "tools/snapshot_key_file.h"
#include "tools/sealed_log.h"
#include "trust/manifest.h"
#include "trust/manifest_writer.h"
#include "trust/trust_store.h"

namespace las {
namespace {

using nlohmann::json;
using testing::ReleaseScratch;
using testing::Slurp;
using testing::Spit;

// The row of `check` for `surface` ("" = the release) in a --json report.
json Row(const json& report, const std::string& surface, const std::string& check) {
  for (const json& row : report["checks"]) {
    const bool same_surface = surface.empty() ? row["surface"].is_null() : row["surface"] == surface;
    if (same_surface && row["check"] == check) return row;
  }
  return json();
}

class CheckCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(r_.Keygen().exit_code, 0);
    ASSERT_EQ(r_.Draft("echo").exit_code, 0);
    auto signed_ = r_.Sign({"--sequence", "1"});
    ASSERT_EQ(signed_.exit_code, 0) << signed_.err;
    Spit(registry_, R"({"schema_version": 1, "surfaces": [{"name": "echo"}]})");
  }
  json CheckJson(std::vector<std::string> extra = {}, int expected_exit = 0) {
    extra.insert(extra.end(), {"--json", "--registry", registry_});
    auto result = r_.Check(extra);
    EXPECT_EQ(result.exit_code, expected_exit) << result.out << result.err;
    return json::parse(result.out);
  }

  ReleaseScratch r_;
  std::string registry_ = r_.Sub("registry.json");
};

TEST_F(CheckCliTest, PassesForACorrectlySignedSurfaceAndMovesNothing) {
  auto table = r_.Check();  // default registry: the other eleven are skipped, not failed
  ASSERT_EQ(table.exit_code, 0) << table.out << table.err;
  EXPECT_NE(table.out.find("SURFACE    CHECK           RESULT  REASON"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("echo       tools           ok      accepted         3 tools match the "
                           "release: content_stats, dashboard, echo"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("brama      release         skip    surface-unknown"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("las check: ok: 7 checks passed, 11 skipped"), std::string::npos) << table.out;
  EXPECT_FALSE(std::filesystem::exists(r_.watermark())) << "las check never writes the watermark";

  json report = CheckJson();
  EXPECT_EQ(report["ok"], true);
  for (const char* check : {"trust-store", "signature", "expiry", "watermark-file", "sequence"}) {
    EXPECT_EQ(Row(report, "", check)["result"], "ok") << check;
  }
  EXPECT_EQ(Row(report, "echo", "launch")["result"], "ok");
  EXPECT_EQ(Row(report, "echo", "tools")["result"], "ok");
}

TEST_F(CheckCliTest, JsonIsStable) {
  const std::vector<std::string> at = {"--at", "2026-01-01T00:00:00Z"};
  auto first = r_.Check({"--json", "--registry", registry_, "--at", "2026-01-01T00:00:00Z"});
  auto second = r_.Check({"--json", "--registry", registry_, "--at", "2026-01-01T00:00:00Z"});
  ASSERT_EQ(first.exit_code, 0) << first.out;
  EXPECT_EQ(first.out, second.out) << "same files, same instant: same bytes";
  json report = json::parse(first.out);
  std::vector<std::string> keys;
  for (auto it = report.begin(); it != report.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"checked_at", "checks", "counts", "ok", "schema_version"}));
  EXPECT_EQ(report["schema_version"], 1);
  EXPECT_EQ(report["checked_at"], "2026-01-01T00:00:00Z");
  auto empty_at = r_.Check({"--json", "--registry", registry_, "--at", ""});
  EXPECT_EQ(empty_at.exit_code, 2) << "an empty instant is no \"now\" (BW4): " << empty_at.out;
  EXPECT_EQ(report["counts"], (json{{"fail", 0}, {"ok", 7}, {"skip", 0}}));
  std::vector<std::string> order;
  for (const json& row : report["checks"]) {
    std::vector<std::string> fields;
    for (auto it = row.begin(); it != row.end(); ++it) fields.push_back(it.key());
    EXPECT_EQ(fields, (std::vector<std::string>{"check", "detail", "reason", "result", "surface"}));
    order.push_back((row["surface"].is_null() ? "" : row["surface"].get<std::string>()) + "/" +
                    row["check"].get<std::string>());
  }
  EXPECT_EQ(order, (std::vector<std::string>{"/trust-store", "/signature", "/expiry", "/watermark-file",
                                             "/sequence", "echo/launch", "echo/tools"}));
}

TEST_F(CheckCliTest, FailsWithToolsMismatchWhenTheChildAddsATool) {
  // The operator edits the script to add a tool and updates the code digest, but the
  // signed tool list still names only the old three: the live tools/list must not pass.
  std::string script = Slurp(r_.script());
  const std::string surface_start = "    \"echo\": {\n";
  ASSERT_NE(script.find(surface_start), std::string::npos);
  script.insert(script.find(surface_start) + surface_start.size(),
                "        \"shout\": (\"Shout the message.\", schema({\"message\": STRING}, "
                "[\"message\"]), lambda a: text(a[\"message\"].upper())),\n");
  Spit(r_.script(), script);
  ASSERT_EQ(r_.Draft("echo").exit_code, 0);  // new code digest and four tools
  Result<trust::Manifest> m = trust::ParseManifest(Slurp(r_.manifest()));
  ASSERT_TRUE(m.ok());
  auto& tools = m->surfaces[0].tools;
  ASSERT_EQ(tools.size(), 4u);
  tools.erase(std::remove_if(tools.begin(), tools.end(), [](const auto& t) { return t.name == "shout"; }),
              tools.end());
  Spit(r_.manifest(), trust::SerializeManifest(*m));
  ASSERT_EQ(r_.Sign({"--bump"}).exit_code, 0);

  json report = CheckJson({}, 1);
  EXPECT_EQ(report["ok"], false);
  EXPECT_EQ(Row(report, "echo", "launch")["result"], "ok");
  json tools_row = Row(report, "echo", "tools");
  EXPECT_EQ(tools_row["result"], "fail");
  EXPECT_EQ(tools_row["reason"], "tools-mismatch");
  EXPECT_NE(tools_row["detail"].get<std::string>().find("shout"), std::string::npos) << tools_row;
}

// Probe HA1: a signed name common clients refuse passes, with the note draft gave.
TEST_F(CheckCliTest, ASignedNameClientsRefuseIsNotedInTheToolsRow) {
  std::string script = Slurp(r_.script());
  const std::string surface_start = "    \"echo\": {\n";
  ASSERT_NE(script.find(surface_start), std::string::npos);
  script.insert(script.find(surface_start) + surface_start.size(),
                "        \"shout.loud\": (\"Shout the message.\", schema({\"message\": STRING}, "
                "[\"message\"]), lambda a: text(a[\"message\"].upper())),\n");
  Spit(r_.script(), script);
  ASSERT_EQ(r_.Draft("echo").exit_code, 0);
  ASSERT_EQ(r_.Sign({"--bump"}).exit_code, 0);

  json report = CheckJson();
  json tools_row = Row(report, "echo", "tools");
  EXPECT_EQ(tools_row["result"], "ok") << tools_row;
  EXPECT_NE(tools_row["detail"].get<std::string>().find(
                "4 tools match the release: content_stats, dashboard, echo, shout.loud; listed under names "
                "that clients holding tool names to ^[a-zA-Z0-9_-]{1,64}$ (Claude's, OpenAI's) refuse, with a "
                "\".\" or over 64 bytes: echo__shout.loud; "),
            std::string::npos)
      << tools_row;
}

TEST_F(CheckCliTest, FailsWithDigestMismatchWhenTheScriptChangesAfterSigning) {
  Spit(r_.script(), Slurp(r_.script()) + "# edited after signing\n");
  auto table = r_.Check({"--registry", registry_});
  EXPECT_EQ(table.exit_code, 1);
  EXPECT_NE(table.out.find("echo       launch          FAIL    digest-mismatch"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("echo       tools           skip    not-checked"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("las check: FAILED: 1 of 6 checks failed"), std::string::npos) << table.out;
}

TEST_F(CheckCliTest, ReportsExpiredAndStillChecksTheSurfaces) {
  json report = CheckJson({"--at", "2100-01-01T00:00:00Z"}, 1);
  json expiry = Row(report, "", "expiry");
  EXPECT_EQ(expiry["result"], "fail");
  EXPECT_EQ(expiry["reason"], "expired");
  EXPECT_EQ(Row(report, "echo", "tools")["result"], "ok") << "independent checks still run";
}

// A variable the surface declares (`draft --env`) and this environment lacks is named: the
// child runs without it (probe FN4: nothing said so). A note, not a failure.
TEST_F(CheckCliTest, ADeclaredVariableThatIsNotSetIsNamed) {
  const auto drafted = testing::Las({"release", "draft", "--surface", "echo", "--cwd", r_.workspace(),
                                     "--workspace", r_.workspace(), "--manifest", r_.manifest(),
                                     "--env", "LAS_TEST_OPTIONAL_SETTING", "--", "/usr/bin/python3",
                                     r_.script(), "echo"});
  ASSERT_EQ(drafted.exit_code, 0) << drafted.err;
  ASSERT_EQ(r_.Sign().exit_code, 0);
  const json row = Row(CheckJson(), "echo", "environment");
  EXPECT_EQ(row["result"], "ok") << row.dump();
  EXPECT_NE(row["detail"].get<std::string>().find(
                "not set here, so the child runs without them: LAS_TEST_OPTIONAL_SETTING"),
            std::string::npos)
      << row.dump();
  // A server says so too when it starts the surface; set, nothing is said.
  const std::string runtime_dir = r_.Sub("run");
  std::filesystem::create_directories(runtime_dir);
  std::filesystem::permissions(runtime_dir, std::filesystem::perms::owner_all);
  std::vector<std::string> env = {"LAS_RELEASE_MANIFEST=" + r_.manifest(),
                                  "LAS_RELEASE_SIGNATURE=" + r_.signature(),
                                  "LAS_TRUST_STORE=" + r_.trust_store(),
                                  "LAS_RELEASE_WATERMARK=" + r_.watermark(),
                                  "LAS_WORKSPACE=" + r_.workspace(),
                                  "XDG_CONFIG_HOME=" + r_.Sub("config"),
                                  "XDG_RUNTIME_DIR=" + runtime_dir};
  const auto unset = testing::Las({"list", "--log", r_.Sub("log")}, env);
  ASSERT_EQ(unset.exit_code, 0) << unset.err;
  EXPECT_NE(unset.out.find("echo__echo"), std::string::npos) << unset.out;
  EXPECT_NE(unset.err.find("surface echo starts without the variables its release declares but "
                           "this environment does not set: LAS_TEST_OPTIONAL_SETTING"),
            std::string::npos)
      << unset.err;
  env.push_back("LAS_TEST_OPTIONAL_SETTING=on");
  const auto set = testing::Las({"list", "--log", r_.Sub("log")}, env);
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(set.err.find("starts without"), std::string::npos) << set.err;
}

// Nothing configured: the release files' variables are named in the same run as the trust
// store's, not one fix at a time (probe FI5).
TEST_F(CheckCliTest, EveryUnsetReleaseVariableIsNamedInOneRun) {
  auto result = testing::Las({"check", "--json", "--registry", registry_});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  const json report = json::parse(result.out);
  EXPECT_EQ(Row(report, "", "trust-store")["reason"], "not-configured");
  const json signature = Row(report, "", "signature");
  EXPECT_EQ(signature["result"], "fail") << signature.dump();
  EXPECT_EQ(signature["reason"], "not-configured") << signature.dump();
  for (const char* variable : {"LAS_RELEASE_SIGNATURE", "LAS_RELEASE_MANIFEST"}) {
    EXPECT_NE(signature["detail"].get<std::string>().find(variable), std::string::npos)
        << variable << ": " << signature.dump();
  }
  EXPECT_EQ(Row(report, "", "watermark-file")["reason"], "not-configured");
}

TEST_F(CheckCliTest, ReportsInsecureFilesAndAWrongKeyAndRecoversAfterTheFix) {
  Spit(r_.watermark(), R"({"schema_version": 1, "keys": {}})");
  ::chmod(r_.watermark().c_str(), 0640);
  json report = CheckJson({}, 1);
  EXPECT_EQ(Row(report, "", "watermark-file")["reason"], "file-permissions");
  EXPECT_EQ(Row(report, "", "sequence")["result"], "skip");
  EXPECT_EQ(Row(report, "", "signature")["result"], "ok");

  ::chmod(r_.watermark().c_str(), 0600);  // the fix; re-running is the recovery path
  EXPECT_EQ(CheckJson()["ok"], true);

  // A release signed by a key the trust store does not select. Against the served store,
  // sign refuses it and writes nothing (probe FI1); without a store named, it signs.
  ASSERT_EQ(testing::Las({"release", "keygen", "--out-dir", r_.Sub("other")}).exit_code, 0);
  const std::vector<std::string> sign = {"release", "sign", "--manifest", r_.manifest(), "--secret-key",
                                         r_.Sub("other/release.key"), "--bump", "--out", r_.signature()};
  std::vector<std::string> against_store = sign;
  against_store.insert(against_store.end(), {"--trust-store", r_.trust_store()});
  const std::string signature_before = Slurp(r_.signature());
  const testing::CommandResult refused = testing::Las(against_store);
  EXPECT_EQ(refused.exit_code, 10) << refused.err;
  EXPECT_NE(refused.err.find("las serve would refuse this release (unknown-key) and admit no "
                             "surface; nothing was written"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(Slurp(r_.signature()), signature_before) << "the served release was replaced";
  EXPECT_EQ(CheckJson()["ok"], true);
  ASSERT_EQ(testing::Las(sign).exit_code, 0);
  json wrong = CheckJson({}, 1);
  EXPECT_EQ(Row(wrong, "", "signature")["reason"], "unknown-key");
  EXPECT_EQ(Row(wrong, "echo", "release")["result"], "skip") << "an unverified manifest is never acted on";
}

TEST_F(CheckCliTest, ReportsRollbackAndConflictAgainstTheWatermark) {
  const std::string key_id = trust::LoadTrustStore(r_.trust_store())->selected_key_id;
  auto watermark_at = [&](int sequence) {
    Spit(r_.watermark(), "{\"schema_version\": 1, \"keys\": {\"" + key_id + "\": {\"sequence\": " +
                             std::to_string(sequence) + ", \"manifest_sha256\": \"" +
                             std::string(64, '0') + "\"}}}");
    ::chmod(r_.watermark().c_str(), 0600);
  };
  watermark_at(5);
  EXPECT_EQ(Row(CheckJson({}, 1), "", "sequence")["reason"], "rollback");
  EXPECT_EQ(r_.Verify({"--watermark", r_.watermark()}).exit_code, 1);
  watermark_at(1);  // same sequence, other bytes
  EXPECT_EQ(Row(CheckJson({}, 1), "", "sequence")["reason"], "conflict");
  EXPECT_NE(Slurp(r_.watermark()).find(std::string(64, '0')), std::string::npos) << "untouched";
}

// A log keeps the watermark it recorded when the file is deleted or restored (probe CX3),
// and `las serve` on that log applies it: `las check --log` applies it too, in a row of
// its own; without --log the file alone decides, as before.
TEST_F(CheckCliTest, WithALogItAlsoChecksTheWatermarkThatLogRecorded) {
  const std::string key_id = trust::LoadTrustStore(r_.trust_store())->selected_key_id;
  const std::string log_dir = r_.Sub("log");
  {
    auto log = log::EventLog::Open(log_dir);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    ASSERT_TRUE((*log)->Append({tools::WatermarkAdvancedEvent(key_id, 0, 5, std::string(64, 'a'))}).ok());
  }
  EXPECT_TRUE(Row(CheckJson(), "", "log-watermark").is_null()) << "no row without --log";

  const json below = CheckJson({"--log", log_dir}, 1);
  EXPECT_EQ(Row(below, "", "sequence")["result"], "ok") << "the file holds no watermark";
  const json refused = Row(below, "", "log-watermark");
  EXPECT_EQ(refused["result"], "fail") << below.dump();
  EXPECT_EQ(refused["reason"], "rollback") << below.dump();
  EXPECT_NE(refused["detail"].get<std::string>().find("(as the log in " + log_dir + " recorded it)"),
            std::string::npos) << below.dump();

  ASSERT_EQ(r_.Sign({"--sequence", "6"}).exit_code, 0);
  const json above = Row(CheckJson({"--log", log_dir}), "", "log-watermark");
  EXPECT_EQ(above["result"], "ok") << above.dump();
  EXPECT_NE(above["detail"].get<std::string>().find("sequence 6 is above the watermark 5 of key " + key_id),
            std::string::npos) << above.dump();

  auto missing = r_.Check({"--log", r_.Sub("no-log"), "--registry", registry_});
  EXPECT_EQ(missing.exit_code, 4) << missing.err;
  EXPECT_TRUE(missing.out.empty()) << "no report: " << missing.out;
}

// A log restored from an older copy (its watermark file too) is refused by `las serve`,
// which keeps its head outside the log: the check says so rather than trust the watermark
// that copy recorded (probe DQ2).
TEST_F(CheckCliTest, ALogRolledBackBelowItsKeptHeadFailsTheLogWatermarkRow) {
  const std::string key_id = trust::LoadTrustStore(r_.trust_store())->selected_key_id;
  const std::string log_dir = r_.Sub("log");
  const std::string key_file = r_.Sub("keys") + "/snapshot.key";
  const auto append_watermark = [&](uint64_t sequence) {
    auto log = tools::OpenSealedLog(log_dir, key_file, {}, tools::SealWriter::kOperatorVerb);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    ASSERT_TRUE((*log)->Append({tools::WatermarkAdvancedEvent(key_id, sequence - 1, sequence,
                                                              std::string(64, 'a'))}).ok());
  };
  ASSERT_EQ(r_.Sign({"--sequence", "5"}).exit_code, 0);
  append_watermark(4);  // the release is above it
  const std::vector<std::string> flags = {"--log", log_dir, "--snapshot-key", key_file};
  const json judged = Row(CheckJson(flags), "", "log-watermark");
  EXPECT_EQ(judged["result"], "ok");
  EXPECT_EQ(judged["detail"].get<std::string>().find("but"), std::string::npos) << judged.dump();
  // A copy elsewhere: the key judged it, yet no head was kept for that path (probe FM3).
  std::filesystem::copy(log_dir, r_.Sub("copy"), std::filesystem::copy_options::recursive);
  const json copy = Row(CheckJson({"--log", r_.Sub("copy"), "--snapshot-key", key_file}), "",
                        "log-watermark");
  EXPECT_EQ(copy["result"], "ok") << copy.dump();
  EXPECT_NE(copy["detail"].get<std::string>().find(
                "judged with the snapshot key, but no head of it was kept for this key here"),
            std::string::npos)
      << copy.dump();
  std::filesystem::copy(log_dir, r_.Sub("backup"), std::filesystem::copy_options::recursive);
  append_watermark(6);  // the release is below it: what restoring the copy would hide
  std::filesystem::remove_all(log_dir);
  std::filesystem::rename(r_.Sub("backup"), log_dir);

  const json report = CheckJson(flags, 1);
  const json row = Row(report, "", "log-watermark");
  EXPECT_EQ(row["result"], "fail") << report.dump();
  EXPECT_EQ(row["reason"], "log-refused") << report.dump();
  EXPECT_NE(row["detail"].get<std::string>().find("rolled back"), std::string::npos) << row.dump();
  // Without this key nothing judges the copy: the watermark it recorded decides.
  const json other = Row(CheckJson({"--log", log_dir, "--snapshot-key", r_.Sub("other.key")}),
                         "", "log-watermark");
  EXPECT_EQ(other["result"], "ok") << other.dump();
  EXPECT_NE(other["detail"].get<std::string>().find("not judged against the head kept for it"),
            std::string::npos) << "says so (probe DR7): " << other.dump();
  EXPECT_EQ(r_.Check({"--snapshot-key", key_file, "--registry", registry_}).exit_code, 2)
      << "--snapshot-key judges only a --log";
}

// A log whose first event is not the kept one is another log only when its chain verifies:
// one with event 1 rewritten is refused, as its writers refuse it — judged after the fold,
// which a snapshot lets pass event 1 (probe DR1: the check then aborted in RocksDB).
TEST_F(CheckCliTest, ALogWithItsFirstEventRewrittenUnderASnapshotFailsTheLogWatermarkRow) {
  const std::string key_id = trust::LoadTrustStore(r_.trust_store())->selected_key_id;
  const std::string log_dir = r_.Sub("log");
  const std::string key_file = r_.Sub("keys") + "/snapshot.key";
  {
    auto log = tools::OpenSealedLog(log_dir, key_file, {}, tools::SealWriter::kOperatorVerb);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    ASSERT_TRUE((*log)->Append({tools::WatermarkAdvancedEvent(key_id, 0, 1, std::string(64, 'a')),
                                tools::WatermarkAdvancedEvent(key_id, 1, 2, std::string(64, 'b'))})
                    .ok());
    projections::ProjectionSet set;
    ASSERT_TRUE(projections::FoldFromNewestSnapshot(**log, (*log)->head().sequence, std::nullopt,
                                                    set).ok());
    auto key = tools::ReadSnapshotKey(key_file);
    ASSERT_TRUE(key.ok()) << key.status().ToString();
    auto written = projections::WriteSnapshot(**log, set, *key);
    if (!written.ok() && written.status().code() == Code::kUnsupported) {
      GTEST_SKIP() << "this build's projections do not all save: " << written.status().ToString();
    }
    ASSERT_TRUE(written.ok()) << written.status().ToString();
  }
  {
    testing::RawDb db(log_dir);
    std::string first = db.Get("events", testing::SequenceKey(1));
    first[0] = static_cast<char>(first[0] ^ 0x01);  // its chain hash
    db.Put("events", testing::SequenceKey(1), first);
  }
  ASSERT_EQ(r_.Sign({"--sequence", "3"}).exit_code, 0);
  const json report = CheckJson({"--log", log_dir, "--snapshot-key", key_file}, 1);
  const json row = Row(report, "", "log-watermark");
  EXPECT_EQ(row["reason"], "log-refused") << report.dump();
  EXPECT_NE(row["detail"].get<std::string>().find("fails verification"), std::string::npos)
      << row.dump();
}

// A release that binds nothing the registry configures serves nothing: the check fails,
// though each surface alone is only a skip (probe AB1).
TEST_F(CheckCliTest, AReleaseThatBindsNoConfiguredSurfaceFails) {
  Spit(registry_, R"({"schema_version": 1, "surfaces": [{"name": "mytool"}]})");
  json report = CheckJson({}, 1);
  EXPECT_EQ(Row(report, "echo", "release")["result"], "skip");
  EXPECT_EQ(Row(report, "", "surfaces")["result"], "fail");
  EXPECT_EQ(Row(report, "", "surfaces")["reason"], "no-surfaces");
  EXPECT_EQ(report.dump().find("\"registry\""), std::string::npos)
      << "a registry only its owner may write gets no row";
}

// Probe FZ4: only the registry's path was checked; a trust store, watermark or workspace
// others could change passed with no word, though whoever changes them chooses the trusted
// key, rolls the watermark back, or swaps the code a draft pins.
TEST_F(CheckCliTest, ATrustStoreWatermarkOrWorkspaceOthersMayChangeIsNoted) {
  const std::string state = r_.Sub("state");
  ASSERT_EQ(::chmod(state.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(r_.workspace().c_str(), 0777), 0);
  json report = CheckJson();
  const std::string store = Row(report, "", "trust-store")["detail"];
  EXPECT_NE(store.find("; the trust store " + r_.trust_store() +
                       " is reached through a directory others may write (" + state +
                       ", mode 0777): they can put another in its place and choose which "
                       "release key is trusted"),
            std::string::npos)
      << store;
  const std::string watermark = Row(report, "", "watermark-file")["detail"];
  EXPECT_NE(watermark.find("the release watermark " + r_.watermark() +
                           " is reached through a directory others may write"),
            std::string::npos)
      << "missing, it is judged where it would be made: " << watermark;
  const std::string launch = Row(report, "echo", "launch")["detail"];
  EXPECT_NE(launch.find("the workspace " + r_.workspace() + " may be written by others (mode 0777)"),
            std::string::npos)
      << launch;

  ASSERT_EQ(::chmod(state.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(r_.workspace().c_str(), 0755), 0);
  const std::string fixed = CheckJson().dump();
  EXPECT_EQ(fixed.find("others may write"), std::string::npos) << fixed;
  EXPECT_EQ(fixed.find("may be written by"), std::string::npos) << fixed;
}

// A registry file others may write decides which signed surfaces run: `las serve` notes it
// at every start, and `las check` said nothing of it.
TEST_F(CheckCliTest, ARegistryOthersMayWriteGetsTheNoteServePrints) {
  Spit(registry_, R"({"schema_version": 1, "surfaces": [{"name": "echo"}]})");
  ASSERT_EQ(::chmod(registry_.c_str(), 0666), 0);
  const json row = Row(CheckJson(), "", "registry");
  EXPECT_EQ(row["result"], "ok") << row.dump();
  EXPECT_NE(row["detail"].get<std::string>().find("may be written by others (mode 0666)"),
            std::string::npos)
      << row.dump();
}

// Probe FN7: with no --registry, "not configured in the registry" named a registry the user
// had never given; the built-in one is named as such, with how to configure others.
TEST_F(CheckCliTest, ASurfaceTheBuiltInRegistryLacksSaysItIsTheBuiltInOne) {
  auto result = r_.Check({"--json", "mytool"});
  ASSERT_EQ(result.exit_code, 1) << result.out << result.err;
  const std::string detail = Row(json::parse(result.out), "mytool", "release")["detail"];
  EXPECT_NE(detail.find("neither configured in the built-in registry (no --registry file given"),
            std::string::npos) << detail;
  const std::string given = Row(CheckJson({"mytool"}, 1), "mytool", "release")["detail"];
  EXPECT_NE(given.find("neither configured in the registry nor"), std::string::npos) << given;
}

TEST_F(CheckCliTest, NamedSurfacesMustBeConfiguredAndBound) {
  json report = CheckJson({"most"}, 1);
  EXPECT_EQ(Row(report, "most", "release")["reason"], "not-in-registry");
  auto bad = r_.Check({"--registry", r_.Sub("missing.json")});
  EXPECT_EQ(bad.exit_code, 4) << bad.err;
  // A directory where the file belongs is a bad argument, not a denial (probe X6).
  auto directory = r_.Check({"--registry", r_.workspace()});
  EXPECT_EQ(directory.exit_code, 2) << directory.err;
  EXPECT_NE(directory.err.find("not a regular file"), std::string::npos) << directory.err;
  // A name no surface can have is a usage error, not a failed row that reads as the
  // release's own (probes X3, Y4).
  for (const char* name : {"", " ", "Echo"}) {
    auto odd = r_.Check({name});
    EXPECT_EQ(odd.exit_code, 2) << odd.err;
    EXPECT_EQ(odd.err, "las check: invalid_argument: '" + std::string(name) +
                           "' is not a surface name ([a-z0-9_-], 1 to 64 characters)\n");
    EXPECT_EQ(odd.out, "");
  }
}

}  // namespace
}  // namespace las
