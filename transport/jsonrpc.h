// JSON-RPC 2.0 messages, one per line (newline-delimited, as MCP's stdio transport).
//
// ParseMessage turns one line (without its '\n') into a Message or a ParseError, under
// bounds: the line length, the nesting depth, well-formed UTF-8, and the message must be
// one JSON object. Members may come in any order; members JSON-RPC does not define are
// ignored; a repeated `jsonrpc`/`id`/`method`/`params`/`result`/`error` is invalid.
//
// Ids are strings or numbers (0, -1 and 1.5 included) and are kept as their exact JSON
// text, so a reply echoes the peer's id byte for byte. A request id of `null` is invalid
// (MCP forbids it) and counts as "no readable id".
//
// Errors: ParseError carries the JSON-RPC code to answer with (-32700 for anything that
// is not one well-formed JSON value within bounds, -32600 for a well-formed value that
// is not a valid message) and the raw id when one could be read. When no id could be
// read (`id` is nullopt) the caller drops the line: JSON-RPC 2.0 would allow an answer
// with `"id":null`, which no client can match to a request; ErrorResponse() builds that
// answer for callers who want it anyway.
//
// Responses built here carry only the generic JSON-RPC messages (or a caller-supplied
// static one); nothing a peer sent is ever copied into an error message.
//
// Thread safety: free functions with no shared state. Returned strings are owned values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace las::transport {

// The JSON-RPC 2.0 error codes Las answers with.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// MCP's code for a resources/read of a uri the server does not have (2024-11-05,
// resources: "Error Handling").
inline constexpr int kResourceNotFound = -32002;

// "Parse error", "Invalid Request", "Method not found", "Invalid params",
// "Internal error"; "Server error" for any other code.
std::string_view GenericErrorMessage(int code);

struct JsonRpcLimits {
  size_t max_line_bytes = 4 * 1024 * 1024;  // excluding the '\n'
  size_t max_depth = 64;                     // containers open at once; the message is 1
  // A request's id, as JSON text (a server bounds it: every answer repeats it). Not
  // bounded by default: a child's requests are left unanswered or refused by method.
  size_t max_id_bytes = std::numeric_limits<size_t>::max();
};

enum class MessageKind { kRequest, kNotification, kResponse };

struct Message {
  MessageKind kind = MessageKind::kRequest;
  std::string id;      // raw JSON text; empty for a notification; may be "null" in a response
  std::string method;  // decoded; request and notification only
  std::string params;  // raw JSON text (object or array); empty when absent
  // Responses: exactly one of `result` (raw JSON text) or `error` is present.
  bool is_error = false;
  std::string result;
  std::string error;       // raw JSON text of the error object: peer-controlled, untrusted
  int64_t error_code = 0;  // the error object's integer `code`
};

// Why a line is not a message. Names are stable (logs, counters, tests).
enum class ParseFailure {
  kLineTooLong = 1,    // -32700
  kInvalidUtf8 = 2,    // -32700
  kSyntax = 3,         // -32700
  kTooDeep = 4,        // -32700
  kNotAnObject = 5,    // -32600 (arrays, i.e. batches, included)
  kBadVersion = 6,     // -32600: `jsonrpc` missing or not exactly "2.0"
  kBadId = 7,          // -32600: id null, bool, object or array
  kBadMethod = 8,      // -32600: method not a string
  kBadParams = 9,      // -32600: params neither object nor array
  kBadResponse = 10,   // -32600: both/neither result and error, or a malformed error
  kDuplicateMember = 11,  // -32600
  kIdTooLong = 12,     // -32600: a request id over max_id_bytes (its answer, if any, has id null)
};
std::string_view ParseFailureName(ParseFailure failure);  // e.g. "line_too_long"

struct ParseError {
  ParseFailure reason = ParseFailure::kSyntax;
  int code = kParseError;
  std::optional<std::string> id;  // raw id text when readable; nullopt: drop the line
};

struct ParsedLine {
  std::optional<Message> message;  // set on success
  ParseError error;                // meaningful when !ok()
  bool ok() const { return message.has_value(); }
};

// Parses one line (no trailing '\n'; surrounding JSON whitespace allowed).
ParsedLine ParseMessage(std::string_view line, const JsonRpcLimits& limits = {});

// Builders. Each returns one JSON object without a trailing newline. `raw_id` and the
// raw_* arguments must be valid JSON text (as ParseMessage returns them); an empty
// raw_params omits `params`. `method` and `message` are quoted here.
std::string MakeRequest(std::string_view raw_id, std::string_view method,
                        std::string_view raw_params = {});
std::string MakeNotification(std::string_view method, std::string_view raw_params = {});
std::string MakeResultResponse(std::string_view raw_id, std::string_view raw_result);
// An error response with GenericErrorMessage(code). An empty raw_id writes `"id":null`.
std::string MakeErrorResponse(std::string_view raw_id, int code);
// Same with a caller-chosen message: pass static text, never peer-controlled text.
std::string MakeErrorResponse(std::string_view raw_id, int code, std::string_view message);
// Same with the error's `data`: `raw_data` is JSON text, empty for none.
std::string MakeErrorResponse(std::string_view raw_id, int code, std::string_view message,
                              std::string_view raw_data);
// The error response for a failed parse (with `"id":null` when no id was read): the
// code's generic message, with what went wrong where the code alone does not say it
// (a message nested too deep is well-formed JSON; an id too long is a well-formed id).
std::string ErrorResponse(const ParseError& error);

// What a line that does not parse (broken, nested too deep, or cut for its length) shows
// itself to be, from the top-level members that can be read (json_text.h
// ShowsTopLevelMember): kRequest when it shows `method` or `params` (a request or a
// notification), kResponse when it shows `result` or `error` and neither of those; nullopt
// when it shows none of them. A reader answers or fails nothing by the id of a line that is
// not its peer's kind of message.
std::optional<MessageKind> ShownKind(std::string_view text);

// MCP cancellation: `notifications/cancelled` for the request `raw_id`, with `reason`
// (quoted here), and the raw `requestId` read back from such a notification's params
// (nullopt when the params are not an object, or name none or more than one).
std::string MakeCancelledNotification(std::string_view raw_id, std::string_view reason);
std::optional<std::string> CancelledRequestId(std::string_view raw_params,
                                              size_t max_depth = 64);

// What identifies request id `raw_id` (valid JSON text) when a cancel or an answer names it:
// a string id by its value, so "\u00e9" and "é" are one id; any other id by its text, so 5
// and 5.0 stay two (JSON-RPC asks for integers, and integers past a double's precision must
// not merge). Idempotent.
std::string RequestIdKey(std::string_view raw_id);

}  // namespace las::transport
