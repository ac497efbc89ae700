// What the gateway reads of a child's tools/call result before passing it on.
//
// A result must be one JSON object with no key repeated anywhere (readers would disagree
// about it: one that keeps the last `isError` sees a success where the ledger records a
// tool error, and the result's checks — credentials, special policies — read only one of
// the two). Its top-level `isError: true` marks a tool error (nested objects may carry the
// same key and do not count).
//
// It must also be readable by MCP clients, which refuse the whole answer otherwise (the
// official SDK throws, or for a `_meta` that is no object never settles the call: probes
// CU4, CV3): `content`, when present, an array of objects each with a string `type` and the
// string members its type requires — "text": `text`; "image", "audio": `data` (base64 as
// the SDK's `atob` reads it: probe FL2), `mimeType`; "resource_link": `uri`, `name`, and
// when present `mimeType`, `description`, `title` strings, `size` a finite number, `icons` objects
// with a string `src` (and, when present, a string `mimeType`, `sizes` an array of strings,
// `theme` "light" or "dark"); "resource": a `resource` object with a string `uri` and a
// string `text` or a base64 `blob`, and when present a string
// `mimeType` and an object `_meta` — and `annotations` (an object: `audience` an array of
// "user"/"assistant", `priority` a number from 0 to 1, `lastModified` an RFC 3339 date-time
// with upper-case T and Z and no leap second, each when present) and `_meta` (an object);
// `isError`, when present, a boolean; `structuredContent`, when present, an object; `_meta`,
// when present, an object whose `progressToken` is a string or an integer and whose
// `io.modelcontextprotocol/related-task` is an object with a string `taskId` (probe DB1).
// A content type Las does not know is not readable: the official client refuses the whole
// result for one. Members Las does not know are passed on.
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

namespace las::tools {

struct ResultShape {
  bool object = false;      // one JSON object, no key repeated
  bool readable = false;    // and of the shape above
  bool tool_error = false;  // top-level isError: true
  // When not `object` or not `readable`: what is wrong, in Las's words (static text, never
  // the result's), for the operator's record.
  std::string_view why;
};

ResultShape ShapeOf(std::string_view result_json);

}  // namespace las::tools
