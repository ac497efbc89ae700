// Out of memory is no verdict on the input (base/out_of_memory.h, probe FR1): under `ulimit
// -v` a valid release was recorded rejected `manifest-invalid`. This binary replaces the
// global operator new so that one chosen allocation throws std::bad_alloc, as one does when a
// memory limit is spent — a real limit cannot pick the allocation, so each one is failed in
// turn — and checks that every run either succeeds or fails with kIo, never with a refusal
// of the input. Each run is a child process: a failure inside a library that cannot take
// one (Runs::crashed) ends it, and is counted apart.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "base/out_of_memory.h"
#include "trust/argument_schema.h"
#include "trust/canonical_json.h"
#include "trust/manifest.h"
#include "trust/reason.h"
#include "trust/release_verifier.h"
#include "tests/trust/trust_test_util.h"

namespace {

// The number of allocations until the one that fails (on this thread); -1: none fails.
thread_local long allocations_until_failure = -1;
thread_local bool failed_one = false;

}  // namespace

// As operator new does when malloc fails: the new_handler, which (installed by
// las::CountAllocationFailures) counts the failure and throws std::bad_alloc.
void* operator new(std::size_t size) {
  if (allocations_until_failure == 0) {
    allocations_until_failure = -1;
    failed_one = true;
    if (std::new_handler handler = std::get_new_handler()) handler();
    throw std::bad_alloc();
  }
  if (allocations_until_failure > 0) --allocations_until_failure;
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }

namespace las::trust {
namespace {

// What the runs of FailEachAllocationInTurn came to.
struct Runs {
  int failed_one = 0;  // runs in which an allocation failed and the result was judged right
  // Runs that ended the process in a library that cannot take a failed allocation:
  // nlohmann's json destructor allocates (a stack for its children) and, noexcept,
  // terminates (SIGABRT); RE2 compiling a pattern is not exception-safe, and crashes later
  // (SIGSEGV, after its walker's "Stack not empty" check fires). Counted, not judged.
  int crashed = 0;
  std::vector<std::string> wrong;  // what `judge` said of the others
};

// Runs `attempt` with its first, second, ... allocation failing, each in a child process
// (a failure inside a destructor ends it, above), until a run fails none. `judge` returns
// "" when a run's result is right for a failed allocation, else what is wrong with it.
template <typename Attempt, typename Judge>
Runs FailEachAllocationInTurn(Attempt attempt, Judge judge) {
  Runs runs;
  for (long nth = 0; nth < 100'000; ++nth) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) {
      ADD_FAILURE() << "pipe";
      return runs;
    }
    const pid_t child = ::fork();
    if (child == 0) {
      ::close(pipe_fds[0]);
      CountAllocationFailures();
      failed_one = false;
      allocations_until_failure = nth;
      std::string verdict;
      try {
        auto result = attempt();
        allocations_until_failure = -1;
        verdict = failed_one ? "=" + judge(result) : "done";
      } catch (const std::exception& thrown) {
        allocations_until_failure = -1;
        verdict = std::string("=threw ") + thrown.what();
      }
      (void)!::write(pipe_fds[1], verdict.data(), verdict.size());
      ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::string verdict;
    char buffer[512];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) verdict.append(buffer, n);
    ::close(pipe_fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGABRT || WTERMSIG(status) == SIGSEGV)) {
      ++runs.crashed;
      continue;
    }
    if (verdict == "done") break;
    if (verdict == "=") {
      ++runs.failed_one;
    } else {
      runs.wrong.push_back("allocation " + std::to_string(nth) + ": " +
                           (verdict.empty() ? "no verdict, wait status " + std::to_string(status)
                                            : verdict.substr(1)));
    }
  }
  return runs;
}

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
