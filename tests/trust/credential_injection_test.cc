#include "trust/credential_injection.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace las::trust {
namespace {

const std::string kSecret = "s3cr3t-VALUE-never-logged";

ToolBinding Tool() {
  ToolBinding t;
  t.name = "health";
  t.credential_templates = {{"api_key", "most.api-key"}};
  return t;
}

std::optional<std::string> Resolve(std::string_view name) {
  if (name == "most.api-key") return kSecret;
  return std::nullopt;
}

TEST(CredentialInjection, InjectsTemplatedArgument) {
  VerdictOr<std::string> out = InjectCredentials(R"({"q":"x"})", Tool(), Resolve);
  ASSERT_TRUE(out.ok()) << out.verdict().ToString();
  nlohmann::json j = nlohmann::json::parse(*out);
  EXPECT_EQ(j["q"], "x");
  EXPECT_EQ(j["api_key"], kSecret);
}

TEST(CredentialInjection, EmptyArgumentsMeanNoArguments) {
  VerdictOr<std::string> out = InjectCredentials("", Tool(), Resolve);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(nlohmann::json::parse(*out)["api_key"], kSecret);
}

TEST(CredentialInjection, ModelSuppliedValueIsCredentialOverride) {
  bool resolved = false;
  auto spy = [&](std::string_view n) { resolved = true; return Resolve(n); };
  VerdictOr<std::string> out = InjectCredentials(R"({"api_key":"attacker-key","q":"x"})", Tool(), spy);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.verdict().reason(), Reason::kCredentialOverride);
  EXPECT_FALSE(resolved) << "no secret is resolved for a refused call";
  EXPECT_EQ(out.verdict().detail().find("attacker-key"), std::string::npos);
  EXPECT_EQ(out.verdict().detail().find(kSecret), std::string::npos);
}

TEST(CredentialInjection, NullOrEmptyOverrideIsStillRefused) {
  EXPECT_EQ(InjectCredentials(R"({"api_key":null})", Tool(), Resolve).verdict().reason(),
            Reason::kCredentialOverride);
  EXPECT_EQ(InjectCredentials(R"({"api_key":""})", Tool(), Resolve).verdict().reason(),
            Reason::kCredentialOverride);
}

// A case-insensitive decoder (Go's encoding/json, .NET's web defaults) takes `API_KEY` for
// `api_key`, and the later of two for the field: no such key is sent beside the filled one,
// and the filled ones come last (probe BZ1).
TEST(CredentialInjection, AKeyInAnyLetterCaseIsCredentialOverride) {
  for (const char* key : {"API_KEY", "Api_Key", "api_\u212aey", "api_\u212Aey", "ap\u0130_key",
                          "ap\u0131_key", "api_key\\u0000", "api_key\\u0000x", " api_key",
                          "API_KEY\\t", "apiKey", "apikey", "api-key", "API-KEY", "Api__Key"}) {
    const std::string args = std::string(R"({"q":"x",")") + key + R"(":"attacker-key"})";
    VerdictOr<std::string> out = InjectCredentials(args, Tool(), Resolve);
    ASSERT_FALSE(out.ok()) << key;
    EXPECT_EQ(out.verdict().reason(), Reason::kCredentialOverride) << key;
    EXPECT_EQ(out.verdict().detail().find("attacker-key"), std::string::npos);
  }
  for (const char* key : {"api_key2", "api_keys", "key", "api", "api_kéy"}) {
    const std::string args = std::string(R"({")") + key + R"(":"x"})";
    VerdictOr<std::string> out = InjectCredentials(args, Tool(), Resolve);
    ASSERT_TRUE(out.ok()) << key << ": " << out.verdict().ToString();
    const std::string& text = *out;
    EXPECT_GT(text.find("\"api_key\""), text.find(key)) << "the filled member comes last";
  }
}

TEST(CredentialInjection, DuplicateKeysAreArgumentsInvalid) {
  // A lenient reader might see only the second "q" and miss the first api_key-like games.
  EXPECT_EQ(InjectCredentials(R"({"q":1,"q":2})", Tool(), Resolve).verdict().reason(),
            Reason::kArgumentsInvalid);
  EXPECT_EQ(InjectCredentials("[1]", Tool(), Resolve).verdict().reason(), Reason::kArgumentsInvalid);
  EXPECT_EQ(InjectCredentials("{", Tool(), Resolve).verdict().reason(), Reason::kArgumentsInvalid);
}

TEST(CredentialInjection, UnavailableCredentialIsRefusedWithoutValue) {
  ToolBinding t = Tool();
  t.credential_templates["token"] = "other.token";
  VerdictOr<std::string> out = InjectCredentials("{}", t, Resolve);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.verdict().reason(), Reason::kCredentialUnavailable);
  EXPECT_NE(out.verdict().detail().find("other.token"), std::string::npos);
  EXPECT_EQ(out.verdict().detail().find(kSecret), std::string::npos);
}

TEST(CredentialInjection, ToolWithoutTemplatesPassesArgumentsThrough) {
  ToolBinding t;
  t.name = "plain";
  VerdictOr<std::string> out = InjectCredentials(R"({"api_key":"model may set it here"})", t, Resolve);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(nlohmann::json::parse(*out)["api_key"], "model may set it here");
}

// The client's members reach the child exactly as written: a re-serialization turned 2^64
// into 1.8446744073709552e+19 and 1.0000000000000001 into 1.0, while the log kept the text.
TEST(CredentialInjection, TheClientsMembersPassByteForByte) {
  const std::string client =
      R"({ "big": 18446744073709551616, "pad":1.0000000000000001, "tiny": 1e-400, "z": -0, "s":"\u00e9" })";
  VerdictOr<std::string> out = InjectCredentials(client, Tool(), Resolve);
  ASSERT_TRUE(out.ok()) << out.verdict().ToString();
  EXPECT_EQ(*out, client.substr(0, client.size() - 1) + ",\"api_key\":\"" + kSecret + "\"}");
  EXPECT_EQ(nlohmann::json::parse(*out)["api_key"], kSecret);
  EXPECT_EQ(*InjectCredentials("  { }  ", Tool(), Resolve), "  { \"api_key\":\"" + kSecret + "\"}  ");
  ToolBinding two = Tool();
  two.credential_templates["token"] = "most.api-key";
  EXPECT_EQ(*InjectCredentials("", two, Resolve),
            "{\"api_key\":\"" + kSecret + "\",\"token\":\"" + kSecret + "\"}");
  auto invalid = [](std::string_view) -> std::optional<std::string> { return std::string("\xff\xfe"); };
  VerdictOr<std::string> refused = InjectCredentials("{}", Tool(), invalid);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.verdict().reason(), Reason::kCredentialUnavailable);
}

}  // namespace
}  // namespace las::trust
