// GrantGuard over a real log and the server's live projections: the default agent's
// implicit root (and turning it off), any other agent denied at once until a grant or rule
// covers the exact definition, Las's own tools, and the las.admin tools needing root.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "log/event_log.h"
#include "tests/support/temp_dir.h"
#include "tools/definition_digest.h"
#include "tools/grant_admin.h"
#include "trust/digest.h"
#include "tools/grant_events.h"
#include "tools/grant_guard.h"
#include "tools/grant_policy.h"
#include "tools/live_projections.h"

namespace las::tools {
namespace {

const std::string kD1(64, '1');
const std::string kD2(64, '2');

CatalogTool Tool(std::string surface, std::string name, std::string digest,
                 bool builtin = false) {
  CatalogTool tool;
  tool.qualified_name = QualifiedName(surface, name);
  tool.surface = std::move(surface);
  tool.tool = std::move(name);
  tool.definition_sha256 = std::move(digest);
  tool.builtin = builtin;
  return tool;
}

SessionInfo Agent(std::string id) {
  SessionInfo session;
  session.agent_id = std::move(id);
  session.session_id = "s-" + session.agent_id;
  return session;
}

class GrantGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto log = log::EventLog::Open(tmp_.Sub("log"));
    ASSERT_TRUE(log.ok());
    log_ = std::move(*log);
    live_ = std::make_unique<LiveProjections>(*log_);
  }
  void Append(log::EventDraft draft) {
    std::vector<log::EventDraft> drafts;
    drafts.push_back(std::move(draft));
    ASSERT_TRUE(log_->Append(std::move(drafts)).ok());
  }
  // The refusal reason, or "" when allowed.
  std::string Check(GrantGuard& guard, const std::string& agent, const CatalogTool& tool) {
    auto refusal = guard.BeforeCall(Agent(agent), tool, "{}");
    if (!refusal) return "";
    EXPECT_EQ(refusal->message, kNotPermitted) << "generic text to the client";
    return refusal->reason;
  }

  testing::TempDir tmp_;
  std::unique_ptr<log::EventLog> log_;
  std::unique_ptr<LiveProjections> live_;
};

const CatalogTool kEcho = Tool("echo", "echo", kD1);
const CatalogTool kEchoChanged = Tool("echo", "echo", kD2);

TEST_F(GrantGuardTest, TheDefaultAgentHoldsAnImplicitRootAndAnyOtherStartsWithNothing) {
  GrantGuard guard(*live_, GrantPolicyFor({}));
  EXPECT_EQ(Check(guard, "default", kEcho), "");
  EXPECT_EQ(Check(guard, "default", kEchoChanged), "");
  EXPECT_EQ(Check(guard, "worker", kEcho), "no-grant");
  EXPECT_TRUE(guard.ConcealsEarlierRefusals()) << "an agent not permitted hears only that";
  GrantGuard named(*live_, GrantPolicyFor({{"LAS_AGENT_ID", "me"}}));
  EXPECT_EQ(Check(named, "me", kEcho), "");
  EXPECT_EQ(Check(named, "default", kEcho), "no-grant") << "only the configured default agent";
}

TEST_F(GrantGuardTest, TheImplicitRootCanBeTurnedOffAndAnUnknownValueFailsClosed) {
  for (const char* value : {"none", "off", "ROOT"}) {
    GrantGuard guard(*live_, GrantPolicyFor({{"LAS_DEFAULT_AGENT_GRANT", value}}));
    EXPECT_EQ(Check(guard, "default", kEcho), "no-grant") << value;
  }
  GrantGuard on(*live_, GrantPolicyFor({{"LAS_DEFAULT_AGENT_GRANT", "root"}}));
  EXPECT_EQ(Check(on, "default", kEcho), "");
}

TEST_F(GrantGuardTest, AGrantOrRuleAppendedLaterCountsFromTheNextCall) {
  GrantGuard guard(*live_, GrantPolicyFor({}));
  EXPECT_EQ(Check(guard, "worker", kEcho), "no-grant");
  Append(GrantIssuedEvent({}, "g1", "worker", "", false, {{"echo", "echo", kD1}}));
  EXPECT_EQ(Check(guard, "worker", kEcho), "");
  EXPECT_EQ(Check(guard, "worker", kEchoChanged), "no-grant") << "a new definition is not covered";
  Append(GrantRevokedEvent({}, "g1", "test"));
  EXPECT_EQ(Check(guard, "worker", kEcho), "no-grant");
  Append(PermissionRuleAddedEvent("r1", "worker", {"echo", "echo", kD2}));
  EXPECT_EQ(Check(guard, "worker", kEchoChanged), "");
  EXPECT_EQ(Check(guard, "worker", kEcho), "no-grant");
  Append(PermissionRuleRemovedEvent("r1"));
  EXPECT_EQ(Check(guard, "worker", kEchoChanged), "no-grant");
}

// Probe FT4, FU1, FU2: the default agent's root makes its grants narrow nothing; said once,
// when it holds a live grant — also one issued while the server runs (asked once per
// session of the agent), never for revoked grants only.
TEST_F(GrantGuardTest, TheDefaultAgentsRootOverItsLiveGrantsIsNotedOnce) {
  GrantGuard guard(*live_, GrantPolicyFor({{"LAS_AGENT_ID", "alice"}}));
  const auto stderr_of_call = [&](const std::string& session_id) {
    SessionInfo session = Agent("alice");
    session.session_id = session_id;
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(guard.BeforeCall(session, kEcho, "{}").has_value());
    return ::testing::internal::GetCapturedStderr();
  };
  EXPECT_EQ(stderr_of_call("s1"), "") << "no grants: nothing to say";
  Append(GrantIssuedEvent({}, "g1", "alice", "", false, {{"echo", "echo", kD1}}));
  Append(GrantRevokedEvent({}, "g1", "test"));
  EXPECT_EQ(stderr_of_call("s2"), "") << "a revoked grant narrows nothing either";
  Append(GrantIssuedEvent({}, "g2", "alice", "", false, {{"echo", "echo", kD1}}));
  EXPECT_EQ(stderr_of_call("s2"), "") << "asked once per session";
  EXPECT_NE(stderr_of_call("s3").find("agent alice is the default agent"), std::string::npos);
  EXPECT_EQ(stderr_of_call("s4"), "") << "once per agent";
}

TEST_F(GrantGuardTest, LasOwnToolsAreForEveryAgentAndAdminToolsNeedRoot) {
  GrantGuard guard(*live_, GrantPolicyFor({}));
  const CatalogTool onboarding = Tool("las", "onboarding", "", /*builtin=*/true);
  const CatalogTool grants = Tool("las", "grants", "", /*builtin=*/true);
  const CatalogTool admin = Tool("las", "disable_source", "", /*builtin=*/true);
  EXPECT_EQ(Check(guard, "worker", onboarding), "");
  EXPECT_EQ(Check(guard, "worker", grants), "");
  EXPECT_EQ(Check(guard, "worker", admin), "no-root-grant");
  EXPECT_EQ(Check(guard, "default", admin), "") << "the implicit root";
  Append(GrantIssuedEvent({}, "g1", "worker", "", false, {{"echo", "echo", kD1}}));
  EXPECT_EQ(Check(guard, "worker", admin), "no-root-grant") << "a narrow grant is not root";
  Append(GrantIssuedEvent({}, "g2", "worker", "", true, {}));
  EXPECT_EQ(Check(guard, "worker", admin), "");
}

// The operator channel passes the CLI's id through: one of another shape, or one the log has
// used (the reducer would ignore the second event after "done" was answered), is refused.
TEST_F(GrantGuardTest, AnOperatorGrantNeedsAFreshIdOfTheCliShape) {
  const std::string used = "grant-" + std::string(32, 'a');
  Append(GrantIssuedEvent({"", ""}, used, "bob", "", true, {}));
  ASSERT_TRUE(live_->CatchUp().ok());
  const GrantRequest request{"mallory", true, {}};
  EXPECT_EQ(PlanIssueGrant(live_->set(), request, used).status().code(), Code::kConflict);
  const std::vector<std::string> malformed = {"x", "grant-", "grant-" + std::string(32, 'A'),
                                              "grant-" + std::string(31, 'a'),
                                              "rule-" + std::string(32, 'a')};
  for (const std::string& bad : malformed) {
    EXPECT_EQ(PlanIssueGrant(live_->set(), request, bad).status().code(), Code::kInvalidArgument)
        << bad;
  }
  EXPECT_TRUE(PlanIssueGrant(live_->set(), request, "grant-" + std::string(32, 'b')).ok());
  EXPECT_EQ(PlanAddRule(live_->set(), "mallory", {"echo__echo", std::nullopt}, "r1").status().code(),
            Code::kInvalidArgument);
}

TEST(GrantPolicyTest, AgentIdsAreBoundedAndPrintable) {
  EXPECT_TRUE(IsValidAgentId("demo-agent"));
  EXPECT_FALSE(IsValidAgentId(""));
  EXPECT_FALSE(IsValidAgentId(std::string(257, 'a')));
  EXPECT_FALSE(IsValidAgentId("a\nb"));
  EXPECT_FALSE(IsValidAgentId(std::string("a\x7f", 2)));
  // Probe K7: "bob" and "bob " were two agents shown alike in `las grants`; " " showed blank.
  for (const char* look_alike : {"bob ", " bob", " ", "   ", "bob\u3000", "\u3000", "\u00a0bob", "bob\u2003",
                                 "bob\u2800", "\u2800"}) {
    EXPECT_FALSE(IsValidAgentId(look_alike)) << look_alike;
  }
  EXPECT_TRUE(IsValidAgentId("bob smith")) << "a space inside shows";
  EXPECT_TRUE(IsValidAgentId("\u00e9\u00e9")) << "non-ASCII at both ends";
}

// A tool's credential templates are part of its definition (probe DS1); a tool without
// any keeps the digest it had before they counted, so existing grants stay valid for it.
TEST(DefinitionDigestTest, CredentialTemplatesArePartOfTheDefinition) {
  const std::string schema(64, 'a');
  const std::string description(64, 'b');
  const std::string plain = DefinitionDigestFromHex(schema, description, "");
  EXPECT_EQ(plain, trust::Sha256Hex(trust::Sha256("las.tool-definition.v1:" + schema + ":" +
                                                  description)));
  EXPECT_EQ(CredentialTemplatesDigestHex({}), "");
  const std::vector<std::string> templates = {
      CredentialTemplatesDigestHex({{"token", "svc.key"}}),
      CredentialTemplatesDigestHex({{"token", "svc.other"}}),    // another secret
      CredentialTemplatesDigestHex({{"token2", "svc.key"}}),     // another argument
      CredentialTemplatesDigestHex({{"tok", "en5:svc.key"}}),    // no run-together
      CredentialTemplatesDigestHex({{"token", "svc.key"}, {"user", "svc.user"}}),
  };
  std::set<std::string> definitions = {plain};
  for (const std::string& digest : templates) {
    EXPECT_EQ(digest.size(), 64u);
    definitions.insert(DefinitionDigestFromHex(schema, description, digest));
  }
  EXPECT_EQ(definitions.size(), templates.size() + 1) << "every definition differs";
  EXPECT_EQ(CredentialTemplatesDigestHex({{"token", "svc.key"}}), templates[0]) << "stable";
}

}  // namespace
}  // namespace las::tools
