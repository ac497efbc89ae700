// Finance: all-or-nothing configuration, exact binary digest, policy fingerprint and
// proposal-only mode, and the tool-name rule.
#include "trust/finance_policy.h"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "tests/trust/trust_test_util.h"
#include "trust/digest.h"

namespace las::trust {
namespace {

constexpr const char* kPolicy = R"({"limits":{"daily":"100.00"},"mode":"proposal-only"})";

class FinancePolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::WriteFile(dir_.Sub("policy.json"), kPolicy, 0600);
    testing::WriteFile(dir_.Sub("key"), "not a real key", 0600);
    code_sha256_ = Sha256("print('finance')\n");
    surface_.name = "finance";
    surface_.command = "/usr/bin/python3";
    surface_.code = CodeBinding{"/ws/finance.py", code_sha256_};
    for (const char* name : {"finance_propose", "finance_status", "finance_cancel"}) {
      ToolBinding tool;
      tool.name = name;
      surface_.tools.push_back(tool);
    }
  }

  Environment Complete() const {
    return {{"LAS_FINANCE_POLICY", dir_.Sub("policy.json")},
            {"LAS_FINANCE_POLICY_SHA256", Sha256Hex(*CanonicalSha256(kPolicy))},
            {"LAS_FINANCE_STATE", dir_.Sub("state")},
            {"LAS_FINANCE_KEY", dir_.Sub("key")},
            {"LAS_FINANCE_BINARY_SHA256", Sha256Hex(code_sha256_)}};
  }

  Verdict Admit(const Environment& env) const {
    return CheckFinanceBinding(ReadFinanceConfig(env), surface_);
  }

  las::testing::TempDir dir_;
  Sha256Digest code_sha256_{};
  SurfaceBinding surface_;
};

TEST_F(FinancePolicyTest, ACompleteConfigurationAdmitsFinance) {
  const FinanceActivation activation = ReadFinanceConfig(Complete());
  EXPECT_TRUE(activation.active());
  EXPECT_TRUE(Admit(Complete()).ok()) << Admit(Complete()).ToString();
  EXPECT_EQ(FinanceChildEnvironment(Complete()).size(), 5u);
}

TEST_F(FinancePolicyTest, WithoutAnyVariableFinanceIsAbsent) {
  const FinanceActivation activation = ReadFinanceConfig({{"HOME", "/home/x"}});
  EXPECT_FALSE(activation.any_set);
  EXPECT_FALSE(activation.active());
  EXPECT_TRUE(activation.missing.empty());
  EXPECT_EQ(Admit({}).reason(), Reason::kNotConfigured);
}

TEST_F(FinancePolicyTest, AConfigurationMissingOneVariableNamesIt) {
  for (std::string_view name : FinanceVariables()) {
    Environment env = Complete();
    env.erase(std::string(name));
    const FinanceActivation activation = ReadFinanceConfig(env);
    EXPECT_TRUE(activation.any_set);
    EXPECT_FALSE(activation.active());
    EXPECT_EQ(activation.verdict.reason(), Reason::kFinanceConfigIncomplete) << name;
    ASSERT_EQ(activation.missing.size(), 1u);
    EXPECT_EQ(activation.missing[0], name);
    EXPECT_NE(activation.verdict.detail().find(std::string(name)), std::string::npos);
    EXPECT_EQ(Admit(env).reason(), Reason::kFinanceConfigIncomplete);
  }
  Environment empty_value = Complete();
  empty_value["LAS_FINANCE_KEY"] = "";
  EXPECT_EQ(ReadFinanceConfig(empty_value).verdict.reason(), Reason::kFinanceConfigIncomplete);
}

TEST_F(FinancePolicyTest, MalformedValuesAreRefused) {
  Environment relative = Complete();
  relative["LAS_FINANCE_STATE"] = "state";
  EXPECT_EQ(ReadFinanceConfig(relative).verdict.reason(), Reason::kNotAbsolute);
  Environment upper = Complete();
  upper["LAS_FINANCE_BINARY_SHA256"] = std::string(64, 'A');
  EXPECT_EQ(ReadFinanceConfig(upper).verdict.reason(), Reason::kFinanceConfigInvalid);
}

TEST_F(FinancePolicyTest, AWrongBinaryDigestIsRefused) {
  Environment env = Complete();
  env["LAS_FINANCE_BINARY_SHA256"] = Sha256Hex(Sha256("another build"));
  EXPECT_EQ(Admit(env).reason(), Reason::kFinanceBinaryMismatch);
  // A native binary (no code file) is compared by its command digest.
  surface_.code.reset();
  surface_.binary_sha256 = Sha256("native");
  EXPECT_EQ(Admit(Complete()).reason(), Reason::kFinanceBinaryMismatch);
  env["LAS_FINANCE_BINARY_SHA256"] = Sha256Hex(Sha256("native"));
  EXPECT_TRUE(Admit(env).ok());
}

TEST_F(FinancePolicyTest, AWrongPolicyFingerprintIsRefused) {
  Environment env = Complete();
  env["LAS_FINANCE_POLICY_SHA256"] =
      Sha256Hex(*CanonicalSha256(R"({"limits":{"daily":"900.00"},"mode":"proposal-only"})"));
  EXPECT_EQ(Admit(env).reason(), Reason::kFinancePolicyFingerprint);
  // The raw-bytes digest of a reformatted file is not its fingerprint: canonical is.
  const std::string spaced = "{ \"mode\": \"proposal-only\", \"limits\": {\"daily\": \"100.00\"} }";
  testing::WriteFile(dir_.Sub("policy.json"), spaced, 0600);
  env = Complete();
  env["LAS_FINANCE_POLICY_SHA256"] = Sha256Hex(Sha256(spaced));
  EXPECT_EQ(Admit(env).reason(), Reason::kFinancePolicyFingerprint);
  // The canonical digest ignores whitespace and key order: a reformatted file still matches.
  testing::WriteFile(dir_.Sub("policy.json"),
                     "{\n  \"mode\": \"proposal-only\",\n  \"limits\": {\"daily\": \"100.00\"}\n}\n",
                     0600);
  EXPECT_TRUE(Admit(Complete()).ok());
}

TEST_F(FinancePolicyTest, APolicyThatIsNotProposalOnlyIsRefused) {
  for (const char* text : {R"({"mode":"execute"})", R"({"limits":{}})", R"(["proposal-only"])",
                           R"({"mode":["proposal-only"]})"}) {
    testing::WriteFile(dir_.Sub("policy.json"), text, 0600);
    Environment env = Complete();
    env["LAS_FINANCE_POLICY_SHA256"] = Sha256Hex(*CanonicalSha256(text));  // fingerprint matches
    EXPECT_EQ(Admit(env).reason(), Reason::kFinanceNotProposalOnly) << text;
  }
  testing::WriteFile(dir_.Sub("policy.json"), "not json", 0600);
  EXPECT_EQ(Admit(Complete()).reason(), Reason::kPolicyInvalid);
}

// The fingerprint reads numbers as doubles: a number a double does not hold would leave two
// policies with one fingerprint, so it is refused (probe Z5). Exact ones pass.
TEST_F(FinancePolicyTest, ANumberADoubleDoesNotHoldIsRefused) {
  for (const char* text : {R"({"account":98765432109876543,"mode":"proposal-only"})",
                           R"({"limit":100.000000000000000001,"mode":"proposal-only"})",
                           R"({"mode":"proposal-only","n":[1,100000000000000000000000]})"}) {
    testing::WriteFile(dir_.Sub("policy.json"), text, 0600);
    Environment env = Complete();
    env["LAS_FINANCE_POLICY_SHA256"] = Sha256Hex(*CanonicalSha256(text));
    const Verdict verdict = Admit(env);
    EXPECT_EQ(verdict.reason(), Reason::kPolicyInvalid) << text;
    EXPECT_NE(verdict.detail().find("write it as a string"), std::string::npos) << verdict.detail();
  }
  const char* exact = R"({"account":9007199254740992,"limit":100.5,"mode":"proposal-only"})";
  testing::WriteFile(dir_.Sub("policy.json"), exact, 0600);
  Environment env = Complete();
  env["LAS_FINANCE_POLICY_SHA256"] = Sha256Hex(*CanonicalSha256(exact));
  EXPECT_TRUE(Admit(env).ok()) << Admit(env).ToString();
}

TEST_F(FinancePolicyTest, PolicyAndKeyFilesMustBeTheOwnersOnly) {
  testing::WriteFile(dir_.Sub("policy.json"), kPolicy, 0644);
  EXPECT_EQ(Admit(Complete()).reason(), Reason::kFilePermissions);
  testing::WriteFile(dir_.Sub("policy.json"), kPolicy, 0600);
  testing::WriteFile(dir_.Sub("key"), "k", 0640);
  EXPECT_EQ(Admit(Complete()).reason(), Reason::kFilePermissions);
}

// Probe GU1: a key pasted where its path belongs, starting with "/" as base64 may, was
// repeated in the refusal (stderr, `las check`, the log).
TEST_F(FinancePolicyTest, AKeyPathThatNamesNoFileIsNotRepeated) {
  Environment env = Complete();
  const std::string pasted = "/c2tfbGl2ZV9TRUNSRVRrZXlWYWx1ZTEyMzQ1Njc4OTA=";
  env["LAS_FINANCE_KEY"] = pasted;
  const Verdict refused = Admit(env);
  EXPECT_EQ(refused.reason(), Reason::kFileMissing) << refused.ToString();
  EXPECT_EQ(refused.ToString().find("c2tfbGl2ZV9"), std::string::npos) << refused.ToString();
  EXPECT_NE(refused.detail().find("LAS_FINANCE_KEY names no file"), std::string::npos) << refused.ToString();
}

TEST_F(FinancePolicyTest, FinanceExecuteAndApprovePaymentAreRefusedEvenIfListed) {
  EXPECT_EQ(CheckFinanceToolName("finance_execute").reason(), Reason::kPolicyForbiddenVerb);
  EXPECT_EQ(CheckFinanceToolName("approve_payment").reason(), Reason::kPolicyForbiddenVerb);
  for (const char* name : {"finance_sign", "broadcast_tx", "add_beneficiary", "set_policy",
                           "ExecuteTransfer", "finance_send", "raise_limit"}) {
    EXPECT_EQ(CheckFinanceToolName(name).reason(), Reason::kPolicyForbiddenVerb) << name;
  }
  EXPECT_EQ(CheckFinanceToolName("finance_list").reason(), Reason::kPolicyToolNotAllowed);
  for (std::string_view name : FinanceAllowedTools()) {
    EXPECT_TRUE(CheckFinanceToolName(name).ok()) << name;
  }
  ToolBinding execute;
  execute.name = "finance_execute";
  surface_.tools.push_back(execute);
  EXPECT_EQ(Admit(Complete()).reason(), Reason::kPolicyForbiddenVerb) << "fails the surface closed";
}

}  // namespace
}  // namespace las::trust
