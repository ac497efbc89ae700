// Skarbiec's local rules: pinned tools at admission, the bounded taxonomy, TTL, use count
// and delegation depth at call time, exact result envelopes.
#include "trust/skarbiec_policy.h"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "tests/trust/trust_test_util.h"
#include "trust/digest.h"
#include "trust/tool_binding_check.h"

namespace las::trust {
namespace {

SurfaceBinding PinnedBinding() {
  SurfaceBinding surface;
  surface.name = "skarbiec";
  for (const PinnedTool& pinned : SkarbiecPinnedTools()) {
    ToolBinding tool;
    tool.name = std::string(pinned.name);
    tool.input_schema_sha256 = *CanonicalSha256(pinned.input_schema_json);
    tool.description_sha256 = *DescriptionDigest(std::string(pinned.description));
    surface.tools.push_back(tool);
  }
  return surface;
}

SkarbiecTaxonomy Taxonomy() {
  SkarbiecTaxonomy taxonomy;
  taxonomy.purposes = {"deploy", "read-logs"};
  taxonomy.resources = {"github:repo", "s3.bucket"};
  taxonomy.targets = {"las", "weles"};
  return taxonomy;
}

const char* kRequest =
    R"({"purpose":"deploy","resource":"github:repo","target":"las","ttl_seconds":60,)"
    R"("use_count":1,"delegation_depth":0})";

std::string RequestWith(const std::string& field, const std::string& value_json) {
  std::string base =
      R"({"purpose":"deploy","resource":"github:repo","target":"las","ttl_seconds":30,)"
      R"("use_count":1,"delegation_depth":0})";
  const std::string key = "\"" + field + "\":";
  const size_t at = base.find(key);
  const size_t end = base.find_first_of(",}", at + key.size());
  return base.substr(0, at + key.size()) + value_json + base.substr(end);
}

std::string Envelope(const std::string& inner_json) {
  std::string escaped;
  for (char c : inner_json) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return R"({"content":[{"type":"text","text":")" + escaped + R"("}]})";
}

// ---- admission ------------------------------------------------------------------------

TEST(SkarbiecPolicy, ThePinnedToolsAreAdmitted) {
  EXPECT_TRUE(CheckSkarbiecBinding(PinnedBinding()).ok());
  SurfaceBinding subset = PinnedBinding();
  subset.tools.resize(1);
  EXPECT_TRUE(CheckSkarbiecBinding(subset).ok()) << "a subset of the pinned tools is fine";
}

TEST(SkarbiecPolicy, AManifestThatAddsAToolFailsClosed) {
  SurfaceBinding surface = PinnedBinding();
  ToolBinding redeem = surface.tools[0];
  redeem.name = "redeem_capability";
  surface.tools.push_back(redeem);
  Verdict v = CheckSkarbiecBinding(surface);
  EXPECT_EQ(v.reason(), Reason::kPolicyToolNotAllowed);
  EXPECT_NE(v.detail().find("redeem_capability"), std::string::npos);
}

TEST(SkarbiecPolicy, ASignedSchemaOrDescriptionOtherThanThePinFailsClosed) {
  SurfaceBinding wider = PinnedBinding();
  wider.tools[1].input_schema_sha256 = *CanonicalSha256(R"({"type":"object"})");
  EXPECT_EQ(CheckSkarbiecBinding(wider).reason(), Reason::kPolicyPinMismatch);

  SurfaceBinding reworded = PinnedBinding();
  reworded.tools[2].description_sha256 = *DescriptionDigest(std::string("Anything goes."));
  EXPECT_EQ(CheckSkarbiecBinding(reworded).reason(), Reason::kPolicyPinMismatch);

  SurfaceBinding templated = PinnedBinding();
  templated.tools[0].credential_templates["key"] = "skarbiec.key";
  EXPECT_EQ(CheckSkarbiecBinding(templated).reason(), Reason::kPolicyPinMismatch);
}

// ---- arguments ------------------------------------------------------------------------

TEST(SkarbiecPolicy, AnInTaxonomyRequestWithTtl60PassesAndHealthNeedsNoTaxonomy) {
  const SkarbiecTaxonomy taxonomy = Taxonomy();
  EXPECT_TRUE(CheckSkarbiecArguments(kSkarbiecRequest, kRequest, &taxonomy).ok());
  EXPECT_TRUE(CheckSkarbiecArguments(kSkarbiecAvailable,
                                     R"({"purpose":"read-logs","resource":"s3.bucket","target":"weles"})",
                                     &taxonomy)
                  .ok());
  EXPECT_TRUE(CheckSkarbiecArguments(kSkarbiecHealth, "", nullptr).ok());
  EXPECT_TRUE(CheckSkarbiecArguments(kSkarbiecHealth, "{}", nullptr).ok());
  EXPECT_EQ(CheckSkarbiecArguments(kSkarbiecHealth, R"({"x":1})", nullptr).reason(),
            Reason::kArgumentsSchemaViolation);
}

TEST(SkarbiecPolicy, OutOfTaxonomyValuesAreRefused) {
  const SkarbiecTaxonomy taxonomy = Taxonomy();
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"purpose", R"("exfiltrate")"},
           {"resource", R"("github:other")"},
           {"target", R"("finance")"},
           {"purpose", R"("Deploy")"},                       // uppercase: outside the charset
           {"target", R"("las weles")"},                     // space
           {"resource", "\"" + std::string(65, 'a') + "\""},  // 65 bytes
           {"purpose", R"("")"},
           {"purpose", "7"},                                 // not a string
       }) {
    Verdict v = CheckSkarbiecArguments(kSkarbiecRequest, RequestWith(field, value), &taxonomy);
    EXPECT_EQ(v.reason(), Reason::kSkarbiecTaxonomy) << field << "=" << value;
  }
}

TEST(SkarbiecPolicy, Ttl61IsRefusedAsAreOtherTtls) {
  const SkarbiecTaxonomy taxonomy = Taxonomy();
  for (const char* ttl : {"61", "0", "-1", "60.5", "\"30\"", "3600"}) {
    EXPECT_EQ(CheckSkarbiecArguments(kSkarbiecRequest, RequestWith("ttl_seconds", ttl), &taxonomy)
                  .reason(),
              Reason::kSkarbiecTtl)
        << ttl;
  }
  EXPECT_TRUE(
      CheckSkarbiecArguments(kSkarbiecRequest, RequestWith("ttl_seconds", "1"), &taxonomy).ok());
}

TEST(SkarbiecPolicy, UseCount2IsRefused) {
  const SkarbiecTaxonomy taxonomy = Taxonomy();
  for (const char* uses : {"2", "0", "true"}) {
    EXPECT_EQ(CheckSkarbiecArguments(kSkarbiecRequest, RequestWith("use_count", uses), &taxonomy)
                  .reason(),
              Reason::kSkarbiecUseCount)
        << uses;
  }
}

TEST(SkarbiecPolicy, DelegationDepth1IsRefused) {
  const SkarbiecTaxonomy taxonomy = Taxonomy();
  for (const char* depth : {"1", "-1", "null"}) {
    EXPECT_EQ(CheckSkarbiecArguments(kSkarbiecRequest, RequestWith("delegation_depth", depth),
                                     &taxonomy)
                  .reason(),
              Reason::kSkarbiecDelegationDepth)
        << depth;
  }
}

TEST(SkarbiecPolicy, WithoutATaxonomyCapabilityCallsFailClosed) {
  EXPECT_EQ(CheckSkarbiecArguments(kSkarbiecRequest, kRequest, nullptr).reason(),
            Reason::kPolicyUnavailable);
  EXPECT_EQ(CheckSkarbiecArguments(kSkarbiecAvailable, "{}", nullptr).reason(),
            Reason::kPolicyUnavailable);
}

TEST(SkarbiecPolicy, MalformedOrUnexpectedArgumentsAreRefused) {
  const SkarbiecTaxonomy taxonomy = Taxonomy();
  EXPECT_EQ(CheckSkarbiecArguments(kSkarbiecRequest, "[1]", &taxonomy).reason(),
            Reason::kArgumentsInvalid);
  EXPECT_EQ(CheckSkarbiecArguments(kSkarbiecRequest, R"({"a":1,"a":2})", &taxonomy).reason(),
            Reason::kArgumentsInvalid);
  std::string extra = kRequest;
  extra.insert(1, R"("scope":"admin",)");
  EXPECT_EQ(CheckSkarbiecArguments(kSkarbiecRequest, extra, &taxonomy).reason(),
            Reason::kArgumentsSchemaViolation);
  EXPECT_EQ(CheckSkarbiecArguments("redeem", "{}", &taxonomy).reason(),
            Reason::kPolicyToolNotAllowed);
}

// ---- results --------------------------------------------------------------------------

TEST(SkarbiecPolicy, ExactEnvelopesPass) {
  EXPECT_TRUE(CheckSkarbiecResult(kSkarbiecHealth, Envelope(R"({"status":"ok"})")).ok());
  EXPECT_TRUE(CheckSkarbiecResult(kSkarbiecAvailable, Envelope(R"({"available":false})")).ok());
  EXPECT_TRUE(CheckSkarbiecResult(
                  kSkarbiecRequest,
                  Envelope(R"({"capability_id":"cap-0001","expires_in_seconds":60})"))
                  .ok());
}

// What Las relays for an accepted result is its own spelling of the same values: the
// child's spaces and escapes are gone (probe EJ1).
TEST(SkarbiecPolicy, AnAcceptedResultIsRelayedInLassOwnSpelling) {
  const std::string padded = std::string(R"({ "\u0063ontent" :[ {"text": "{ \"capability_id\" : \"cap-0001\",)") +
                             R"(\t \"expires_in_\u0073econds\":60 }" , "type":"text"}]   })" +
                             std::string(5000, ' ');
  std::string relayed = "untouched";
  ASSERT_TRUE(CheckSkarbiecResult(kSkarbiecRequest, padded, &relayed).ok()) << padded;
  EXPECT_EQ(relayed,
            R"({"content":[{"text":"{\"capability_id\":\"cap-0001\",\"expires_in_seconds\":60}","type":"text"}]})");
  std::string refused_relay = "untouched";
  EXPECT_FALSE(CheckSkarbiecResult(kSkarbiecHealth, Envelope(R"({"status":"great"})"), &refused_relay).ok());
  EXPECT_EQ(refused_relay, "untouched") << "a refused result sets nothing";
}

// An escaped NUL in the text ends nlohmann's reading of the inner JSON; what follows it
// must not ride through.
TEST(SkarbiecPolicy, AResultWithANulBeforeMoreTextIsRefused) {
  EXPECT_EQ(CheckSkarbiecResult(
                kSkarbiecHealth,
                R"({"content":[{"type":"text","text":"{\"status\":\"ok\"}\u0000{\"token\":\"SECRET\"}"}]})")
                .reason(),
            Reason::kSkarbiecResultEnvelope);
}

TEST(SkarbiecPolicy, AResultWithAnExtraFieldIsRefused) {
  EXPECT_EQ(CheckSkarbiecResult(kSkarbiecAvailable,
                                Envelope(R"({"available":true,"note":"extra"})"))
                .reason(),
            Reason::kSkarbiecResultEnvelope);
  EXPECT_EQ(CheckSkarbiecResult(kSkarbiecHealth,
                                R"({"content":[{"type":"text","text":"{\"status\":\"ok\"}"}],"x":1})")
                .reason(),
            Reason::kSkarbiecResultEnvelope);
  EXPECT_EQ(CheckSkarbiecResult(kSkarbiecHealth,
                                R"({"content":[{"type":"text","text":"{\"status\":\"ok\"}","x":1}]})")
                .reason(),
            Reason::kSkarbiecResultEnvelope);
}

TEST(SkarbiecPolicy, OtherShapesAreRefused) {
  for (const std::string& result : {
           Envelope(R"({"available":"yes"})"),
           Envelope(R"({"available":1})"),
           std::string(R"({"content":[]})"),
           std::string(R"({"content":[{"type":"image","text":"{}"}]})"),
           std::string(R"({"content":[{"type":"text","text":"available"}]})"),
           std::string(R"({"content":[{"type":"text","text":"{\"available\":true}"}],"isError":true})"),
           std::string("not json"),
       }) {
    EXPECT_EQ(CheckSkarbiecResult(kSkarbiecAvailable, result).reason(),
              Reason::kSkarbiecResultEnvelope)
        << result;
  }
  EXPECT_EQ(CheckSkarbiecResult(kSkarbiecHealth, Envelope(R"({"status":"great"})")).reason(),
            Reason::kSkarbiecResultEnvelope);
  EXPECT_EQ(CheckSkarbiecResult(kSkarbiecRequest,
                                Envelope(R"({"capability_id":"cap-0001","expires_in_seconds":61})"))
                .reason(),
            Reason::kSkarbiecResultEnvelope);
  EXPECT_EQ(CheckSkarbiecResult(kSkarbiecRequest,
                                Envelope(R"({"capability_id":"ghp_abc","expires_in_seconds":5})"))
                .reason(),
            Reason::kSkarbiecResultEnvelope)
      << "an id that is not opaque cap-*";
}

TEST(SkarbiecPolicy, SomethingThatLooksLikeARedeemedCredentialIsNamedSo) {
  EXPECT_EQ(CheckSkarbiecResult(kSkarbiecRequest,
                                Envelope(R"({"capability_id":"cap-0001","expires_in_seconds":5,)"
                                         R"("token":"s3cr3t"})"))
                .reason(),
            Reason::kSkarbiecCredentialInResult);
  EXPECT_EQ(CheckSkarbiecResult(kSkarbiecRequest,
                                Envelope(R"({"capability_id":"Bearer abc.def","expires_in_seconds":5})"))
                .reason(),
            Reason::kSkarbiecCredentialInResult);
  EXPECT_EQ(CheckSkarbiecResult(kSkarbiecHealth,
                                R"({"content":[{"type":"text","text":"eyJhbGciOi.eyJzdWIi.sig"}]})")
                .reason(),
            Reason::kSkarbiecCredentialInResult);
  const Verdict v = CheckSkarbiecResult(
      kSkarbiecRequest, Envelope(R"({"api_key":"the-secret-value"})"));
  EXPECT_EQ(v.reason(), Reason::kSkarbiecCredentialInResult);
  EXPECT_EQ(v.detail().find("the-secret-value"), std::string::npos) << "no value in details";
}

// ---- the taxonomy file ----------------------------------------------------------------

TEST(SkarbiecPolicy, TheTaxonomyFileIsStrictAndBounded) {
  auto ok = ParseSkarbiecTaxonomy(
      R"({"schema_version":1,"purposes":["deploy"],"resources":["github:repo"],"targets":["las"]})");
  ASSERT_TRUE(ok.ok()) << ok.verdict().ToString();
  EXPECT_EQ(ok->purposes.count("deploy"), 1u);
  for (const char* bad : {
           R"({"schema_version":2,"purposes":["a"],"resources":["b"],"targets":["c"]})",
           R"({"schema_version":1,"purposes":[],"resources":["b"],"targets":["c"]})",
           R"({"schema_version":1,"purposes":["A"],"resources":["b"],"targets":["c"]})",
           R"({"schema_version":1,"purposes":["a","a"],"resources":["b"],"targets":["c"]})",
           R"({"schema_version":1,"purposes":["a"],"resources":["b"],"targets":["c"],"more":1})",
           R"({"schema_version":1,"purposes":["a"],"resources":["b"]})",
           R"({"schema_version":1,"schema_version":1,"purposes":["a"],"resources":["b"],"targets":["c"]})",
       }) {
    EXPECT_EQ(ParseSkarbiecTaxonomy(bad).verdict().reason(), Reason::kPolicyInvalid) << bad;
  }
}

TEST(SkarbiecPolicy, TheTaxonomyFileMustBeTheOwnersOnly) {
  las::testing::TempDir dir;
  const std::string path = dir.Sub("skarbiec.json");
  const std::string text =
      R"({"schema_version":1,"purposes":["deploy"],"resources":["r"],"targets":["t"]})";
  testing::WriteFile(path, text, 0644);
  EXPECT_EQ(LoadSkarbiecTaxonomy(path).verdict().reason(), Reason::kFilePermissions);
  testing::WriteFile(path, text, 0600);
  EXPECT_TRUE(LoadSkarbiecTaxonomy(path).ok());
  EXPECT_EQ(LoadSkarbiecTaxonomy(dir.Sub("absent.json")).verdict().reason(),
            Reason::kFileMissing);
}

}  // namespace
}  // namespace las::trust

namespace las::trust {
namespace {

TEST(SpecialPolicyReasons, NamesAreStableAndRoundTrip) {
  EXPECT_EQ(ReasonName(Reason::kPolicyToolNotAllowed), "policy-tool-not-allowed");
  EXPECT_EQ(ReasonName(Reason::kSkarbiecTtl), "skarbiec-ttl");
  EXPECT_EQ(ReasonName(Reason::kFinanceNotProposalOnly), "finance-not-proposal-only");
  for (int i = static_cast<int>(Reason::kPolicyToolNotAllowed);
       i <= static_cast<int>(Reason::kFinanceNotProposalOnly); ++i) {
    const auto r = static_cast<Reason>(i);
    EXPECT_NE(ReasonName(r), "unknown-reason") << i;
    EXPECT_EQ(ReasonFromName(ReasonName(r)), r) << i;
  }
}

}  // namespace
}  // namespace las::trust
