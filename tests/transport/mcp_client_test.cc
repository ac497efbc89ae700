#include "transport/mcp_client.h"

#include <signal.h>

#include <fcntl.h>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"
#include "transport/json_text.h"

namespace las::transport {
namespace {

const std::string kChild = std::string(LAS_TRANSPORT_CHILDREN_DIR) + "/mcp_child.py";

bool ProcessGone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

McpClientOptions ChildOptions(std::vector<std::string> extra_args = {}) {
  McpClientOptions o;
  o.spawn.argv = {"/usr/bin/python3", kChild};
  for (auto& a : extra_args) o.spawn.argv.push_back(std::move(a));
  o.spawn.env = {"PYTHONUNBUFFERED=1"};
  return o;
}

std::string EchoArgs(const std::string& text) { return "{\"text\":" + QuoteJsonString(text) + "}"; }

// The text of the first content item of a tools/call result.
std::string ResultText(const CallResult& r) {
  std::vector<JsonMember> top;
  if (ObjectMembers(r.result, &top) != JsonTextError::kNone) return "<bad result>";
  for (const auto& m : top) {
    if (m.key != "content") continue;
    std::vector<std::string_view> items;
    if (ArrayElements(m.raw, &items) != JsonTextError::kNone || items.empty()) break;
    std::vector<JsonMember> item;
    if (ObjectMembers(items[0], &item) != JsonTextError::kNone) break;
    for (const auto& f : item) {
      if (f.key == "text") return DecodeJsonString(f.raw).value_or("<bad text>");
    }
  }
  return "<no text>";
}

class McpClientTest : public ::testing::Test {
 protected:
  // Runs the loop until `done` holds; fails the test after `limit` (no test should get near).
  void RunUntil(const std::function<bool()>& done,
                std::chrono::seconds limit = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "condition not reached in time";
        return;
      }
      io_.restart();
      io_.run_one_for(std::chrono::milliseconds(100));
    }
  }

  CallResult Await(const std::function<void(CallCallback)>& start) {
    std::optional<CallResult> result;
    start([&](CallResult r) { result = std::move(r); });
    RunUntil([&] { return result.has_value(); });
    return result.value_or(CallResult{CallError::kNotReady, {}, 0, {}, {}, {}});
  }

  std::unique_ptr<McpClient> StartedClient(McpClientOptions options) {
    auto client = std::make_unique<McpClient>(io_, std::move(options));
    CallResult init = Await([&](CallCallback cb) { client->Start(std::move(cb)); });
    EXPECT_TRUE(init.ok()) << CallErrorName(init.error);
    EXPECT_EQ(client->state(), McpClient::State::kReady);
    return client;
  }

  CallResult Call(McpClient& c, const std::string& tool, const std::string& args,
                  CallOptions options = {}) {
    return Await([&](CallCallback cb) { c.CallTool(tool, args, options, std::move(cb)); });
  }

  // The child answers one more echo of `text`, then is shut down and reaped.
  void StillServesThenEnds(McpClient& c, const std::string& text) {
    EXPECT_TRUE(Call(c, "echo", EchoArgs(text)).ok());
    ShutdownAndCheckReaped(c);
  }

  void ShutdownAndCheckReaped(McpClient& c) {
    pid_t pid = c.pid();
    bool done = false;
    c.Shutdown([&] { done = true; });
    RunUntil([&] { return done; });
    EXPECT_EQ(c.state(), McpClient::State::kClosed);
    EXPECT_TRUE(c.wait_status().has_value());
    if (pid > 0) {
      EXPECT_TRUE(ProcessGone(pid));
    }
  }

  boost::asio::io_context io_;
};

TEST_F(McpClientTest, InitializeListAndCall) {
  auto client = StartedClient(ChildOptions());
  CallResult tools = Await([&](CallCallback cb) { client->ListTools(std::move(cb)); });
  ASSERT_TRUE(tools.ok());
  std::vector<std::string_view> list;
  ASSERT_EQ(ArrayElements(tools.result, &list), JsonTextError::kNone);
  EXPECT_EQ(list.size(), 23u);
  EXPECT_NE(tools.result.find("\"echo\""), std::string::npos);

  CallResult echo = Call(*client, "echo", EchoArgs("h\xc3\xa9llo \"q\""));
  ASSERT_TRUE(echo.ok());
  EXPECT_EQ(ResultText(echo), "h\xc3\xa9llo \"q\"");
  CallResult add = Call(*client, "add", R"({"a":2,"b":3})");
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(ResultText(add), "5");
  ShutdownAndCheckReaped(*client);
}

TEST_F(McpClientTest, ListFollowsPagination) {
  auto client = StartedClient(ChildOptions({"--page-size", "3"}));
  CallResult tools = Await([&](CallCallback cb) { client->ListTools(std::move(cb)); });
  ASSERT_TRUE(tools.ok());
  std::vector<std::string_view> list;
  ASSERT_EQ(ArrayElements(tools.result, &list), JsonTextError::kNone);
  EXPECT_EQ(list.size(), 23u);
  EXPECT_NE(tools.result.find("\"close_stdin\""), std::string::npos);  // the last page
  ShutdownAndCheckReaped(*client);
}

// MCP: a server that cannot speak the client's version answers another one, and the
// client then disconnects. No version at all is no better.
TEST_F(McpClientTest, AnInitializeInAnotherProtocolVersionFailsTheStart) {
  for (const char* version : {"1999-01-01", "2025-06-18", "none"}) {
    McpClient client(io_, ChildOptions({"--protocol-version", version}));
    CallResult init = Await([&](CallCallback cb) { client.Start(std::move(cb)); });
    EXPECT_EQ(init.error, CallError::kUnsupportedProtocol) << version << ": " << CallErrorName(init.error);
    EXPECT_EQ(client.state(), McpClient::State::kFailed) << version;
  }
}

// Pages of a few tools each stay under any page limit; all of them together must not.
TEST_F(McpClientTest, TheWholeListingIsBoundedInBytes) {
  McpClientOptions options = ChildOptions({"--page-size", "3"});
  options.max_list_bytes = 400;
  auto client = StartedClient(std::move(options));
  CallResult tools = Await([&](CallCallback cb) { client->ListTools(std::move(cb)); });
  EXPECT_EQ(tools.error, CallError::kResponseTooLarge) << CallErrorName(tools.error);
  EXPECT_EQ(tools.why, "the tools of every page together are over 400 bytes");
  ShutdownAndCheckReaped(*client);
}

// The cursors are kept, to tell a loop: they count too (probe CS2: 1,000 cursors of a line
// each held gigabytes). 8 pages of 3 tools fit 64 KiB; their 7 cursors of 100 KB do not.
TEST_F(McpClientTest, TheListingsBoundCountsItsCursors) {
  for (const char* padding : {"0", "100000"}) {
    McpClientOptions options = ChildOptions({"--page-size", "3", "--cursor-padding", padding});
    options.max_list_bytes = 64 * 1024;
    auto client = StartedClient(std::move(options));
    CallResult tools = Await([&](CallCallback cb) { client->ListTools(std::move(cb)); });
    if (std::string(padding) == "0") {
      EXPECT_TRUE(tools.ok()) << CallErrorName(tools.error);
    } else {
      EXPECT_EQ(tools.error, CallError::kResponseTooLarge) << CallErrorName(tools.error);
    }
    ShutdownAndCheckReaped(*client);
  }
}

// Six pages of 600 ms each: every page is within the 1.5 s start timeout (which initialize
// also gets: room for a loaded machine), the listing is not.
TEST_F(McpClientTest, TheStartTimeoutBoundsTheWholeListing) {
  McpClientOptions options = ChildOptions({"--page-size", "3", "--list-delay-ms", "600"});
  options.start_timeout = std::chrono::milliseconds(1500);
  auto client = StartedClient(std::move(options));
  CallResult tools = Await([&](CallCallback cb) { client->ListTools(std::move(cb)); });
  EXPECT_EQ(tools.error, CallError::kTimeout) << CallErrorName(tools.error);
  ShutdownAndCheckReaped(*client);
}

// A CR between tokens is JSON whitespace, but a reader that takes CR for a line break
// would split the answer Las passes on.
TEST_F(McpClientTest, CrBytesBetweenTokensAreDroppedAndEscapedOnesKept) {
  auto client = StartedClient(ChildOptions());
  CallResult r = Call(*client, "cr_result", "{}");
  ASSERT_TRUE(r.ok()) << CallErrorName(r.error);
  EXPECT_EQ(r.result.find('\r'), std::string::npos) << r.result;
  EXPECT_EQ(ResultText(r), "a\r");
  ShutdownAndCheckReaped(*client);
}

// The client's arguments go to the child as written, but on one line for every reader: a
// CR between tokens ends a line for Python's universal newlines (the MCP Python SDK's stdin)
// and U+2028 in a string for str.splitlines() — a message after it would run unseen by
// Las (probe JO1).
TEST_F(McpClientTest, ArgumentsReachTheChildOnOneLineForEveryReader) {
  auto client = StartedClient(ChildOptions());
  CallResult r = Call(*client, "raw_line", "{\"a\":\r{\"b\":1},\r\"c\":\"x\u2028y\xc2\x85z\u2014\"}");
  ASSERT_TRUE(r.ok()) << CallErrorName(r.error);
  const std::string line = ResultText(r);
  EXPECT_NE(line.find("\"arguments\":{\"a\": {\"b\":1}, \"c\":\"x\\u2028y\\u0085z\u2014\"}"), std::string::npos)
      << line;
  EXPECT_EQ(line.find('\r'), std::string::npos) << line;
  ShutdownAndCheckReaped(*client);
}

// 200 pings with 4 KiB ids while the child reads nothing: ~800 KiB of answers would wait in
// Las's memory for it.
TEST_F(McpClientTest, AChildsRequestsGoUnansweredWhileItDoesNotRead) {
  auto client = StartedClient(ChildOptions());
  CallResult r = Call(*client, "ping_flood", R"({"n":200,"id_kib":4,"ms":300})");
  ASSERT_TRUE(r.ok()) << CallErrorName(r.error);
  EXPECT_EQ(ResultText(r), "flooded");
  EXPECT_GT(client->stats().unanswered_requests, 100u);
  StillServesThenEnds(*client, "still");
}

// {"tools":[],"tools":[...]} is read one way here and another by a lenient parser (which
// keeps the last): refused as malformed.
TEST_F(McpClientTest, AListWithARepeatedToolsMemberIsMalformed) {
  auto client = StartedClient(ChildOptions({"--repeat-tools-key", "1"}));
  CallResult tools = Await([&](CallCallback cb) { client->ListTools(std::move(cb)); });
  EXPECT_EQ(tools.error, CallError::kMalformedResponse);
  EXPECT_EQ(tools.why, "page 1: the result names tools or nextCursor twice");
  ShutdownAndCheckReaped(*client);
}

// A child whose pages loop is told from one whose pages are many (probe HA3: both were a
// bare malformed_response).
TEST_F(McpClientTest, ALoopingOrEndlessListingSaysWhich) {
  auto looping = StartedClient(ChildOptions({"--page-size", "3", "--cursor-loop", "1"}));
  CallResult tools = Await([&](CallCallback cb) { looping->ListTools(std::move(cb)); });
  EXPECT_EQ(tools.error, CallError::kMalformedResponse);
  EXPECT_EQ(tools.why, "page 2: nextCursor repeats an earlier page's (a loop)");
  ShutdownAndCheckReaped(*looping);

  McpClientOptions options = ChildOptions({"--page-size", "3"});
  options.max_list_pages = 2;
  auto endless = StartedClient(std::move(options));
  tools = Await([&](CallCallback cb) { endless->ListTools(std::move(cb)); });
  EXPECT_EQ(tools.error, CallError::kMalformedResponse);
  EXPECT_EQ(tools.why, "more than 2 pages");
  ShutdownAndCheckReaped(*endless);
}

TEST_F(McpClientTest, ManyCallsInFlightMatchedById) {
  auto client = StartedClient(ChildOptions());
  constexpr int kCalls = 24;
  std::vector<std::optional<CallResult>> results(kCalls);
  std::vector<int> order;
  for (int i = 0; i < kCalls; ++i) {
    // Later calls finish first.
    std::string args = "{\"ms\":" + std::to_string((kCalls - i) * 15) + ",\"text\":\"t" +
                       std::to_string(i) + "\"}";
    client->CallTool("slow", args, {}, [&, i](CallResult r) {
      results[i] = std::move(r);
      order.push_back(i);
    });
  }
  EXPECT_EQ(client->pending_calls(), static_cast<size_t>(kCalls));
  RunUntil([&] { return static_cast<int>(order.size()) == kCalls; });
  for (int i = 0; i < kCalls; ++i) {
    ASSERT_TRUE(results[i] && results[i]->ok());
    EXPECT_EQ(ResultText(*results[i]), "t" + std::to_string(i));
  }
  EXPECT_NE(order.front(), 0);  // completion order is not request order
  EXPECT_EQ(client->pending_calls(), 0u);
  ShutdownAndCheckReaped(*client);
}

TEST_F(McpClientTest, ChildExitsAtStart) {
  McpClient client(io_, ChildOptions({"--exit-at-start", "3"}));
  CallResult init = Await([&](CallCallback cb) { client.Start(std::move(cb)); });
  EXPECT_EQ(init.error, CallError::kChildExited);
  EXPECT_EQ(client.state(), McpClient::State::kFailed);
  CallResult call = Call(client, "echo", "{}");
  EXPECT_EQ(call.error, CallError::kNotReady);
  ShutdownAndCheckReaped(client);
  ASSERT_TRUE(client.wait_status().has_value());
  EXPECT_TRUE(WIFEXITED(*client.wait_status()));
  EXPECT_EQ(WEXITSTATUS(*client.wait_status()), 3);
}

TEST_F(McpClientTest, SpawnFailureIsAnError) {
  McpClientOptions o;
  o.spawn.argv = {"/nonexistent/server"};
  McpClient client(io_, o);
  CallResult init = Await([&](CallCallback cb) { client.Start(std::move(cb)); });
  EXPECT_EQ(init.error, CallError::kSpawnFailed);
  EXPECT_EQ(init.spawn_status.code(), Code::kNotFound);
  EXPECT_EQ(client.state(), McpClient::State::kFailed);
}

// The injected spawner: a failure no real child can be made to produce on demand.
class RefusingSpawner final : public ProcessSpawner {
 public:
  Result<std::unique_ptr<ChildProcess>> Spawn(const SpawnOptions&) override {
    ++calls;
    return IoError("fork: Resource temporarily unavailable");
  }
  int calls = 0;
};

TEST_F(McpClientTest, InjectedSpawnerFailure) {
  RefusingSpawner spawner;
  McpClientOptions o = ChildOptions();
  o.spawner = &spawner;
  McpClient client(io_, o);
  bool inline_call = true;
  std::optional<CallResult> init;
  client.Start([&](CallResult r) {
    EXPECT_FALSE(inline_call);  // delivered through the loop, not from inside Start()
    init = std::move(r);
  });
  inline_call = false;
  RunUntil([&] { return init.has_value(); });
  EXPECT_EQ(spawner.calls, 1);
  EXPECT_EQ(init->error, CallError::kSpawnFailed);
  EXPECT_EQ(init->spawn_status.code(), Code::kIo);
}

TEST_F(McpClientTest, CrashMidCallFailsPendingCalls) {
  auto client = StartedClient(ChildOptions());
  ASSERT_TRUE(Call(*client, "echo", EchoArgs("before")).ok());
  std::optional<CallResult> slow;
  std::optional<CallResult> crash;
  client->CallTool("slow", R"({"ms":60000})", {}, [&](CallResult r) { slow = std::move(r); });
  client->CallTool("crash", "{}", {}, [&](CallResult r) { crash = std::move(r); });
  RunUntil([&] { return slow && crash; });
  EXPECT_EQ(slow->error, CallError::kChildExited);
  EXPECT_EQ(crash->error, CallError::kChildExited);
  EXPECT_EQ(client->state(), McpClient::State::kFailed);
  CallResult after = Call(*client, "echo", "{}");
  EXPECT_EQ(after.error, CallError::kNotReady);
  ShutdownAndCheckReaped(*client);
}

TEST_F(McpClientTest, GarbageLinesAreCountedAndIgnored) {
  auto client = StartedClient(ChildOptions());
  CallResult r = Call(*client, "garbage", "{}");
  ASSERT_TRUE(r.ok()) << CallErrorName(r.error);
  EXPECT_EQ(ResultText(r), "after garbage");
  EXPECT_EQ(client->stats().garbage_lines, 4u);
  StillServesThenEnds(*client, "still");
}

// {"id":N,"result":…,"result":…} answers call N, but not validly: the call fails at once
// (before, it waited for another answer forever without a timeout).
// A child killed by another's SIGTERM closes its output as it dies, before a wait sees it:
// Las's own SIGTERM, sent on that EOF, must not claim the death (probe HU1: "las ended it"
// in the record, 4 times in 6 under load). Repeated, as the race is narrow: on an idle
// machine the child is reaped before the EOF is handled; with both vCPUs busy (as under
// `ctest -j2`) the old check failed this in each of 3 runs, the new one passed 6 of 6.
TEST_F(McpClientTest, AChildDyingOfAnotherOnesSigtermWasNotEndedByLas) {
  for (int round = 0; round < 10; ++round) {
    auto client = StartedClient(ChildOptions());
    EXPECT_EQ(Call(*client, "crash", R"({"signal":15})").error, CallError::kChildExited);
    RunUntil([&] { return client->wait_status().has_value(); });
    ASSERT_TRUE(client->wait_status() && WIFSIGNALED(*client->wait_status())) << round;
    EXPECT_EQ(WTERMSIG(*client->wait_status()), SIGTERM);
    EXPECT_FALSE(client->ended_by_las()) << round;
    ShutdownAndCheckReaped(*client);
  }
}

TEST_F(McpClientTest, AMalformedAnswerToOurIdFailsThatCall) {
  auto client = StartedClient(ChildOptions());
  EXPECT_EQ(Call(*client, "malformed_answer", "{}").error, CallError::kMalformedResponse);
  StillServesThenEnds(*client, "still");
}

// Answers that are not valid but plainly meant for a call fail it at once, instead of
// leaving it to wait (forever without a timeout) for an answer that already came.
TEST_F(McpClientTest, AnAnswerBehindAByteOrderMarkFailsThatCall) {
  auto client = StartedClient(ChildOptions());
  const CallResult r = Call(*client, "odd_answer", R"({"shape":"bom"})");
  EXPECT_EQ(r.error, CallError::kMalformedResponse);
  EXPECT_EQ(r.why, "the answer is no valid JSON-RPC message (syntax)");
  EXPECT_EQ(client->stats().garbage_lines, 1u) << "the line itself stays invalid";
  StillServesThenEnds(*client, "still");
}

TEST_F(McpClientTest, OurIdWrittenAsAnIntegralFloatFailsThatCall) {
  auto client = StartedClient(ChildOptions());
  // Or as a string: "7" for 7 (probe EA3: the call waited, forever without a timeout).
  for (const char* shape :
       {"float_id", "exp_id", "bad_version_float_id", "string_id", "string_float_id"}) {
    const std::string args = std::string(R"({"shape":")") + shape + "\"}";
    EXPECT_EQ(Call(*client, "odd_answer", args).error, CallError::kMalformedResponse) << shape;
  }
  // However the line around it is broken (probe ED1: a broken or batched answer with a
  // string id left the call waiting).
  for (const char* wrap : {"bom", "batch", "broken", "broken_batch"}) {
    for (const char* shape : {"string_id", "float_id", "plain"}) {
      const std::string args =
          std::string(R"({"shape":")") + shape + R"(","wrap":")" + wrap + "\"}";
      EXPECT_EQ(Call(*client, "odd_answer", args).error, CallError::kMalformedResponse) << args;
    }
  }
  EXPECT_EQ(client->stats().stray_responses, 0u);
  StillServesThenEnds(*client, "still");
}

// An answer to our id that also names a method is no request of the child's: it carries a
// result, and fails the call (probe HN1: taken for a request, it was dropped and the call
// waited, for ever without a timeout).
TEST_F(McpClientTest, AnAnswerThatAlsoNamesAMethodFailsThatCall) {
  auto client = StartedClient(ChildOptions());
  for (const char* shape : {"with_method", "method_first"}) {
    const std::string args = std::string(R"({"shape":")") + shape + "\"}";
    const CallResult r = Call(*client, "odd_answer", args);
    EXPECT_EQ(r.error, CallError::kMalformedResponse) << shape;
  }
  StillServesThenEnds(*client, "still");
}

// N.5 is no integer, so it names no call of ours: the real answer after it settles the call.
TEST_F(McpClientTest, AFractionalIdNamesNoCall) {
  auto client = StartedClient(ChildOptions());
  CallResult r = Call(*client, "odd_answer", R"({"shape":"half_id"})");
  ASSERT_TRUE(r.ok()) << CallErrorName(r.error);
  EXPECT_EQ(ResultText(r), "after half");
  EXPECT_EQ(client->stats().stray_responses, 1u);
  StillServesThenEnds(*client, "still");
}

TEST_F(McpClientTest, AnAnswerInABatchArrayFailsThatCall) {
  auto client = StartedClient(ChildOptions());
  EXPECT_EQ(Call(*client, "odd_answer", R"({"shape":"batch"})").error, CallError::kMalformedResponse);
  EXPECT_EQ(client->stats().garbage_lines, 1u);
  StillServesThenEnds(*client, "still");
}

TEST_F(McpClientTest, StrayResponsesDoNotMatchOtherCalls) {
  auto client = StartedClient(ChildOptions());
  CallResult r = Call(*client, "stray", "{}");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ResultText(r), "after stray");
  // An unknown id and a string id that is no number ("7" for 7 names call 7: below).
  EXPECT_EQ(client->stats().stray_responses, 2u);
  ShutdownAndCheckReaped(*client);
}

TEST_F(McpClientTest, OversizedLineFailsOnlyThatCall) {
  auto client = StartedClient(ChildOptions());
  std::optional<CallResult> huge;
  std::optional<CallResult> slow;
  client->CallTool("slow", R"({"ms":300,"text":"ok"})", {},
                   [&](CallResult r) { slow = std::move(r); });
  client->CallTool("huge", "{}", {}, [&](CallResult r) { huge = std::move(r); });
  RunUntil([&] { return huge && slow; });
  EXPECT_EQ(huge->error, CallError::kResponseTooLarge);
  ASSERT_TRUE(slow->ok());
  EXPECT_EQ(ResultText(*slow), "ok");
  EXPECT_EQ(client->stats().oversized_lines, 1u);
  StillServesThenEnds(*client, "next");
}

// The id written after the bulk is read from the line's end: the call fails at once, with
// no timeout set, instead of waiting for an answer that was thrown away.
TEST_F(McpClientTest, OversizedLineWithTheIdLastFailsThatCall) {
  auto client = StartedClient(ChildOptions());
  CallResult r = Call(*client, "huge_noid", R"({"id_last":true})", CallOptions{});
  EXPECT_EQ(r.error, CallError::kResponseTooLarge) << CallErrorName(r.error);
  EXPECT_EQ(client->stats().oversized_lines, 1u);
  StillServesThenEnds(*client, "next");
}

// An over-long request of the child's own whose id happens to equal a call's is not taken
// for that call's answer, wherever its id is — first, or last after its method or after its
// params' bulk (probe AS4: the id-first one failed the call): the real answer settles it.
TEST_F(McpClientTest, AnOversizedChildRequestDoesNotSettleACallOfTheSameId) {
  auto client = StartedClient(ChildOptions());
  size_t calls = 0;
  for (const char* order : {"method_first", "id_first", "params_first"}) {
    CallResult r = Call(*client, "huge_noid",
                        std::string(R"({"as_request":true,"order":")") + order + "\"}", CallOptions{});
    ASSERT_TRUE(r.ok()) << order << ": " << CallErrorName(r.error);
    EXPECT_EQ(ResultText(r), "after request") << order;
    EXPECT_EQ(client->stats().oversized_lines, ++calls) << order;
  }
  StillServesThenEnds(*client, "next");
}

TEST_F(McpClientTest, OversizedLineWithoutReadableIdEndsByTimeout) {
  auto client = StartedClient(ChildOptions());
  CallResult r = Call(*client, "huge_noid", "{}", CallOptions{std::chrono::milliseconds(300), nullptr});
  EXPECT_EQ(r.error, CallError::kTimeout);
  RunUntil([&] { return client->stats().oversized_lines == 1; });
  StillServesThenEnds(*client, "next");
}

TEST_F(McpClientTest, NeverAnswersTimesOutAndOthersProceed) {
  auto client = StartedClient(ChildOptions());
  std::optional<CallResult> hang;
  std::optional<CallResult> echo;
  client->CallTool("hang", "{}", CallOptions{std::chrono::milliseconds(200), nullptr},
                   [&](CallResult r) { hang = std::move(r); });
  client->CallTool("echo", EchoArgs("x"), {}, [&](CallResult r) { echo = std::move(r); });
  RunUntil([&] { return hang && echo; });
  EXPECT_EQ(hang->error, CallError::kTimeout);
  EXPECT_TRUE(echo->ok());
  EXPECT_EQ(client->pending_calls(), 0u);
  EXPECT_EQ(client->state(), McpClient::State::kReady);
  ShutdownAndCheckReaped(*client);
}

TEST_F(McpClientTest, RemoteErrorCarriesCodeNotInMessages) {
  auto client = StartedClient(ChildOptions());
  CallResult r = Call(*client, "error", "{}");
  EXPECT_EQ(r.error, CallError::kRemoteError);
  EXPECT_EQ(r.remote_code, -32000);
  EXPECT_EQ(CallErrorName(r.error), "remote_error");
  EXPECT_TRUE(r.result.empty());
  EXPECT_NE(r.remote_error.find("CHILD-CONTROLLED"), std::string::npos);  // data, kept apart
  EXPECT_TRUE(r.spawn_status.ok());
  ShutdownAndCheckReaped(*client);
}

TEST_F(McpClientTest, StderrFloodDiscardedWhileAnswering) {
  auto client = StartedClient(ChildOptions({"--flood-stderr-mb", "50"}));
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(Call(*client, "echo", EchoArgs("during flood")).ok());
  }
  ShutdownAndCheckReaped(*client);
}

TEST_F(McpClientTest, StderrFloodForwardedLineBounded) {
  McpClientOptions o = ChildOptions({"--flood-stderr-mb", "50"});
  uint64_t bytes = 0;
  size_t longest = 0;
  bool flood_done = false;
  o.on_stderr_line = [&](std::string_view line, bool) {
    bytes += line.size() + 1;
    longest = std::max(longest, line.size());
    if (line == "flood-done") flood_done = true;
  };
  auto client = StartedClient(o);
  ASSERT_TRUE(Call(*client, "echo", EchoArgs("during flood")).ok());
  RunUntil([&] { return flood_done; });
  EXPECT_GE(bytes, 50u * 1024 * 1024);
  EXPECT_LE(longest, o.max_stderr_line_bytes);
  ShutdownAndCheckReaped(*client);
}

TEST_F(McpClientTest, LongStderrLineIsCutAndMarked) {
  McpClientOptions o = ChildOptions();
  std::vector<std::pair<std::string, bool>> lines;
  o.on_stderr_line = [&](std::string_view line, bool truncated) {
    lines.emplace_back(std::string(line), truncated);
  };
  auto client = StartedClient(o);
  ASSERT_TRUE(Call(*client, "long_stderr", "{}").ok());
  RunUntil([&] { return lines.size() >= 2; });
  EXPECT_EQ(lines[0].first.size(), o.max_stderr_line_bytes);
  EXPECT_TRUE(lines[0].second);
  EXPECT_EQ(lines[1].first, "short line");
  EXPECT_FALSE(lines[1].second);
  ShutdownAndCheckReaped(*client);
}

TEST_F(McpClientTest, ShutdownFailsPendingCallsAndReaps) {
  auto client = StartedClient(ChildOptions());
  std::optional<CallResult> hang;
  client->CallTool("hang", "{}", {}, [&](CallResult r) { hang = std::move(r); });
  ASSERT_TRUE(Call(*client, "echo", "{}").ok());  // the hang call has reached the child
  ShutdownAndCheckReaped(*client);
  ASSERT_TRUE(hang.has_value());
  EXPECT_EQ(hang->error, CallError::kShutdown);
  CallResult after = Call(*client, "echo", "{}");
  EXPECT_EQ(after.error, CallError::kNotReady);
}

TEST_F(McpClientTest, DestructorKillsTheChild) {
  pid_t pid;
  {
    auto client = StartedClient(ChildOptions());
    pid = client->pid();
    client->CallTool("hang", "{}", {}, [](CallResult) { ADD_FAILURE() << "dropped callbacks"; });
  }
  EXPECT_TRUE(ProcessGone(pid));
  io_.restart();
  io_.poll();  // cancelled handlers run and release the client's state
}

TEST_F(McpClientTest, CallBeforeStartIsNotReadyAndAsynchronous) {
  McpClient client(io_, ChildOptions());
  bool returned = false;
  std::optional<CallResult> r;
  client.CallTool("echo", "{}", {}, [&](CallResult res) {
    EXPECT_TRUE(returned);
    r = std::move(res);
  });
  returned = true;
  RunUntil([&] { return r.has_value(); });
  EXPECT_EQ(r->error, CallError::kNotReady);
}

TEST_F(McpClientTest, OneLoopManyChildrenFailuresStayLocal) {
  auto good = StartedClient(ChildOptions());
  auto bad = StartedClient(ChildOptions());
  std::optional<CallResult> crash;
  std::optional<CallResult> slow;
  bad->CallTool("crash", "{}", {}, [&](CallResult r) { crash = std::move(r); });
  good->CallTool("slow", R"({"ms":200,"text":"fine"})", {},
                 [&](CallResult r) { slow = std::move(r); });
  RunUntil([&] { return crash && slow; });
  EXPECT_EQ(crash->error, CallError::kChildExited);
  ASSERT_TRUE(slow->ok());
  EXPECT_EQ(ResultText(*slow), "fine");
  EXPECT_EQ(good->state(), McpClient::State::kReady);
  EXPECT_TRUE(Call(*good, "echo", EchoArgs("still here")).ok());
  ShutdownAndCheckReaped(*bad);
  ShutdownAndCheckReaped(*good);
}

TEST_F(McpClientTest, StartTimesOutWhenInitializeIsNeverAnswered) {
  McpClientOptions o = ChildOptions({"--silent", "1"});
  o.start_timeout = std::chrono::milliseconds(200);
  McpClient client(io_, o);
  CallResult init = Await([&](CallCallback cb) { client.Start(std::move(cb)); });
  EXPECT_EQ(init.error, CallError::kTimeout);
  EXPECT_EQ(client.state(), McpClient::State::kFailed);
  ShutdownAndCheckReaped(client);
}

TEST_F(McpClientTest, ShutdownEndsTheChildsWholeProcessGroup) {
  ASSERT_TRUE(BecomeChildSubreaper().ok());
  auto client = StartedClient(ChildOptions());
  CallResult r = Call(*client, "sleeper", "{}");
  ASSERT_TRUE(r.ok());
  const pid_t grandchild = std::stoi(ResultText(r));
  ASSERT_EQ(::kill(grandchild, 0), 0);
  ShutdownAndCheckReaped(*client);
  EXPECT_TRUE(ProcessGone(grandchild));  // killed and reaped: not even a zombie
}

// The owner hears once when a ready child goes by itself, and not when it ended it.
TEST_F(McpClientTest, AChildThatExitsByItselfIsReportedOnceAndAShutdownIsNot) {
  int gone = 0;
  std::optional<int> status_when_told;
  McpClientOptions crashing = ChildOptions();
  std::unique_ptr<McpClient> client;
  crashing.on_child_gone = [&] {
    ++gone;
    status_when_told = client->wait_status();
  };
  client = StartedClient(std::move(crashing));
  EXPECT_EQ(Call(*client, "crash", "{}").error, CallError::kChildExited);
  RunUntil([&] { return gone > 0; });
  ASSERT_TRUE(status_when_told.has_value()) << "told after the reap: how it ended is known";
  EXPECT_TRUE(WIFEXITED(*status_when_told) && WEXITSTATUS(*status_when_told) == 3)
      << "the crash tool's exit status 3, seen as " << *status_when_told;
  EXPECT_EQ(Call(*client, "echo", EchoArgs("x")).error, CallError::kNotReady);
  ShutdownAndCheckReaped(*client);
  EXPECT_EQ(gone, 1);

  int ended = 0;
  McpClientOptions stopped = ChildOptions();
  stopped.on_child_gone = [&ended] { ++ended; };
  auto other = StartedClient(std::move(stopped));
  ShutdownAndCheckReaped(*other);
  io_.restart();
  io_.poll();
  EXPECT_EQ(ended, 0);
}

// The caller stops waiting at once; the child is told and keeps serving.
TEST_F(McpClientTest, ACancelledCallEndsAtOnceAndTheChildGoesOn) {
  auto client = StartedClient(ChildOptions());
  std::optional<CallResult> hung;
  const int64_t id = client->CallTool("hang", "{}", {}, [&](CallResult r) { hung = std::move(r); });
  ASSERT_GT(id, 0);
  EXPECT_TRUE(client->Cancel(id, "the client gave up"));
  EXPECT_FALSE(hung.has_value()) << "posted, not called inside Cancel";
  RunUntil([&] { return hung.has_value(); });
  EXPECT_EQ(hung->error, CallError::kCancelled);
  EXPECT_FALSE(client->Cancel(id, "again")) << "no longer pending";
  StillServesThenEnds(*client, "after");
}

// Requests go to the child when they are made, while its pipe takes them — not one per
// pass of the loop (probe JK1: behind a busy daemon's loop, calls reached the child at a
// few hundred a second, waiting up to 12 s).
TEST_F(McpClientTest, RequestsAreWrittenWhenMadeWhileThePipeTakesThem) {
  auto client = StartedClient(ChildOptions());
  constexpr int kCalls = 40;
  int answered = 0;
  for (int i = 0; i < kCalls; ++i) {
    client->CallTool("echo", EchoArgs("m" + std::to_string(i)), {}, [&](CallResult r) {
      EXPECT_TRUE(r.ok()) << CallErrorName(r.error);
      ++answered;
    });
  }
  EXPECT_EQ(client->write_backlog_bytes(), 0u) << "every request written before the loop ran";
  RunUntil([&] { return answered == kCalls; });
  StillServesThenEnds(*client, "after");
}

// A call made with on_progress carries a token; the child's progress for it comes back
// as numbers, only when well formed and increasing; a call without one carries no token.
TEST_F(McpClientTest, ProgressOfACallIsPassedOnWhenWellFormedAndIncreasing) {
  McpClientOptions options = ChildOptions();
  options.min_progress_interval = std::chrono::milliseconds(0);
  auto client = StartedClient(std::move(options));
  std::vector<CallProgress> seen;
  CallOptions with_progress;
  with_progress.on_progress = [&](const CallProgress& p) { seen.push_back(p); };
  const std::string notices = R"({"notices":[)"
      R"("{\"progressToken\":TOKEN,\"progress\":1,\"total\":4}",)"
      R"("{\"progressToken\":TOKEN,\"progress\":1,\"total\":4}",)"          // not increasing
      R"("{\"progressToken\":TOKEN,\"progress\":\"2\"}",)"                   // not a number
      R"("{\"progressToken\":TOKEN,\"progress\":1e400}",)"                   // not finite
      R"("{\"progressToken\":TOKEN,\"progress\":2,\"total\":null}",)"        // bad total
      R"("{\"progressToken\":999999,\"progress\":3}",)"                      // another token
      R"("{\"progressToken\":\"TOKEN\",\"progress\":3}",)"                   // a string token
      R"("{\"progressToken\":TOKEN,\"progress\":2,\"progress\":3}",)"    // named twice (probe HN4)
      R"("{\"progressToken\":TOKEN,\"progress\":2,\"total\":3,\"total\":5}",)"
      R"("{\"progressToken\":TOKEN,\"progressToken\":TOKEN,\"progress\":2}",)"
      R"("{\"progressToken\":TOKEN,\"progress\":2.5,\"message\":\"CHILD TEXT\"}",)"
      R"("{\"progressToken\":TOKEN,\"progress\":4,\"total\":4}"]})";
  CallResult r = Call(*client, "progress", notices, with_progress);
  ASSERT_TRUE(r.ok()) << CallErrorName(r.error);
  EXPECT_NE(ResultText(r), "null") << "the call carried a progress token";
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].progress, 1);
  EXPECT_EQ(seen[0].total, 4);
  EXPECT_EQ(seen[1].progress, 2.5);
  EXPECT_FALSE(seen[1].total.has_value());
  EXPECT_EQ(seen[2].progress, 4);
  EXPECT_EQ(client->stats().dropped_progress, 9u);

  CallResult plain = Call(*client, "progress", R"({"notices":[]})");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(ResultText(plain), "null") << "no token without on_progress";
  StillServesThenEnds(*client, "after");
}

// A flood of progress reaches the caller at most once per interval, and the final one always.
TEST_F(McpClientTest, AFloodOfProgressIsThinnedToTheIntervalKeepingTheLast) {
  ManualClock clock;  // never moves: every notice after the first is "too soon"
  McpClientOptions options = ChildOptions();
  options.clock = &clock;
  auto client = StartedClient(std::move(options));
  std::string notices = R"({"notices":[)";
  for (int i = 1; i <= 500; ++i) {
    if (i > 1) notices += ',';
    notices += R"("{\"progressToken\":TOKEN,\"progress\":)" + std::to_string(i) +
               R"(,\"total\":500}")";
  }
  notices += "]}";
  std::vector<double> seen;
  CallOptions with_progress;
  with_progress.on_progress = [&](const CallProgress& p) { seen.push_back(p.progress); };
  ASSERT_TRUE(Call(*client, "progress", notices, with_progress).ok());
  EXPECT_EQ(seen, (std::vector<double>{1, 500}));

  // Every value "at its total" is still one final, then nothing.
  std::string at_total = R"({"notices":[)";
  for (int i = 1; i <= 200; ++i) {
    if (i > 1) at_total += ',';
    at_total += R"("{\"progressToken\":TOKEN,\"progress\":)" + std::to_string(i) +
                R"(,\"total\":)" + std::to_string(i % 2 == 0 ? i : 1) + R"(}")";
  }
  at_total += "]}";
  seen.clear();
  ASSERT_TRUE(Call(*client, "progress", at_total, with_progress).ok());
  EXPECT_EQ(seen, (std::vector<double>{1}));
  StillServesThenEnds(*client, "after");
}

// A child that stops reading its stdin: what Las would write to it waits in memory.
class NotReadingChildTest : public McpClientTest {
 protected:
  // A started client whose child has answered stop_reading: it reads nothing more until
  // Resume().
  std::unique_ptr<McpClient> StalledClient(McpClientOptions options) {
    std::ofstream(stall_path_).put('x');
    auto client = StartedClient(std::move(options));
    CallResult r = Call(*client, "stop_reading", "{\"path\":" + QuoteJsonString(stall_path_) + "}");
    EXPECT_EQ(ResultText(r), "stopped");
    return client;
  }
  void Resume() { std::filesystem::remove(stall_path_); }

  // What the child read, as [method, id] pairs in JSON.
  std::string Received(McpClient& c) { return ResultText(Call(c, "received", "{}")); }

  las::testing::TempDir dir_;
  std::string stall_path_ = dir_.Sub("stall");
};

// Requests of 100 KiB each against a 256 KiB bound: one is refused at once, the child never
// sees it, and the client goes on once the child reads again.
TEST_F(NotReadingChildTest, ARequestBeyondTheWriteBacklogIsRefusedAtOnce) {
  McpClientOptions options = ChildOptions();
  options.max_write_backlog_bytes = 256 * 1024;
  auto client = StalledClient(std::move(options));
  const std::string big = EchoArgs(std::string(100 * 1024, 'b'));
  std::deque<std::optional<CallResult>> results;  // stable references for the callbacks
  std::optional<size_t> refused_at;
  for (size_t i = 0; i < 64 && !refused_at; ++i) {
    std::optional<CallResult>& slot = results.emplace_back();
    if (client->CallTool("echo", big, {}, [&slot](CallResult r) { slot = std::move(r); }) == 0) {
      EXPECT_FALSE(slot.has_value()) << "posted, not called inside CallTool";
      refused_at = i;
    }
    io_.restart();
    io_.poll();  // the loop writes what the pipe takes meanwhile
  }
  ASSERT_TRUE(refused_at.has_value());
  EXPECT_GE(*refused_at, 2u) << "two lines fit within the bound";
  RunUntil([&] { return results[*refused_at].has_value(); });
  EXPECT_EQ(results[*refused_at]->error, CallError::kChildNotReading);
  EXPECT_EQ(CallErrorName(CallError::kChildNotReading), "child_not_reading");
  EXPECT_LE(client->write_backlog_bytes(), 256u * 1024);
  EXPECT_EQ(client->stats().refused_requests, 1u);
  EXPECT_EQ(client->state(), McpClient::State::kReady);

  Resume();
  results.erase(results.begin() + static_cast<std::ptrdiff_t>(*refused_at));
  RunUntil([&] {
    return std::all_of(results.begin(), results.end(), [](const auto& r) { return r.has_value(); });
  });
  for (const auto& r : results) EXPECT_TRUE(r->ok()) << CallErrorName(r->error);
  EXPECT_EQ(client->write_backlog_bytes(), 0u);
  StillServesThenEnds(*client, "after");
}

// Behind a 1 MiB request the child does not take, a call that times out and one that is
// cancelled are taken out of the queue: never written, no notifications/cancelled for them.
TEST_F(NotReadingChildTest, ATimedOutOrCancelledRequestStillQueuedIsWithdrawn) {
  auto client = StalledClient(ChildOptions());
  std::optional<CallResult> front;
  const int64_t front_id = client->CallTool("echo", EchoArgs(std::string(1024 * 1024, 'f')), {},
                                            [&](CallResult r) { front = std::move(r); });
  ASSERT_GT(front_id, 0);
  const size_t front_bytes = client->write_backlog_bytes();
  std::optional<CallResult> timed_out;
  const int64_t timed_out_id = client->CallTool(
      "echo", EchoArgs(std::string(4096, 't')), CallOptions{std::chrono::milliseconds(50), nullptr},
      [&](CallResult r) { timed_out = std::move(r); });
  std::optional<CallResult> cancelled;
  const int64_t cancelled_id = client->CallTool("echo", EchoArgs(std::string(4096, 'c')), {},
                                                [&](CallResult r) { cancelled = std::move(r); });
  ASSERT_GT(timed_out_id, 0);
  ASSERT_GT(cancelled_id, 0);
  EXPECT_GT(client->write_backlog_bytes(), front_bytes + 8192);

  RunUntil([&] { return timed_out.has_value(); });
  EXPECT_EQ(timed_out->error, CallError::kTimeout);
  EXPECT_TRUE(timed_out->never_sent) << "withdrawn: the child cannot have acted on it";
  EXPECT_EQ(client->stats().withdrawn_requests, 1u);
  EXPECT_TRUE(client->Cancel(cancelled_id, "the client gave up"));
  RunUntil([&] { return cancelled.has_value(); });
  EXPECT_EQ(cancelled->error, CallError::kCancelled);
  EXPECT_TRUE(cancelled->never_sent);
  EXPECT_EQ(client->stats().withdrawn_requests, 2u);
  EXPECT_EQ(client->write_backlog_bytes(), front_bytes) << "only the line being written is left";
  EXPECT_EQ(client->stats().unsent_cancellations, 0u);

  Resume();
  RunUntil([&] { return front.has_value(); });
  ASSERT_TRUE(front->ok()) << CallErrorName(front->error);
  const std::string received = Received(*client);
  EXPECT_NE(received.find("[\"tools/call\", " + std::to_string(front_id) + "]"), std::string::npos)
      << received;
  for (int64_t gone : {timed_out_id, cancelled_id}) {
    EXPECT_EQ(received.find(", " + std::to_string(gone) + "]"), std::string::npos)
        << gone << " reached the child: " << received;
  }
  StillServesThenEnds(*client, "after");
}

// Ended with requests still queued behind the one being written: those were never given
// to the child, and say so; the one being written may have reached it.
TEST_F(NotReadingChildTest, RequestsStillQueuedAtShutdownWereNeverSent) {
  auto client = StalledClient(ChildOptions());
  std::optional<CallResult> front;
  ASSERT_GT(client->CallTool("echo", EchoArgs(std::string(1024 * 1024, 'f')), {},
                             [&](CallResult r) { front = std::move(r); }),
            0);
  std::optional<CallResult> queued;
  ASSERT_GT(client->CallTool("echo", EchoArgs("behind"), {}, [&](CallResult r) { queued = std::move(r); }),
            0);
  bool ended = false;
  client->Shutdown([&] { ended = true; });
  RunUntil([&] { return ended && front.has_value() && queued.has_value(); });
  EXPECT_EQ(front->error, CallError::kShutdown);
  EXPECT_FALSE(front->never_sent) << "being written: the child may have read it";
  EXPECT_EQ(queued->error, CallError::kShutdown);
  EXPECT_TRUE(queued->never_sent);
}

// Many requests made while the pipe still took them: those it took were written, the one
// it stopped in is being written, every one behind that was never sent (probe JL1: sixty-four
// written "together" counted as being written though none of their bytes were).
TEST_F(NotReadingChildTest, OnlyTheLineThePipeStoppedInIsBeingWritten) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const int pipe_bytes = ::fcntl(fds[0], F_GETPIPE_SZ);
  ::close(fds[0]);
  ::close(fds[1]);
  ASSERT_GT(pipe_bytes, 0);
  auto client = StalledClient(ChildOptions());
  const std::string text(3000, 'q');
  std::deque<std::optional<CallResult>> results;
  for (int i = 0; i < 200; ++i) {
    std::optional<CallResult>& slot = results.emplace_back();
    ASSERT_GT(client->CallTool("echo", EchoArgs(text), {}, [&slot](CallResult r) { slot = std::move(r); }), 0);
  }
  for (int i = 0; i < 20; ++i) {  // the loop writes what the pipe takes meanwhile
    io_.restart();
    io_.poll();
  }
  bool ended = false;
  client->Shutdown([&] { ended = true; });
  RunUntil([&] {
    return ended && std::all_of(results.begin(), results.end(), [](const auto& r) { return r.has_value(); });
  });
  size_t maybe_sent = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i]->never_sent) {
      EXPECT_EQ(maybe_sent, i) << "a prefix";
      ++maybe_sent;
    }
  }
  EXPECT_LE(maybe_sent, static_cast<size_t>(pipe_bytes) / text.size() + 2)
      << "what the pipe holds, and the line it stopped in";
}

// A child that closed its stdin and lives on: a request written to it fails (EPIPE) with
// nothing of it written, so it never reached the child — and neither did those behind it
// (probe AW4: recorded uncertain, "did it act?").
TEST_F(McpClientTest, ARequestTheChildsClosedStdinRefusedWasNeverSent) {
  auto client = StartedClient(ChildOptions());
  ASSERT_EQ(ResultText(Call(*client, "close_stdin", "{}")), "closed");
  std::optional<CallResult> first;
  std::optional<CallResult> behind;
  ASSERT_GT(client->CallTool("echo", EchoArgs("first"), {}, [&](CallResult r) { first = std::move(r); }), 0);
  ASSERT_GT(client->CallTool("echo", EchoArgs("behind"), {}, [&](CallResult r) { behind = std::move(r); }), 0);
  RunUntil([&] { return first.has_value() && behind.has_value(); });
  EXPECT_FALSE(first->ok());
  EXPECT_TRUE(first->never_sent) << CallErrorName(first->error);
  EXPECT_FALSE(behind->ok());
  EXPECT_TRUE(behind->never_sent) << CallErrorName(behind->error);
  bool ended = false;
  client->Shutdown([&] { ended = true; });
  RunUntil([&] { return ended; });
}

TEST_F(McpClientTest, CrashLeavesNoGrandchildBehind) {
  ASSERT_TRUE(BecomeChildSubreaper().ok());
  auto client = StartedClient(ChildOptions());
  CallResult r = Call(*client, "sleeper", "{}");
  ASSERT_TRUE(r.ok());
  const pid_t grandchild = std::stoi(ResultText(r));
  // The sleeper keeps the child's stdout open; the exit is still noticed (pidfd) and
  // the orphaned group member killed.
  EXPECT_EQ(Call(*client, "crash", "{}").error, CallError::kChildExited);
  ShutdownAndCheckReaped(*client);
  EXPECT_TRUE(ProcessGone(grandchild));
}

}  // namespace
}  // namespace las::transport

namespace las::transport {
namespace {

bool IsZombie(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

// A grandchild that left the child's process group (setsid) is adopted by this subreaper
// when the child dies; no ChildProcess reaps it.
class AdoptedOrphanTest : public McpClientTest {
 protected:
  pid_t OrphanedEscapee(const std::string& seconds, bool clean_env = false) {
    EXPECT_TRUE(BecomeChildSubreaper().ok());
    auto client = StartedClient(ChildOptions());
    CallResult r = Call(*client, "escapee", "{\"seconds\":" + seconds +
                                               (clean_env ? ",\"clean_env\":true}" : "}"));
    EXPECT_TRUE(r.ok());
    const pid_t escapee = std::stoi(ResultText(r));
    EXPECT_EQ(Call(*client, "crash", "{}").error, CallError::kChildExited);
    ShutdownAndCheckReaped(*client);
    return escapee;
  }
};

TEST_F(AdoptedOrphanTest, OneThatExitedIsReapedInsteadOfStayingAZombie) {
  const pid_t escapee = OrphanedEscapee("0.2");
  RunUntil([&] { return IsZombie(escapee); });
  EXPECT_GE(ReapAdoptedOrphans(/*kill_living=*/false), 1u);
  EXPECT_TRUE(ProcessGone(escapee));
}

// Its LAS_SPAWN_ID names the child, reaped by now: it ends with it (probe AW3).
TEST_F(AdoptedOrphanTest, OneStillRunningIsEndedWithTheChildThatLeftIt) {
  const pid_t escapee = OrphanedEscapee("1000");
  RunUntil([&] { return IsZombie(escapee); });
  EXPECT_GE(ReapAdoptedOrphans(/*kill_living=*/false), 1u);
  EXPECT_TRUE(ProcessGone(escapee));
}

// Probe GC1: a descendant that left the group without its LAS_SPAWN_ID held the child's
// stdin and stdout, so after the child's exit was seen, new calls were still written to a
// stdin no one reads, and failed uncertain only at the grace period's end. Once the exit
// is seen nothing new is sent: a call fails at once, never sent.
TEST_F(AdoptedOrphanTest, NoCallIsSentOnceTheChildsExitWasSeen) {
  EXPECT_TRUE(BecomeChildSubreaper().ok());
  auto client = StartedClient(ChildOptions());
  const pid_t child = client->pid();
  CallResult r = Call(*client, "escapee", R"({"seconds":60,"clean_env":true,"keep_pipes":true})");
  ASSERT_TRUE(r.ok());
  const pid_t escapee = std::stoi(ResultText(r));
  std::optional<CallResult> crashed;
  client->CallTool("crash", "{}", {}, [&](CallResult result) { crashed = std::move(result); });
  RunUntil([&] { return ProcessGone(child); });  // its exit seen, and reaped
  ASSERT_FALSE(crashed.has_value()) << "the escapee holds stdout: the grace period runs";
  std::optional<CallResult> after;
  client->CallTool("echo", EchoArgs("after"), {}, [&](CallResult result) { after = std::move(result); });
  io_.restart();
  io_.poll();
  ASSERT_TRUE(after.has_value()) << "refused at once, not written to the held stdin";
  EXPECT_EQ(after->error, CallError::kChildExited);
  ::kill(escapee, SIGKILL);
  RunUntil([&] { return crashed.has_value(); });
  ShutdownAndCheckReaped(*client);
  (void)ReapAdoptedOrphans(/*kill_living=*/true);
}

// With no LAS_SPAWN_ID nothing tells whose it is: it runs until the end of the command.
TEST_F(AdoptedOrphanTest, OneThatDroppedItsSpawnIdIsLeftAloneUntilTheEnd) {
  const pid_t escapee = OrphanedEscapee("1000", /*clean_env=*/true);
  (void)ReapAdoptedOrphans(/*kill_living=*/false);
  EXPECT_FALSE(ProcessGone(escapee)) << "a running process is not reaped";
  EXPECT_GE(ReapAdoptedOrphans(/*kill_living=*/true), 1u);
  EXPECT_TRUE(ProcessGone(escapee));
}

}  // namespace
}  // namespace las::transport
