// One JSON-RPC message per line for every reader, not only for Las's own. Readers split
// lines at more than '\n': Python's universal newlines (the MCP Python SDK's stdin) at a
// lone CR, str.splitlines() and some JavaScript at U+0085, U+2028 and U+2029. Valid JSON
// may hold a raw CR between tokens and those three raw inside strings, so a client's
// arguments or a child's result forwarded as written could end a line early for such a
// reader and smuggle a message of its own after it (probe JO1: a call the grants, schema
// and log never saw ran in a Python SDK child).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace las::transport {

// Rewrites `json_text`, one valid JSON text, so that no reader splits it: a raw CR (in
// valid JSON only whitespace between tokens) becomes a space, a raw U+0085, U+2028 or
// U+2029 (in valid JSON only inside a string) its \u escape. The JSON value is unchanged;
// a text without them is left as it is, byte for byte.
void EscapeLineBreaksOfOtherReaders(std::string& json_text);

// How many bytes EscapeLineBreaksOfOtherReaders adds to `json_text` (a CR becomes a space: it
// adds none). A bound on a written line (tools/page_budget.h) counts these too (probe JX1).
size_t LineBreakEscapeGrowth(std::string_view json_text);

}  // namespace las::transport
