#include "transport/jsonrpc.h"

#include <gtest/gtest.h>

#include <string>

#include "transport/json_text.h"

namespace las::transport {
namespace {

Message MustParse(std::string_view line) {
  ParsedLine p = ParseMessage(line);
  EXPECT_TRUE(p.ok()) << line << " -> " << ParseFailureName(p.error.reason);
  return p.ok() ? *p.message : Message{};
}

ParseError MustFail(std::string_view line, const JsonRpcLimits& limits = {}) {
  ParsedLine p = ParseMessage(line, limits);
  EXPECT_FALSE(p.ok()) << line;
  return p.error;
}

TEST(JsonRpc, RequestWithParams) {
  Message m = MustParse(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}})");
  EXPECT_EQ(m.kind, MessageKind::kRequest);
  EXPECT_EQ(m.id, "7");
  EXPECT_EQ(m.method, "tools/call");
  EXPECT_EQ(m.params, R"({"name":"x"})");
}

TEST(JsonRpc, FieldsInAnyOrderAndUnknownFieldsTolerated) {
  Message m = MustParse(R"({"params":[1],"x-extra":{"a":1},"method":"m","id":"q","jsonrpc":"2.0"})");
  EXPECT_EQ(m.kind, MessageKind::kRequest);
  EXPECT_EQ(m.id, "\"q\"");
  EXPECT_EQ(m.params, "[1]");
}

TEST(JsonRpc, IdsAreEchoedExactly) {
  for (const char* id : {"0", "-1", "1.5", "1e3", "\"0\"", "\"\"", "\"\\u00e9\"",
                         "9007199254740993", "-0"}) {
    std::string line = std::string(R"({"jsonrpc":"2.0","method":"ping","id":)") + id + "}";
    Message m = MustParse(line);
    EXPECT_EQ(m.kind, MessageKind::kRequest) << id;
    EXPECT_EQ(m.id, id);
    EXPECT_EQ(MakeResultResponse(m.id, "{}"),
              std::string(R"({"jsonrpc":"2.0","id":)") + id + R"(,"result":{}})");
  }
}

TEST(JsonRpc, NullIdIsInvalidAndUnreadable) {
  ParseError e = MustFail(R"({"jsonrpc":"2.0","method":"ping","id":null})");
  EXPECT_EQ(e.reason, ParseFailure::kBadId);
  EXPECT_EQ(e.code, kInvalidRequest);
  EXPECT_FALSE(e.id);  // the caller drops the line
}

TEST(JsonRpc, NonScalarIdsAreInvalid) {
  for (const char* id : {"true", "{}", "[1]"}) {
    ParseError e = MustFail(std::string(R"({"jsonrpc":"2.0","method":"m","id":)") + id + "}");
    EXPECT_EQ(e.reason, ParseFailure::kBadId) << id;
    EXPECT_FALSE(e.id);
  }
}

TEST(JsonRpc, Notification) {
  Message m = MustParse(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(m.kind, MessageKind::kNotification);
  EXPECT_TRUE(m.id.empty());
  EXPECT_TRUE(m.params.empty());
}

TEST(JsonRpc, MissingJsonrpcIsInvalidRequestWithId) {
  ParseError e = MustFail(R"({"id":3,"method":"ping"})");
  EXPECT_EQ(e.reason, ParseFailure::kBadVersion);
  EXPECT_EQ(e.code, kInvalidRequest);
  ASSERT_TRUE(e.id);
  EXPECT_EQ(*e.id, "3");
  EXPECT_EQ(ErrorResponse(e),
            R"({"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request"}})");
}

TEST(JsonRpc, WrongVersion) {
  for (const char* v : {"\"1.0\"", "2.0", "\"2.00\"", "null", "\"2\\u002e00\""}) {
    ParseError e = MustFail(std::string(R"({"jsonrpc":)") + v + R"(,"id":"a","method":"m"})");
    EXPECT_EQ(e.reason, ParseFailure::kBadVersion) << v;
    EXPECT_EQ(e.id, std::optional<std::string>("\"a\""));
  }
}

// "2.0" escaped is "2.0" as JSON reads it (probe FL5: it was refused).
TEST(JsonRpc, AnEscapedVersionIsTheSameString) {
  EXPECT_EQ(MustParse(R"({"jsonrpc":"2\u002e0","id":1,"method":"ping"})").method, "ping");
}

TEST(JsonRpc, NonObjectsAreInvalidRequestsWithoutId) {
  for (const char* line : {"[]", R"([{"jsonrpc":"2.0","method":"m","id":1}])", "42", "\"s\"",
                           "null", "true"}) {
    ParseError e = MustFail(line);
    EXPECT_EQ(e.reason, ParseFailure::kNotAnObject) << line;
    EXPECT_EQ(e.code, kInvalidRequest);
    EXPECT_FALSE(e.id);
  }
}

TEST(JsonRpc, MalformedJsonIsParseError) {
  for (const char* line : {"", "   ", "{", R"({"jsonrpc":"2.0","id":1,"method":"m")",
                           "not json", R"({"jsonrpc":"2.0","id":1,"method":"m"} trailing)"}) {
    ParseError e = MustFail(line);
    EXPECT_EQ(e.reason, ParseFailure::kSyntax) << line;
    EXPECT_EQ(e.code, kParseError);
    EXPECT_FALSE(e.id);
  }
  EXPECT_EQ(ErrorResponse(MustFail("{")),
            R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})");
}

TEST(JsonRpc, InvalidUtf8IsParseError) {
  ParseError e = MustFail("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\xff\"}");
  EXPECT_EQ(e.reason, ParseFailure::kInvalidUtf8);
  EXPECT_EQ(e.code, kParseError);
  e = MustFail(R"({"jsonrpc":"2.0","id":1,"method":"\ud800"})");
  EXPECT_EQ(e.reason, ParseFailure::kInvalidUtf8);
}

TEST(JsonRpc, DepthBomb) {
  std::string params;
  for (int i = 0; i < 100; ++i) params += "[";
  for (int i = 0; i < 100; ++i) params += "]";
  ParseError e = MustFail(R"({"jsonrpc":"2.0","id":1,"method":"m","params":)" + params + "}");
  EXPECT_EQ(e.reason, ParseFailure::kTooDeep);
  EXPECT_EQ(e.code, kParseError);
  // 63 levels inside the message object is within the default 64.
  std::string ok_params(63, '[');
  ok_params += std::string(63, ']');
  MustParse(R"({"jsonrpc":"2.0","id":1,"method":"m","params":)" + ok_params + "}");
  JsonRpcLimits tight;
  tight.max_depth = 2;
  EXPECT_EQ(MustFail(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[]}})", tight).reason,
            ParseFailure::kTooDeep);
  // Well-formed JSON all the same: the answer says what is wrong, not just "Parse error".
  e.id = "1";
  EXPECT_EQ(ErrorResponse(e),
            R"({"jsonrpc":"2.0","id":1,"error":{"code":-32700,"message":"Parse error: the message nests too deep"}})");
}

TEST(JsonRpc, AnIdLongerThanTheBoundIsRefusedAndNotRepeated) {
  const auto request = [](const std::string& id) {
    return R"({"jsonrpc":"2.0","method":"ping","id":)" + id + "}";
  };
  JsonRpcLimits server;
  server.max_id_bytes = 256;
  // The bound counts the id's JSON text as sent: quotes and escapes included.
  const std::string longest = "\"" + std::string(254, 'a') + "\"";
  ASSERT_EQ(longest.size(), 256u);
  EXPECT_TRUE(ParseMessage(request(longest), server).ok());
  EXPECT_TRUE(ParseMessage(request(std::string(256, '7')), server).ok());
  std::string escaped = "\"";
  for (int i = 0; i < 50; ++i) escaped += "\\u0001";
  escaped += "\"";  // 50 characters, 302 bytes of JSON text
  for (const std::string& id :
       {"\"" + std::string(255, 'a') + "\"", std::string(257, '7'), escaped}) {
    EXPECT_EQ(MustParse(request(id)).id, id) << "not bounded by default";
    ParseError e = MustFail(request(id), server);
    EXPECT_EQ(e.reason, ParseFailure::kIdTooLong) << id.size();
    EXPECT_EQ(e.code, kInvalidRequest);
    EXPECT_EQ(e.id, "null") << "answered with a null id, never repeated";
    EXPECT_EQ(ErrorResponse(e),
              R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the id is too long"}})");
  }
  EXPECT_EQ(ParseFailureName(ParseFailure::kIdTooLong), "id_too_long");
  // A response's id is Las's own (a short number); a long one matches nothing, so it is
  // read as it is rather than refused.
  ParsedLine response =
      ParseMessage(R"({"jsonrpc":"2.0","result":{},"id":)" + std::string(300, '1') + "}", server);
  EXPECT_TRUE(response.ok());
}

TEST(JsonRpc, OverlongLine) {
  JsonRpcLimits limits;
  limits.max_line_bytes = 64;
  std::string line = R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"x":")" +
                     std::string(100, 'a') + "\"}}";
  ParseError e = MustFail(line, limits);
  EXPECT_EQ(e.reason, ParseFailure::kLineTooLong);
  EXPECT_EQ(e.code, kParseError);
  EXPECT_FALSE(e.id);
}

TEST(JsonRpc, BadMethodAndParams) {
  EXPECT_EQ(MustFail(R"({"jsonrpc":"2.0","id":1,"method":1})").reason, ParseFailure::kBadMethod);
  EXPECT_EQ(MustFail(R"({"jsonrpc":"2.0","id":1})").reason, ParseFailure::kBadMethod);
  ParseError e = MustFail(R"({"jsonrpc":"2.0","id":1,"method":"m","params":"bar"})");
  EXPECT_EQ(e.reason, ParseFailure::kBadParams);
  EXPECT_EQ(e.id, std::optional<std::string>("1"));
}

TEST(JsonRpc, DuplicateMembersAreInvalid) {
  ParseError e = MustFail(R"({"jsonrpc":"2.0","id":1,"method":"a","method":"b"})");
  EXPECT_EQ(e.reason, ParseFailure::kDuplicateMember);
  EXPECT_EQ(e.id, std::optional<std::string>("1"));
  e = MustFail(R"({"jsonrpc":"2.0","id":1,"id":2,"method":"a"})");
  EXPECT_EQ(e.reason, ParseFailure::kDuplicateMember);
  EXPECT_FALSE(e.id);
}

TEST(JsonRpc, Responses) {
  Message ok = MustParse(R"({"result":{"tools":[]},"id":5,"jsonrpc":"2.0"})");
  EXPECT_EQ(ok.kind, MessageKind::kResponse);
  EXPECT_EQ(ok.id, "5");
  EXPECT_FALSE(ok.is_error);
  EXPECT_EQ(ok.result, R"({"tools":[]})");

  Message err = MustParse(
      R"({"jsonrpc":"2.0","id":"x","error":{"message":"boom","code":-32000,"data":[1]}})");
  EXPECT_TRUE(err.is_error);
  EXPECT_EQ(err.error_code, -32000);

  EXPECT_EQ(MustParse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p"}})").id,
            "null");
  EXPECT_EQ(MustFail(R"({"jsonrpc":"2.0","id":1,"result":1,"error":{}})").reason,
            ParseFailure::kBadResponse);
  EXPECT_EQ(MustFail(R"({"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}})").reason,
            ParseFailure::kBadResponse);
  EXPECT_EQ(MustFail(R"({"jsonrpc":"2.0","result":1})").reason, ParseFailure::kBadId);
}

TEST(JsonRpc, BuildersProduceValidMessages) {
  std::string req = MakeRequest("3", "tools/call", R"({"name":"a\"b"})");
  Message m = MustParse(req);
  EXPECT_EQ(m.method, "tools/call");
  EXPECT_EQ(MustParse(MakeRequest("\"s\"", "ping")).params, "");
  EXPECT_EQ(MustParse(MakeNotification("notifications/initialized")).kind,
            MessageKind::kNotification);
  for (int code : {kParseError, kInvalidRequest, kMethodNotFound, kInvalidParams, kInternalError}) {
    Message e = MustParse(MakeErrorResponse("0", code));
    EXPECT_TRUE(e.is_error);
    EXPECT_EQ(e.error_code, code);
    EXPECT_EQ(e.id, "0");
  }
  EXPECT_EQ(GenericErrorMessage(kMethodNotFound), "Method not found");
  // A caller-chosen message is quoted, never spliced raw.
  Message custom = MustParse(MakeErrorResponse("1", -32001, "quote \" and \n newline"));
  EXPECT_TRUE(custom.is_error);
}

// A request id's identity: strings by value, anything else by its text.
TEST(JsonRpc, RequestIdKeyMatchesStringsByValueAndOtherIdsByText) {
  EXPECT_EQ(RequestIdKey(R"("\u00e9\/x")"), RequestIdKey("\"\xc3\xa9/x\""));
  EXPECT_EQ(RequestIdKey(R"("\u0078")"), R"("x")");
  EXPECT_EQ(RequestIdKey(RequestIdKey(R"("a\tb")")), RequestIdKey(R"("a\tb")")) << "idempotent";
  EXPECT_NE(RequestIdKey(R"("5")"), RequestIdKey("5")) << "a string is not a number";
  EXPECT_NE(RequestIdKey("5"), RequestIdKey("5.0"));
  EXPECT_NE(RequestIdKey("18446744073709551617"), RequestIdKey("18446744073709551616"))
      << "integers past a double's precision stay distinct";
  EXPECT_EQ(RequestIdKey("-0"), "-0");
}

}  // namespace
}  // namespace las::transport
