// Strict JSON: the only way Las reads JSON that crosses a trust boundary (release
// manifests, schemas to be canonicalized).
//
// "Strict" means, beyond RFC 8259 grammar: the input is well-formed UTF-8 (RFC 3629: no
// overlong forms, no UTF-8-encoded surrogates, nothing above U+10FFFF) and carries no
// byte-order mark; no object anywhere repeats a key; nothing but whitespace follows the
// value; containers nest at most `max_depth` deep; the text is at most `max_bytes` long;
// every number is finite as an IEEE double. Lenient parsers silently keep the first or
// the last duplicate key, so two readers of the same signed bytes could disagree; strict
// parsing makes "the bytes that were signed" and "the value that is used" one thing.
//
// Errors: every failure is Code::kInvalidArgument with a message naming what failed and,
// where known, the JSON path ("$.surfaces[1].name") or byte offset.
// Thread safety: free functions with no shared state.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "base/status.h"

namespace las::trust {

struct StrictJsonLimits {
  size_t max_bytes = 4 * 1024 * 1024;
  // Number of open containers allowed at once: 1 admits `[1]`, rejects `[[1]]`.
  size_t max_depth = 64;
};

// Ok if `text` is one strict JSON value (see above); InvalidArgument otherwise.
Status CheckStrictJson(std::string_view text, const StrictJsonLimits& limits = {});

// Byte offset of the first byte that does not begin or continue a well-formed UTF-8
// sequence (RFC 3629 table 3-7), or nullopt if all of `bytes` is well-formed.
std::optional<size_t> FindInvalidUtf8(std::string_view bytes);

}  // namespace las::trust
