// Out of memory is no verdict on the input (base/out_of_memory.h, probe FR1): under `ulimit
// -v` a valid release was recorded rejected `manifest-invalid`. Each allocation is failed in
// turn (tests/support/allocation_failures.h), and every run must either succeed or fail with
// kIo, never with a refusal of the input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "trust/argument_schema.h"
#include "trust/canonical_json.h"
#include "trust/manifest.h"
#include "trust/reason.h"
#include "trust/release_verifier.h"
#include "tests/support/allocation_failures.h"
#include "tests/trust/trust_test_util.h"

namespace las::trust {
namespace {

using las::testing::FailEachAllocationInTurn;
using las::testing::Runs;

TEST(OutOfMemory, AManifestThatCannotBeParsedForLackOfMemoryIsNotCalledInvalid) {
  const std::string bytes = testing::ManifestText(7);
  ASSERT_TRUE(ParseManifest(bytes).ok());
  const Runs runs = FailEachAllocationInTurn(
      [&] { return ParseManifest(bytes); },
      [](const Result<Manifest>& parsed) -> std::string {
        if (parsed.ok()) return "";  // the allocation that failed was not needed after all
        if (parsed.status().code() != Code::kIo ||
            ManifestRefusalReason(parsed.status()) != Reason::kIoError ||
            parsed.status().message().find("out of memory") == std::string::npos) {
          return parsed.status().ToString();
        }
        return "";
      });
  EXPECT_TRUE(runs.wrong.empty()) << ::testing::PrintToString(runs.wrong);
  EXPECT_GT(runs.failed_one, 10) << "parsing a manifest allocates; " << runs.crashed << " crashed";
}

// What admission records: a release verified while memory ran out is no verdict on it.
TEST(OutOfMemory, AReleaseVerifiedWithoutMemoryIsRefusedAsAnIoErrorNotAsTheReleasesFault) {
  testing::ReleaseDir release;
  release.TrustOwnKey();
  release.Publish(testing::ManifestText(5));
  SecureFileOptions options;
  const ReleaseVerifier verifier(release.clock(), options);
  ASSERT_TRUE(verifier.Verify(release.paths()).ok());
  const Runs runs = FailEachAllocationInTurn(
      [&] { return verifier.Verify(release.paths()); },
      [](const VerdictOr<AcceptedRelease>& verified) -> std::string {
        if (verified.ok() || verified.verdict().reason() == Reason::kIoError) return "";
        return verified.verdict().ToString();
      });
  EXPECT_TRUE(runs.wrong.empty()) << ::testing::PrintToString(runs.wrong);
  EXPECT_GT(runs.failed_one, 10) << runs.crashed << " crashed";
}

TEST(OutOfMemory, CanonicalJsonThatRunsOutOfMemoryIsAnIoError) {
  const std::string text = R"({"b":[1,2.5,"x"],"a":{"c":null,"d":true}})";
  const Runs runs = FailEachAllocationInTurn(
      [&] { return CanonicalizeJson(text); },
      [](const Result<std::string>& canonical) -> std::string {
        if (canonical.ok() || canonical.status().code() == Code::kIo) return "";
        return canonical.status().ToString();
      });
  EXPECT_TRUE(runs.wrong.empty()) << ::testing::PrintToString(runs.wrong);
  EXPECT_GT(runs.failed_one, 5) << runs.crashed << " crashed";
}

TEST(OutOfMemory, ArgumentsCheckedWithoutMemoryAreRefusedButNotAsASchemaViolation) {
  const std::string schema_text =
      R"({"type":"object","properties":{"n":{"type":"integer","minimum":1},)"
      R"("tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"}}},"required":["n"]})";
  auto schema = CompileToolInputSchema(schema_text);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  const std::string arguments = R"({"n":3,"tags":["a","bc","def"]})";
  ASSERT_TRUE(ValidateArguments(*schema, arguments).ok());
  const Runs checks = FailEachAllocationInTurn(
      [&] { return ValidateArguments(*schema, arguments); },
      [](const Verdict& verdict) -> std::string {
        if (verdict.ok() || verdict.reason() == Reason::kIoError) return "";
        return std::string(verdict.reason_name()) + ": " + verdict.detail();
      });
  EXPECT_TRUE(checks.wrong.empty()) << ::testing::PrintToString(checks.wrong);
  EXPECT_GT(checks.failed_one, 5) << checks.crashed << " crashed";
  // Compiling a schema: an error of kIo, never a verdict on the schema.
  const Runs compiles = FailEachAllocationInTurn(
      [&] { return CompileToolInputSchema(schema_text); },
      [](const Result<ArgumentSchema>& compiled) -> std::string {
        if (compiled.ok() || compiled.status().code() == Code::kIo) return "";
        return compiled.status().ToString();
      });
  EXPECT_TRUE(compiles.wrong.empty()) << ::testing::PrintToString(compiles.wrong);
  EXPECT_GT(compiles.failed_one, 10) << compiles.crashed << " crashed";
}

}  // namespace
}  // namespace las::trust
