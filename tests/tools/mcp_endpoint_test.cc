// The MCP endpoint's protocol rules, line in, lines out. The backend here only records
// what reached it: the endpoint's contract is the protocol, which needs no child.
#include "tools/mcp_endpoint.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace las::tools {
namespace {

using nlohmann::json;

class RecordingBackend : public EndpointBackend {
 public:
  void OnSessionOpened(const SessionInfo& session) override { opened.push_back(session); }
  std::string ListTools(const SessionInfo&) override { return R"({"tools":[]})"; }
  void CallTool(const SessionInfo& session, const std::string&, const std::string& name,
                const std::string& arguments, ProgressSink progress,
                std::function<void(ToolCallReply)> done) override {
    calls.push_back({session.agent_id, name, arguments});
    progress_sinks.push_back(std::move(progress));
    pending.push_back(std::move(done));
  }
  struct Call {
    std::string agent, name, arguments;
  };
  void CancelCall(const SessionInfo&, const std::string& request_id_json) override {
    cancelled.push_back(request_id_json);
  }
  void OnSessionRefused(const SessionInfo& attempted, std::string_view reason) override {
    refused.push_back({attempted, std::string(reason)});
  }
  void RefuseCall(const SessionInfo&, const std::string& request_id_json,
                  const std::string& name, std::string_view reason, ToolCallReply refusal,
                  std::function<void(ToolCallReply)> done) override {
    refused_calls.push_back({request_id_json, name, std::string(reason)});
    if (hold_refusals) {
      held_refusals.push_back([refusal, done = std::move(done)] { done(refusal); });
    } else {
      done(std::move(refusal));
    }
  }
  std::vector<std::vector<std::string>> refused_calls;  // {request id, name, reason}
  bool hold_refusals = false;  // as a backend that answers once the refusal is recorded
  std::vector<std::function<void()>> held_refusals;
  std::vector<SessionInfo> opened;
  std::vector<std::pair<SessionInfo, std::string>> refused;
  std::vector<Call> calls;
  std::vector<std::string> cancelled;
  std::vector<std::function<void(ToolCallReply)>> pending;
  std::vector<ProgressSink> progress_sinks;
};

class EndpointTest : public ::testing::Test {
 protected:
  EndpointTest() { Make({}); }
  void Make(EndpointOptions options) {
    options.new_session_id = [] { return std::string("s-1"); };
    endpoint_ = std::make_unique<McpEndpoint>(options, backend_,
                                              [this](std::string line) { out_.push_back(line); });
  }
  json Send(const std::string& line) {
    const size_t before = out_.size();
    endpoint_->OnLine(line);
    if (out_.size() == before) return nullptr;
    EXPECT_EQ(out_.size(), before + 1) << "one response line per request";
    return json::parse(out_.back());
  }
  void Init(const std::string& params = "{}") {
    json r = Send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":)" + params + "}");
    ASSERT_TRUE(r.contains("result")) << r.dump();
  }
  RecordingBackend backend_;
  std::vector<std::string> out_;
  std::unique_ptr<McpEndpoint> endpoint_;
};

TEST_F(EndpointTest, RequestsBeforeInitializeFailAndInitializeWorksOnce) {
  json early = Send(R"({"jsonrpc":"2.0","id":0,"method":"tools/list"})");
  EXPECT_EQ(early["id"], 0);
  EXPECT_EQ(early["error"]["code"], -32600);
  // A method never served is not found, before initialize as after (probe IJ3).
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":1,"method":"server/discover"})")["error"]["code"], -32601);
  json ping = Send(R"({"jsonrpc":"2.0","id":"p","method":"ping"})");  // the one request MCP allows first
  EXPECT_EQ(ping["result"], json::object()) << ping.dump();
  EXPECT_FALSE(endpoint_->initialized());
  json init = Send(
      R"({"params":{"capabilities":{"roots":{},"futureThing":{"x":1}},"protocolVersion":"2025-03-26",)"
      R"("clientInfo":{"name":"c","version":"9"}},"method":"initialize","id":"i","jsonrpc":"2.0"})");
  EXPECT_EQ(init["id"], "i");
  EXPECT_EQ(init["result"]["protocolVersion"], "2024-11-05");
  EXPECT_TRUE(init["result"]["capabilities"].contains("tools"));
  ASSERT_EQ(backend_.opened.size(), 1u);
  EXPECT_EQ(backend_.opened[0].client_name, "c");
  EXPECT_EQ(backend_.opened[0].agent_id, "default");
  json again = Send(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{}})");
  EXPECT_EQ(again["error"]["code"], -32600);
  EXPECT_EQ(backend_.opened.size(), 1u);
}

TEST_F(EndpointTest, NotificationsAndResponsesNeverGetAnAnswer) {
  Init();
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").is_null());
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","method":"notifications/whatever","params":{}})").is_null());
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":5,"result":{}})").is_null());
}

TEST_F(EndpointTest, MethodsAndErrorCodes) {
  Init();
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":2,"method":"ping"})")["result"], json::object());
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})")["result"]["tools"],
            json::array());
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":4,"method":"resources/subscribe"})")["error"]["code"], -32601);
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}})")["error"]["code"],
            -32602);
  // Arguments that are not an object reach the backend as sent: its argument policy refuses
  // them and records the refusal (the endpoint's own -32602 left no event; probe L9).
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"a","arguments":3}})")
                  .is_null());
  ASSERT_EQ(backend_.calls.size(), 1u);
  EXPECT_EQ(backend_.calls[0].arguments, "3");
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":7,"method":"x",})")["error"]["code"], -32700);
  EXPECT_EQ(Send(R"({"jsonrpc":"1.0","id":8,"method":"ping"})")["error"]["code"], -32600);
  EXPECT_EQ(Send(R"([{"jsonrpc":"2.0","id":9,"method":"ping"}])")["error"]["code"], -32600)
      << "a batch's request: refused by its own id";
  EXPECT_TRUE(Send("not json at all").is_null());
  EXPECT_TRUE(Send("").is_null());
  std::string deep = R"({"jsonrpc":"2.0","id":10,"method":"ping","params":{"a":)";
  for (int i = 0; i < 200; ++i) deep += "[";
  json too_deep = Send(deep);
  EXPECT_EQ(too_deep["error"]["code"], -32700);
  EXPECT_EQ(too_deep["id"], 10) << "read from the line's start";
  EXPECT_EQ(too_deep["error"]["message"], "Parse error: the message nests too deep");
  json long_id = Send(R"({"jsonrpc":"2.0","method":"ping","id":")" +
                      std::string(kMaxRequestIdBytes - 1, 'x') + "\"}");
  EXPECT_TRUE(long_id.is_null()) << "an over-long id is not repeated, nor answered as null";
  // Nor is one read from the start of a line that is not JSON (probe AB7).
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":")" + std::string(200'000, 'x') + R"(","method":)")
                  .is_null());
  EXPECT_EQ(Send("{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\",\"params\":{\"s\":\"\xc3\x28\"}}")
                ["error"]["code"],
            -32700);
  json still = Send(R"({"jsonrpc":"2.0","id":12,"method":"ping"})");
  EXPECT_EQ(still["id"], 12) << "the session goes on";
}

// A tools/call or notifications/cancelled that names a member twice is refused, as a
// repeated id, method or agentId is: readers keeping the first or the last would disagree.
TEST_F(EndpointTest, ACallOrCancellationThatRepeatsAMemberIsRefused) {
  Init();
  for (const char* params : {R"({"name":"a__x","name":"b__y"})",
                             R"({"name":"a__x","arguments":{},"arguments":{"k":1}})",
                             R"({"name":"a__x","_meta":{},"_meta":{"progressToken":1}})"}) {
    EXPECT_EQ(Send(std::string(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":)") +
                   params + "}")["error"]["code"],
              -32602)
        << params;
  }
  EXPECT_TRUE(backend_.calls.empty());
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a__x"}})").is_null());
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a__y"}})").is_null());
  Send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"requestId":4}})");
  EXPECT_TRUE(backend_.cancelled.empty()) << "a cancellation naming two calls cancels neither";
  Send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}})");
  EXPECT_EQ(backend_.cancelled, std::vector<std::string>{"4"});
  // A repeated id: which one the client meant is not clear, and an answer by either could
  // settle another of its requests (probe HN3). A repeated method is answered by the id.
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":10,"id":11,"method":"ping"})").is_null());
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":12,"method":"ping","method":"x"})")["id"], 12);
}

// Any request's params that name a member twice are refused, not only tools/call's
// (probe O2-7: resources/read served the last uri, initialize kept the last version).
TEST_F(EndpointTest, AnyRequestThatRepeatsAParamsMemberIsRefused) {
  json first = Send(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","protocolVersion":"1999"}})");
  EXPECT_EQ(first["error"]["code"], -32602) << first.dump();
  EXPECT_EQ(first["error"]["message"], "params name a member more than once");
  json nested = Send(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"first","name":"SECOND"}}})");
  EXPECT_EQ(nested["error"]["code"], -32602) << nested.dump();
  EXPECT_TRUE(backend_.opened.empty());
  Init();
  for (const char* request :
       {R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"a__x","_meta":{"progressToken":1,"progressToken":2}}})",
        R"({"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"a","uri":"b"}})",
        R"({"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"a","name":"b"}})",
        R"({"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"a","cursor":"b"}})",
        R"({"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":1,"x":2}})"}) {
    EXPECT_EQ(Send(request)["error"]["code"], -32602) << request;
  }
  // Only the call is recorded refused (as every refused call is); the tool it named is not
  // taken from params that name members twice.
  EXPECT_EQ(backend_.refused_calls,
            (std::vector<std::vector<std::string>>{{"6", "", "params-member-twice"}}));
}

// Lists are one page with no nextCursor: any cursor is invalid (probe O2-5: a forged one
// got the whole list), a null one is absent.
TEST_F(EndpointTest, AListWithACursorIsInvalidParams) {
  Init();
  for (const char* method : {"tools/list", "resources/list", "prompts/list"}) {
    json r = Send(std::string(R"({"jsonrpc":"2.0","id":2,"method":")") + method +
                  R"(","params":{"cursor":"forged"}})");
    EXPECT_EQ(r["error"]["code"], -32602) << method;
    EXPECT_EQ(r["error"]["message"], "Invalid cursor") << method;
  }
  EXPECT_TRUE(
      Send(R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":null}})").contains("result"));
}

// initialize's members, where present, have 2024-11-05's types; absent ones are tolerated.
// What it records of the client is bounded (probe P1: 1 MB names were kept for good).
TEST_F(EndpointTest, InitializeChecksItsMembersTypesAndBoundsWhatItRecords) {
  for (const char* params : {R"({"protocolVersion":7})", R"({"capabilities":"x"})",
                             R"({"clientInfo":5})", R"({"clientInfo":{"name":1}})",
                             R"({"clientInfo":{"version":[]}})"}) {
    json r = Send(std::string(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":)") +
                  params + "}");
    EXPECT_EQ(r["error"]["code"], -32602) << params;
  }
  EXPECT_TRUE(backend_.opened.empty());
  const std::string long_name = std::string(300, 'n') + "\u00e9";
  Init(R"({"protocolVersion":")" + std::string(1000, '9') + R"(","clientInfo":{"name":")" +
       long_name + R"(","version":")" + std::string(255, 'v') + "\u00e9" + R"("}})");
  ASSERT_EQ(backend_.opened.size(), 1u);
  EXPECT_EQ(backend_.opened[0].protocol_version, std::string(256, '9'));
  EXPECT_EQ(backend_.opened[0].client_name, std::string(256, 'n'));
  EXPECT_EQ(backend_.opened[0].client_version, std::string(255, 'v')) << "cut at a character boundary";
}

// A client that writes a UTF-8 byte order mark before a line is answered, not ignored.
TEST_F(EndpointTest, ALeadingByteOrderMarkIsIgnored) {
  json r = Send("\xEF\xBB\xBF" R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
  ASSERT_TRUE(r.is_object());
  EXPECT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(Send("\xEF\xBB\xBF" R"({"jsonrpc":"2.0","id":2,"method":"ping"})")["id"], 2);
}

TEST_F(EndpointTest, OversizedLinesAreAnsweredWhenTheirIdCanBeRead) {
  Init();
  endpoint_->OnOversizedLine(R"({"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"x":"aaaa)");
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(json::parse(out_.back())["id"], "big");
  endpoint_->OnOversizedLine(R"({"params":{"x":"aaaaaaa)");
  EXPECT_EQ(out_.size(), 2u) << "no id: dropped";
  endpoint_->OnOversizedLineEnd(R"(aaaaaa"}})");
  EXPECT_EQ(out_.size(), 2u) << "none at its end either";
  // An id named twice names none, in a line too long or one broken (probe HP1, HP2).
  endpoint_->OnOversizedLine(R"({"jsonrpc":"2.0","id":601,"method":"ping","id":602,"params":{"a":"xx)");
  endpoint_->OnOversizedLineEnd(R"(xx"}})");
  EXPECT_EQ(out_.size(), 2u) << out_.back();
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":401,"id":402,"method":)").is_null());
}

// The TypeScript SDK writes `id` last (probe AR2: its over-long request was never answered
// and waited for the SDK's own timeout); a byte order mark first does not hide an id
// written first (AR1). Each over-long line is answered once.
TEST_F(EndpointTest, AnOverlongLineIsAnsweredByTheIdAtItsEnd) {
  Init();
  endpoint_->OnOversizedLine(R"({"method":"tools/call","params":{"arguments":{"text":"aaaa)");
  EXPECT_EQ(out_.size(), 1u) << "the id comes later";
  endpoint_->OnOversizedLineEnd(R"(aaaaaaaa"}},"jsonrpc":"2.0","id":6})");
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(json::parse(out_.back())["id"], 6);
  EXPECT_EQ(json::parse(out_.back())["error"]["code"], -32600);

  endpoint_->OnOversizedLine("\xEF\xBB\xBF" R"({"id":8,"method":"ping","params":{"x":"aaa)");
  ASSERT_EQ(out_.size(), 3u);
  EXPECT_EQ(json::parse(out_.back())["id"], 8);
  endpoint_->OnOversizedLineEnd(R"(aaa"},"id":9})");
  EXPECT_EQ(out_.size(), 3u) << "answered once, by the id read first";

  endpoint_->OnOversizedLine(R"({"method":"ping","params":{"x":"aaa)");
  endpoint_->OnOversizedLineEnd(R"(aaa"},"id":")" + std::string(kMaxRequestIdBytes, 'i') + "\"}");
  EXPECT_EQ(out_.size(), 3u) << "an id too long to repeat gets no answer";
}

// A client's response (Las sends it no requests) gets no answer however broken it is: an
// error under its id could settle the client's own request of that id (probe AS3).
TEST_F(EndpointTest, ABrokenResponseFromTheClientIsNotAnswered) {
  Init();
  endpoint_->OnOversizedLine(R"({"jsonrpc":"2.0","id":5,"result":{"text":"aaaa)");
  endpoint_->OnOversizedLineEnd(R"(aaaa"}})");
  endpoint_->OnOversizedLine(R"({"jsonrpc":"2.0","result":{"text":"aaaa)");
  endpoint_->OnOversizedLineEnd(R"(aaaa"},"id":6})");
  const std::string deep = std::string(70, '[') + std::string(70, ']');
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","error":{"code":1,"message":"m","data":)" + deep + R"(},"id":7})").is_null());
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":8,"result":{"t":"a\ud800"}})").is_null());
  EXPECT_EQ(out_.size(), 1u) << out_.back();
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":9,"method":"ping","result":)" + deep + "}")["id"], 9)
      << "a request that also holds a result is still a request";
}

// A whole request that does not parse is answered by an id written after the trouble: the
// SDK's order, with arguments nested too deep or holding a lone surrogate escape (what
// JSON.stringify writes for a string cut inside an emoji) (probe AR3).
TEST_F(EndpointTest, AnUnparsableRequestIsAnsweredByAnIdWrittenLast) {
  Init();
  const std::string deep = std::string(70, '[') + std::string(70, ']');
  json too_deep = Send(R"({"method":"tools/call","params":{"name":"a","arguments":{"x":)" + deep +
                       R"(}},"jsonrpc":"2.0","id":2})");
  EXPECT_EQ(too_deep["id"], 2) << too_deep.dump();
  EXPECT_EQ(too_deep["error"]["code"], -32700);
  json surrogate = Send(R"({"method":"tools/call","params":{"name":"a","arguments":{"text":"abc\ud800"}},"jsonrpc":"2.0","id":3})");
  EXPECT_EQ(surrogate["id"], 3) << surrogate.dump();
  EXPECT_EQ(surrogate["error"]["code"], -32700);
  EXPECT_EQ(surrogate["error"]["message"],
            "Parse error: the message is not valid UTF-8, or escapes a lone surrogate "
            "(\\ud800-\\udfff without its pair)")
      << "names what was wrong (probe FY1)";
  EXPECT_TRUE(backend_.calls.empty());
}

// MCP's params are objects: ones given by position are refused, not ignored (probe AR4: a
// cursor given in an array was read as no cursor at all).
TEST_F(EndpointTest, ParamsGivenByPositionAreInvalidParams) {
  for (const char* method : {"ping", "tools/list", "tools/call", "resources/list",
                             "resources/read", "prompts/list", "prompts/get", "initialize"}) {
    json r = Send(std::string(R"({"jsonrpc":"2.0","id":2,"method":")") + method +
                  R"(","params":["some-cursor"]})");
    EXPECT_EQ(r["error"]["code"], -32602) << method << ": " << r.dump();
    EXPECT_EQ(r["error"]["message"], "params must be an object") << method;  // probe AV7
  }
  Init();
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":[]})")["error"]["code"], -32602);
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":4,"method":"nope","params":[]})")["error"]["code"], -32601);
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}})").contains("result"));
}

// MCP 2024-11-05 has no batches: each request in one is refused by its own id, one line
// each, and nothing in it runs (probe BC4: a batching client waited forever).
// OwesAnswer says of a line what OnLine does with it, before initialize as after (probes
// HD3, HH2: a held notification, stray response, notification batch or garbage line was
// counted as a request left unrun).
TEST_F(EndpointTest, OwesAnswerIsWhetherTheLineIsAnsweredOrRun) {
  const std::vector<std::string> lines = {
      R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})",
      R"({"jsonrpc":"2.0","id":"p","method":"ping"})",
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
      R"({"jsonrpc":"2.0","id":5,"result":{}})",
      R"([{"jsonrpc":"2.0","method":"notifications/initialized"}])",
      R"([{"jsonrpc":"2.0","id":7,"method":"ping"}])",
      "[]",
      R"({"jsonrpc":"2.0","id":null,"method":"ping"})",
      "hello{",
      R"({"jsonrpc":"2.0","id":9,"method":)",
      R"({"id":9,"jsonrpc":"1.0","method":"ping"})",
      "   ",
      "\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}",
  };
  for (const bool initialized : {false, true}) {
    if (initialized) Init();
    for (const std::string& line : lines) {
      const size_t before = out_.size();
      endpoint_->OnLine(line);
      EXPECT_EQ(McpEndpoint::OwesAnswer(line, EndpointOptions{}), out_.size() > before)
          << (initialized ? "after" : "before") << " initialize: " << line;
    }
  }
  const EndpointOptions options;
  EXPECT_TRUE(McpEndpoint::OwesAnswerForOversized(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"x":")",
                                                  "", options));
  EXPECT_FALSE(McpEndpoint::OwesAnswerForOversized(R"({"jsonrpc":"2.0","method":"notifications/x","params":{")", "",
                                                   options));
  EXPECT_FALSE(McpEndpoint::OwesAnswerForOversized(R"({"jsonrpc":"2.0","id":4,"result":{"x":")", "", options));
  // The id written last, as the TypeScript SDK writes it (probe HJ2).
  EXPECT_TRUE(McpEndpoint::OwesAnswerForOversized(R"({"jsonrpc":"2.0","method":"tools/call","params":{"x":")",
                                                  R"(xxx"}},"id":77})", options));
  EXPECT_FALSE(McpEndpoint::OwesAnswerForOversized(R"({"jsonrpc":"2.0","method":"tools/call","params":{"x":")",
                                                   R"(xxx"}}})", options));
}

TEST_F(EndpointTest, EachRequestInABatchIsRefusedByItsOwnId) {
  Init();
  const size_t before = out_.size();
  endpoint_->OnLine(R"([{"jsonrpc":"2.0","id":7,"method":"ping"},)"
                    R"({"jsonrpc":"2.0","method":"notifications/initialized"},)"
                    R"({"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a__x"}},)"
                    R"({"jsonrpc":"2.0","id":null,"method":"ping"}, 5])");
  ASSERT_EQ(out_.size(), before + 2) << "the two requests with ids, nothing else";
  std::vector<json> ids;
  for (size_t i = before; i < out_.size(); ++i) {
    const json answer = json::parse(out_[i]);
    EXPECT_EQ(answer["error"]["code"], -32600) << out_[i];
    ids.push_back(answer["id"]);
  }
  EXPECT_EQ(ids, (std::vector<json>{7, "x"}));
  EXPECT_TRUE(backend_.calls.empty()) << "nothing in a batch runs";
  EXPECT_TRUE(Send("[]").is_null());
}

// One element that makes the line invalid JSON (a lone surrogate escape, nesting past the
// bound) does not silence the requests beside it, nor its own id (probe EA1: the client
// waited forever for all of them). A broken response in a batch is still never answered.
TEST_F(EndpointTest, ABatchThatIsInvalidJsonStillRefusesEachRequestByItsId) {
  Init();
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += '[';
  for (int i = 0; i < 200; ++i) deep += ']';
  const size_t before = out_.size();
  endpoint_->OnLine(R"([{"jsonrpc":"2.0","id":5,"method":"ping"},)"
                    R"({"jsonrpc":"2.0","method":"n","params":{"a":"\ud800"}},)"
                    R"({"jsonrpc":"2.0","id":6,"method":"ping","params":{"a":"\ud800"}},)"
                    R"({"jsonrpc":"2.0","id":8,"result":{"a":"\ud800"}},)"
                    R"({"jsonrpc":"2.0","method":"n","params":)" + deep + "},"
                    R"({"jsonrpc":"2.0","id":"s","method":"ping"}])");
  std::vector<json> ids;
  for (size_t i = before; i < out_.size(); ++i) {
    const json answer = json::parse(out_[i]);
    EXPECT_EQ(answer["error"]["code"], -32600) << out_[i];
    ids.push_back(answer["id"]);
  }
  EXPECT_EQ(ids, (std::vector<json>{5, 6, "s"}));
  EXPECT_TRUE(backend_.calls.empty()) << "nothing in a batch runs";
  // A line that only begins like a batch, cut off: the element it shows is still answered.
  const size_t cut = out_.size();
  endpoint_->OnLine(R"([{"jsonrpc":"2.0","id":9,"method":"ping"},{"jsonrpc":"2.0","id":1)");
  ASSERT_EQ(out_.size(), cut + 1);
  EXPECT_EQ(json::parse(out_[cut])["id"], 9);
}

// A batch is read only so far: a 4 MiB line of tiny elements would otherwise draw an answer
// each, all written at once past the answer budget (probe ED3).
TEST_F(EndpointTest, ABatchIsReadOnlyItsFirstThousandElementsDeep) {
  Init();
  std::string line = "[";
  for (size_t i = 0; i < kMaxBatchElementsRead + 500; ++i) {
    line += (i == 0 ? "" : ",") + std::string(R"({"id":)") + std::to_string(i) + "}";
  }
  line += "]";
  const size_t before = out_.size();
  endpoint_->OnLine(line);
  ASSERT_EQ(out_.size(), before + kMaxBatchElementsRead);
  EXPECT_EQ(json::parse(out_.back())["id"], kMaxBatchElementsRead - 1);
}

TEST_F(EndpointTest, ManyCallsInFlightAnswerInCompletionOrderWithTheirOwnIds) {
  Init();
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"a__x"}})").is_null());
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"a__y","arguments":{"k":1}}})").is_null());
  EXPECT_EQ(endpoint_->in_flight(), 2u);
  ASSERT_EQ(backend_.calls.size(), 2u);
  EXPECT_EQ(backend_.calls[0].arguments, "{}");
  EXPECT_EQ(backend_.calls[1].arguments, R"({"k":1})");
  bool idle = false;
  endpoint_->set_on_idle([&] { idle = true; });
  backend_.pending[1](ToolCallReply::Result(R"({"content":[]})"));
  EXPECT_EQ(json::parse(out_.back())["id"], "s");
  EXPECT_FALSE(idle);
  backend_.pending[0](ToolCallReply::Error(-32603, "Tool call failed"));
  json first = json::parse(out_.back());
  EXPECT_EQ(first["id"], 0);
  EXPECT_EQ(first["error"]["message"], "Tool call failed");
  EXPECT_TRUE(idle);
}

// Progress goes out under the client's own token (string or number, as sent), only while
// the call runs, not after a cancellation, and not while the output is behind.
TEST_F(EndpointTest, ProgressGoesOutUnderTheClientsTokenWhileTheCallRuns) {
  bool congested = false;
  endpoint_->set_output_congested([&] { return congested; });
  Init();
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"t-1"}}})"), nullptr);
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b","_meta":{"progressToken":7}}})"), nullptr);
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"c","_meta":{"progressToken":{}}}})"), nullptr);
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"d"}})"), nullptr);
  ASSERT_EQ(backend_.progress_sinks.size(), 4u);
  EXPECT_TRUE(backend_.progress_sinks[0] && backend_.progress_sinks[1]);
  EXPECT_FALSE(backend_.progress_sinks[2]) << "a token must be a string or a number";
  EXPECT_FALSE(backend_.progress_sinks[3]) << "no token, no progress";

  const size_t before = out_.size();
  backend_.progress_sinks[0](ToolCallProgress{0.5, 2});
  backend_.progress_sinks[1](ToolCallProgress{3, std::nullopt});
  ASSERT_EQ(out_.size(), before + 2);
  EXPECT_EQ(json::parse(out_[before]),
            json::parse(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t-1","progress":0.5,"total":2}})"));
  EXPECT_EQ(json::parse(out_[before + 1]),
            json::parse(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":3}})"));

  congested = true;
  backend_.progress_sinks[0](ToolCallProgress{1, 2});
  EXPECT_EQ(out_.size(), before + 2) << "dropped while the output is behind";
  congested = false;

  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}})"), nullptr);
  backend_.progress_sinks[1](ToolCallProgress{4, std::nullopt});
  EXPECT_EQ(out_.size(), before + 2) << "a cancelled call reports nothing more";
  backend_.pending[0](ToolCallReply::Result(R"({"content":[]})"));
  backend_.progress_sinks[0](ToolCallProgress{2, 2});
  ASSERT_EQ(out_.size(), before + 3) << "the answer, then nothing";
  EXPECT_EQ(json::parse(out_.back())["id"], 1);
}

// A cancel covers the calls under its id that came before it. A request that reuses the id
// afterwards, even while the cancelled call still runs, is answered (probe AG1).
TEST_F(EndpointTest, ARequestThatReusesACancelledIdAfterTheCancelIsAnswered) {
  Init();
  Send(R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"a"}})");
  Send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}})");
  Send(R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"b","_meta":{"progressToken":"t"}}})");
  ASSERT_EQ(backend_.pending.size(), 2u);
  EXPECT_EQ(backend_.cancelled, std::vector<std::string>{"10"});
  const size_t before = out_.size();
  backend_.progress_sinks[1](ToolCallProgress{1, std::nullopt});
  ASSERT_EQ(out_.size(), before + 1) << "the later call's progress still goes out";
  backend_.pending[1](ToolCallReply::Result(R"({"content":[{"type":"text","text":"b"}]})"));
  ASSERT_EQ(out_.size(), before + 2) << "the later call is answered";
  EXPECT_EQ(json::parse(out_.back())["result"]["content"][0]["text"], "b");
  backend_.pending[0](ToolCallReply::Cancelled(-32603, "Tool call cancelled"));
  EXPECT_EQ(out_.size(), before + 2) << "the cancelled one is not";

  // A second cancel of the id now covers the later call too; a third has nothing new to end.
  Send(R"({"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"c"}})");
  Send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}})");
  Send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}})");
  EXPECT_EQ(backend_.cancelled, (std::vector<std::string>{"10", "10"}));
  backend_.pending[2](ToolCallReply::Cancelled(-32603, "Tool call cancelled"));
  EXPECT_EQ(out_.size(), before + 2);
}

// A cancel that came too late to stop its call — the backend's reply is no cancellation
// but how the call ended, as recorded — leaves it answered: the ledger never records a
// result its client was not sent (probe CJ1).
TEST_F(EndpointTest, ACallTheCancelCameTooLateForIsAnsweredAsItEnded) {
  Init();
  Send(R"({"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"a"}})");
  Send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11}})");
  EXPECT_EQ(backend_.cancelled, std::vector<std::string>{"11"});
  const size_t before = out_.size();
  backend_.pending[0](ToolCallReply::Result(R"({"content":[{"type":"text","text":"done"}]})"));
  ASSERT_EQ(out_.size(), before + 1);
  EXPECT_EQ(json::parse(out_.back())["id"], 11);
  EXPECT_EQ(json::parse(out_.back())["result"]["content"][0]["text"], "done");
  EXPECT_EQ(endpoint_->in_flight(), 0u);
}

// A cancel names a string id by its value: a client whose encoder escapes differently still
// cancels its call (probe AG2). The answer keeps the request's own spelling.
TEST_F(EndpointTest, ACancelNamesAStringIdByItsValueNotItsEscapes) {
  Init();
  Send(R"({"jsonrpc":"2.0","id":"é/x","method":"tools/call","params":{"name":"a"}})");
  Send(R"({"jsonrpc":"2.0","id":"é/y","method":"tools/call","params":{"name":"b"}})");
  Send(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"c"}})");
  Send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"é\/x"}})");
  Send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"é\/y"}})");
  Send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5.0}})");
  EXPECT_EQ(backend_.cancelled.size(), 2u) << "5.0 is not the id 5: only strings match by value";
  const size_t before = out_.size();
  for (auto& done : backend_.pending) done(ToolCallReply::Cancelled(-32603, "Tool call cancelled"));
  ASSERT_EQ(out_.size(), before + 1) << "only the call under the id 5 is answered";
  EXPECT_EQ(json::parse(out_.back())["id"], 5);
}

TEST_F(EndpointTest, AgentIdIsBoundAtInitializeAndCannotBeReplaced) {
  Init(R"({"agentId":"alice"})");
  EXPECT_EQ(backend_.opened[0].agent_id, "alice");
  json other = Send(R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"agentId":"mallory"}}})");
  EXPECT_EQ(other["error"]["code"], -32602);
  json same = Send(R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"agentId":"alice"}}})");
  EXPECT_TRUE(same.contains("result"));
  Send(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a__b","_meta":{"agentId":"mallory"}}})");
  EXPECT_TRUE(backend_.calls.empty());
  // The spelling initialize reads first is refused too, not ignored (probe AH2).
  json top = Send(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a__b","agentId":"mallory"}})");
  EXPECT_EQ(top["error"]["code"], -32602) << top.dump();
  EXPECT_TRUE(backend_.calls.empty());
  Send(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"a__b","agentId":"alice"}})");
  EXPECT_EQ(backend_.calls.size(), 1u) << "naming the bound agent is fine";
  // An agentId that is not a string names no agent, so not the bound one (probe AI2).
  for (const char* params : {R"("agentId":5)", R"("agentId":null)", R"("agentId":["alice"])",
                             R"("_meta":{"agentId":true})", R"("_meta":{"agentId":{}})",
                             R"("_meta":"bob")", R"("_meta":["bob"])"}) {
    json refused = Send(std::string(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a__b",)") +
                        params + "}}");
    EXPECT_EQ(refused["error"]["code"], -32602) << params;
  }
  EXPECT_EQ(backend_.calls.size(), 1u);
  // Each call that named another agent is recorded refused: an attempt to act as another
  // agent is what an auditor looks for (probe BH2). A _meta that is no object names none.
  ASSERT_EQ(backend_.refused_calls.size(), 2u + 5u);
  EXPECT_EQ(backend_.refused_calls[0], (std::vector<std::string>{"4", "a__b", "agent-id-change"}));
  EXPECT_EQ(backend_.refused_calls[1], (std::vector<std::string>{"5", "a__b", "agent-id-change"}));
}

// A refusal the endpoint makes is answered by the backend, once it has recorded it (probe
// BG5): meanwhile the call is in flight. A cancellation cannot stop a refusal being
// recorded, so the refusal is answered all the same (probe CJ1).
TEST_F(EndpointTest, ACallTheEndpointRefusesIsAnsweredWhenTheBackendSaysSo) {
  Init(R"({"agentId":"alice"})");
  backend_.hold_refusals = true;
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a__b","agentId":"mallory"}})")
                  .is_null());
  for (int id : {5, 6}) {
    EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                     R"(,"method":"tools/call","params":{"name":"a__b","name":"c__d"}})")
                    .is_null());
  }
  EXPECT_TRUE(Send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}})")
                  .is_null());
  EXPECT_EQ(endpoint_->in_flight(), 3u);
  ASSERT_EQ(backend_.held_refusals.size(), 3u);
  const size_t before = out_.size();
  for (auto& answer : backend_.held_refusals) answer();
  ASSERT_EQ(out_.size(), before + 3) << "each answered as recorded";
  const json agent = json::parse(out_[before]);
  EXPECT_EQ(agent["id"], 4);
  EXPECT_EQ(agent["error"]["code"], -32602);
  EXPECT_EQ(agent["error"]["message"], "agentId is bound at initialize and cannot change");
  // The text outlives the request it answers (probe BL1: it was read from freed memory).
  const json twice = json::parse(out_[before + 1]);
  EXPECT_EQ(twice["id"], 5);
  EXPECT_EQ(twice["error"]["code"], -32602);
  EXPECT_EQ(twice["error"]["message"], "params name a member more than once");
  EXPECT_EQ(endpoint_->in_flight(), 0u);
  EXPECT_TRUE(backend_.calls.empty());
}

// initialize names one agent: params.agentId and params._meta.agentId must agree (probe AI3).
TEST_F(EndpointTest, InitializeRefusesTwoDifferentAgentNames) {
  json two = Send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"agentId":"alice","_meta":{"agentId":"bob"}}})");
  EXPECT_EQ(two["error"]["code"], -32602) << two.dump();
  EXPECT_TRUE(backend_.opened.empty());
  Init(R"({"agentId":"alice","_meta":{"agentId":"alice"}})");
  EXPECT_EQ(backend_.opened[0].agent_id, "alice");
}

// An agent id is printable text: it is shown in tables and events, and named by grants.
TEST_F(EndpointTest, InitializeRefusesAgentIdsThatAreNotPrintableText) {
  for (const char* params : {R"({"agentId":"evil\u001b[31mRED\r\nFAKE"})", R"({"agentId":"x\u0000y"})",
                             R"({"agentId":"abc\u202efed"})", R"({"agentId":5})", R"({"agentId":{"a":1}})",
                             R"({"agentId":""})", R"({"_meta":{"agentId":""}})",
                             // Named wrongly is not the same as not named: never the default.
                             R"({"_meta":{"agentId":5}})", R"({"_meta":{"agentId":null}})",
                             R"({"_meta":"x"})", R"({"_meta":[]})",
                             // Named twice: a reader keeping the first would see another agent.
                             R"({"agentId":"worker-7","agentId":"default"})",
                             R"({"_meta":{"agentId":"worker-7","agentId":"default"}})",
                             R"({"_meta":{"agentId":"worker-7"},"_meta":{}})"}) {
    json r = Send(std::string(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":)") + params + "}");
    EXPECT_EQ(r["error"]["code"], -32602) << params;
    EXPECT_FALSE(endpoint_->initialized()) << params;
  }
  json long_id = Send(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"agentId":")" +
                      std::string(257, 'a') + "\"}}");
  EXPECT_EQ(long_id["error"]["code"], -32602);
  EXPECT_TRUE(backend_.opened.empty());
  Init(R"({"agentId":"Jos\u00e9 \u65e5\u672c"})");
  EXPECT_EQ(backend_.opened[0].agent_id, "Jos\u00e9 \u65e5\u672c");
}

TEST_F(EndpointTest, DefaultAgentComesFromOptions) {
  EndpointOptions options;
  options.default_agent_id = "from-env";
  Make(options);
  Init();
  EXPECT_EQ(backend_.opened[0].agent_id, "from-env");
}

// Built out of line: GCC 12 at -O3 misreads an inlined assignment into the optional string
// as a read of uninitialized memory (-Wmaybe-uninitialized).
[[gnu::noinline]] EndpointOptions SkarbiecOptions() {
  EndpointOptions options;
  options.required_agent_id = "skarbiec-agent";
  options.required_agent_reason = "skarbiec-agent-id";
  return options;
}

TEST_F(EndpointTest, WhenSkarbiecIsActiveInitializeMustCarryExactlyItsAgent) {
  Make(SkarbiecOptions());
  json wrong = Send(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"agentId":"someone",)"
                    R"("protocolVersion":"2024-11-05","clientInfo":{"name":"c","version":"9"}}})");
  EXPECT_EQ(wrong["error"]["code"], -32602);
  // The refusal is reported once, with what the session would have been.
  ASSERT_EQ(backend_.refused.size(), 1u);
  EXPECT_EQ(backend_.refused[0].second, "skarbiec-agent-id");
  EXPECT_EQ(backend_.refused[0].first.agent_id, "someone");
  EXPECT_EQ(backend_.refused[0].first.session_id, "") << "no session was opened";
  EXPECT_EQ(backend_.refused[0].first.client_name, "c");
  EXPECT_EQ(backend_.refused[0].first.protocol_version, "2024-11-05");
  json missing = Send(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{}})");
  EXPECT_EQ(missing["error"]["code"], -32602);
  EXPECT_EQ(backend_.refused.size(), 1u) << "a client retrying cannot grow the log";
  // Malformed params are not a policy's refusal (a fresh endpoint, nothing reported yet).
  backend_.refused.clear();
  Make(SkarbiecOptions());
  EXPECT_EQ(Send(R"({"jsonrpc":"2.0","id":4,"method":"initialize","params":{"agentId":" a"}})")
                ["error"]["code"], -32602);
  EXPECT_TRUE(backend_.refused.empty());
  EXPECT_FALSE(endpoint_->initialized());
  json right = Send(R"({"jsonrpc":"2.0","id":3,"method":"initialize","params":{"agentId":"skarbiec-agent"}})");
  EXPECT_TRUE(right.contains("result"));
  EXPECT_TRUE(backend_.refused.empty());
  EXPECT_EQ(backend_.opened.size(), 1u);
}

}  // namespace
}  // namespace las::tools
