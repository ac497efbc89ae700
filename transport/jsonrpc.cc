#include "transport/jsonrpc.h"

#include <charconv>
#include <vector>

#include "transport/json_text.h"

namespace las::transport {
namespace {

ParsedLine Fail(ParseFailure reason, int code, std::optional<std::string> id = std::nullopt) {
  ParsedLine out;
  out.error.reason = reason;
  out.error.code = code;
  out.error.id = std::move(id);
  return out;
}

// The members JSON-RPC defines; others are ignored.
struct Known {
  const JsonMember* jsonrpc = nullptr;
  const JsonMember* id = nullptr;
  const JsonMember* method = nullptr;
  const JsonMember* params = nullptr;
  const JsonMember* result = nullptr;
  const JsonMember* error = nullptr;
};

bool IsIntegerLiteral(std::string_view raw, int64_t* value) {
  const char* end = raw.data() + raw.size();
  auto [ptr, ec] = std::from_chars(raw.data(), end, *value);
  return ec == std::errc() && ptr == end;
}

}  // namespace

std::string_view GenericErrorMessage(int code) {
  switch (code) {
    case kParseError: return "Parse error";
    case kInvalidRequest: return "Invalid Request";
    case kMethodNotFound: return "Method not found";
    case kInvalidParams: return "Invalid params";
    case kInternalError: return "Internal error";
    default: return "Server error";
  }
}

std::string_view ParseFailureName(ParseFailure failure) {
  switch (failure) {
    case ParseFailure::kLineTooLong: return "line_too_long";
    case ParseFailure::kInvalidUtf8: return "invalid_utf8";
    case ParseFailure::kSyntax: return "syntax";
    case ParseFailure::kTooDeep: return "too_deep";
    case ParseFailure::kNotAnObject: return "not_an_object";
    case ParseFailure::kBadVersion: return "bad_version";
    case ParseFailure::kBadId: return "bad_id";
    case ParseFailure::kBadMethod: return "bad_method";
    case ParseFailure::kBadParams: return "bad_params";
    case ParseFailure::kBadResponse: return "bad_response";
    case ParseFailure::kDuplicateMember: return "duplicate_member";
    case ParseFailure::kIdTooLong: return "id_too_long";
  }
  return "unknown";
}

ParsedLine ParseMessage(std::string_view line, const JsonRpcLimits& limits) {
  if (line.size() > limits.max_line_bytes) return Fail(ParseFailure::kLineTooLong, kParseError);

  std::vector<JsonMember> members;
  bool is_object = false;
  switch (ObjectMembers(line, &members, limits.max_depth, &is_object)) {
    case JsonTextError::kNone: break;
    case JsonTextError::kInvalidUtf8: return Fail(ParseFailure::kInvalidUtf8, kParseError);
    case JsonTextError::kTooDeep: return Fail(ParseFailure::kTooDeep, kParseError);
    case JsonTextError::kDuplicateKey:  // not asked for: the members read are checked below
    case JsonTextError::kSyntax:
      if (is_object) return Fail(ParseFailure::kSyntax, kParseError);
      // A well-formed non-object (array, number, ...) is an invalid request; anything
      // else is a parse error.
      if (ValidateJson(line, limits.max_depth) == JsonTextError::kNone) {
        return Fail(ParseFailure::kNotAnObject, kInvalidRequest);
      }
      return Fail(ParseFailure::kSyntax, kParseError);
  }

  Known k;
  bool duplicate = false;
  bool id_duplicate = false;
  for (const JsonMember& m : members) {
    const JsonMember** slot = nullptr;
    if (m.key == "jsonrpc") slot = &k.jsonrpc;
    else if (m.key == "id") slot = &k.id;
    else if (m.key == "method") slot = &k.method;
    else if (m.key == "params") slot = &k.params;
    else if (m.key == "result") slot = &k.result;
    else if (m.key == "error") slot = &k.error;
    if (slot == nullptr) continue;
    if (*slot != nullptr) {
      duplicate = true;
      if (slot == &k.id) id_duplicate = true;
    }
    *slot = &m;
  }

  // The id, when it can be read, goes into every error answer from here on.
  std::optional<std::string> id;
  if (k.id != nullptr && !id_duplicate &&
      (k.id->type == JsonType::kString || k.id->type == JsonType::kNumber)) {
    id = std::string(k.id->raw);
  }
  if (duplicate) return Fail(ParseFailure::kDuplicateMember, kInvalidRequest, id);

  // "2.0" as JSON reads it: an escaped spelling ("2\u002e0") is the same string (probe FL5).
  if (k.jsonrpc == nullptr || k.jsonrpc->type != JsonType::kString ||
      (k.jsonrpc->raw != "\"2.0\"" && DecodeJsonString(k.jsonrpc->raw) != "2.0")) {
    return Fail(ParseFailure::kBadVersion, kInvalidRequest, id);
  }

  Message msg;
  if (k.method != nullptr) {
    if (k.result != nullptr || k.error != nullptr) {
      return Fail(ParseFailure::kBadResponse, kInvalidRequest, id);
    }
    if (k.method->type != JsonType::kString) {
      return Fail(ParseFailure::kBadMethod, kInvalidRequest, id);
    }
    std::optional<std::string> method = DecodeJsonString(k.method->raw);
    if (!method) return Fail(ParseFailure::kBadMethod, kInvalidRequest, id);
    if (k.params != nullptr && k.params->type != JsonType::kObject &&
        k.params->type != JsonType::kArray) {
      return Fail(ParseFailure::kBadParams, kInvalidRequest, id);
    }
    if (k.id != nullptr && !id) return Fail(ParseFailure::kBadId, kInvalidRequest);
    if (id && id->size() > limits.max_id_bytes) {
      // Not repeated back: "null" also keeps a reader from salvaging it from the line.
      return Fail(ParseFailure::kIdTooLong, kInvalidRequest, std::string("null"));
    }
    msg.kind = id ? MessageKind::kRequest : MessageKind::kNotification;
    if (id) msg.id = std::move(*id);
    msg.method = std::move(*method);
    if (k.params != nullptr) msg.params = std::string(k.params->raw);
    return ParsedLine{std::move(msg), {}};
  }

  if (k.result == nullptr && k.error == nullptr) {
    return Fail(ParseFailure::kBadMethod, kInvalidRequest, id);
  }
  // A response: never answered, so the reason only matters to the reader's counters.
  if (k.result != nullptr && k.error != nullptr) {
    return Fail(ParseFailure::kBadResponse, kInvalidRequest, id);
  }
  if (k.id == nullptr || (!id && k.id->type != JsonType::kNull)) {
    return Fail(ParseFailure::kBadId, kInvalidRequest);
  }
  msg.kind = MessageKind::kResponse;
  msg.id = id ? std::move(*id) : std::string("null");
  if (k.result != nullptr) {
    msg.result = std::string(k.result->raw);
    return ParsedLine{std::move(msg), {}};
  }
  if (k.error->type != JsonType::kObject) {
    return Fail(ParseFailure::kBadResponse, kInvalidRequest, msg.id);
  }
  std::vector<JsonMember> error_members;
  (void)ObjectMembers(k.error->raw, &error_members, limits.max_depth);
  bool has_code = false;
  bool has_message = false;
  for (const JsonMember& m : error_members) {
    if (m.key == "code") has_code = IsIntegerLiteral(m.raw, &msg.error_code);
    if (m.key == "message") has_message = m.type == JsonType::kString;
  }
  if (!has_code || !has_message) {
    return Fail(ParseFailure::kBadResponse, kInvalidRequest, msg.id);
  }
  msg.is_error = true;
  msg.error = std::string(k.error->raw);
  return ParsedLine{std::move(msg), {}};
}

namespace {

// `"method":"…"` and, when given, `,"params":…`, then the closing brace.
void AppendCall(std::string_view method, std::string_view raw_params, std::string& out) {
  out += "\"method\":";
  out += QuoteJsonString(method);
  if (!raw_params.empty()) {
    out += ",\"params\":";
    out += raw_params;
  }
  out += '}';
}

}  // namespace

std::string MakeRequest(std::string_view raw_id, std::string_view method,
                        std::string_view raw_params) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
  out += raw_id;
  out += ',';
  AppendCall(method, raw_params, out);
  return out;
}

std::string MakeCancelledNotification(std::string_view raw_id, std::string_view reason) {
  return MakeNotification("notifications/cancelled", "{\"requestId\":" + std::string(raw_id) +
                                                         ",\"reason\":" + QuoteJsonString(reason) + "}");
}

std::optional<MessageKind> ShownKind(std::string_view text) {
  if (ShowsTopLevelMember(text, "method") || ShowsTopLevelMember(text, "params")) {
    return MessageKind::kRequest;
  }
  if (ShowsTopLevelMember(text, "result") || ShowsTopLevelMember(text, "error")) {
    return MessageKind::kResponse;
  }
  return std::nullopt;
}

std::optional<std::string> CancelledRequestId(std::string_view raw_params, size_t max_depth) {
  std::vector<JsonMember> members;
  if (ObjectMembers(raw_params, &members, max_depth) != JsonTextError::kNone) return std::nullopt;
  std::optional<std::string> id;
  for (const auto& member : members) {
    if (member.key != "requestId") continue;
    if (id) return std::nullopt;  // named twice: which call is meant is not clear
    id = std::string(member.raw);
  }
  return id;
}

std::string RequestIdKey(std::string_view raw_id) {
  if (JsonTypeOf(raw_id) == JsonType::kString) {
    if (std::optional<std::string> value = DecodeJsonString(raw_id)) return QuoteJsonString(*value);
  }
  return std::string(raw_id);
}

std::string MakeNotification(std::string_view method, std::string_view raw_params) {
  std::string out = "{\"jsonrpc\":\"2.0\",";
  AppendCall(method, raw_params, out);
  return out;
}

std::string MakeResultResponse(std::string_view raw_id, std::string_view raw_result) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
  out += raw_id;
  out += ",\"result\":";
  out += raw_result;
  out += '}';
  return out;
}

std::string MakeErrorResponse(std::string_view raw_id, int code) {
  return MakeErrorResponse(raw_id, code, GenericErrorMessage(code));
}

std::string MakeErrorResponse(std::string_view raw_id, int code, std::string_view message) {
  return MakeErrorResponse(raw_id, code, message, {});
}

std::string MakeErrorResponse(std::string_view raw_id, int code, std::string_view message,
                              std::string_view raw_data) {
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
  out += raw_id.empty() ? std::string_view("null") : raw_id;
  out += ",\"error\":{\"code\":";
  out += std::to_string(code);
  out += ",\"message\":";
  out += QuoteJsonString(message);
  if (!raw_data.empty()) {
    out += ",\"data\":";
    out += raw_data;
  }
  out += "}}";
  return out;
}

std::string ErrorResponse(const ParseError& error) {
  const std::string_view id = error.id ? std::string_view(*error.id) : std::string_view();
  switch (error.reason) {
    case ParseFailure::kTooDeep:
      return MakeErrorResponse(id, error.code, "Parse error: the message nests too deep");
    case ParseFailure::kInvalidUtf8:
      // JSON's grammar admits a lone surrogate escape, so a client would not know what
      // "Parse error" alone refers to (probe FY1).
      return MakeErrorResponse(id, error.code,
                               "Parse error: the message is not valid UTF-8, or escapes a "
                               "lone surrogate (\\ud800-\\udfff without its pair)");
    case ParseFailure::kIdTooLong:
      return MakeErrorResponse(id, error.code, "Invalid Request: the id is too long");
    default:
      return MakeErrorResponse(id, error.code);
  }
}

}  // namespace las::transport
