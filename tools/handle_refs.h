// Handles: how a value or result above a bound becomes an immutable handle that only its
// owner can read back (reducers/handles.h folds them; las__handle_read serves spans).
//
// Bounds (docs/STATE.md):
//   kInlineValueBytes   a state value or message body up to this many bytes of canonical
//                       JSON comes back inline; a larger one comes back as a handle;
//   kResultHandleBytes  a child's tools/call result larger than this reaches the client
//                       as a small result carrying a handle (GatewayOptions);
//   kMaxHandleSpan      las__handle_read returns at most this many bytes per call.
//
// A handle id names (owner, content): "h-" and 32 hex digits of SHA-256 over a
// domain-separated owner and content. The same content given to the same owner twice is
// one handle; another owner gets another id, and no id reveals its content.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "log/event.h"
#include "tools/decision_events.h"

namespace las::tools {

inline constexpr size_t kInlineValueBytes = 16 * 1024;
inline constexpr size_t kResultHandleBytes = 64 * 1024;
inline constexpr size_t kMaxHandleSpan = 64 * 1024;
inline constexpr std::string_view kJsonMediaType = "application/json";

std::string HandleIdFor(std::string_view owner_agent_id, std::string_view content);
// The same id from the content's SHA-256 in lowercase hex, known already.
std::string HandleIdForDigest(std::string_view owner_agent_id, std::string_view content_sha256_hex);

// `{"handle_id":...,"media_type":...,"size":N}`: how a record or result names a handle.
std::string HandleRefJson(std::string_view handle_id, std::string_view media_type, size_t size);

// A child's result turned into a handle owned by `actor`'s agent: the HandleCreated draft
// and the small tools/call result the client gets instead (its text says how to read the
// rest; structuredContent.handle is the reference; isError is kept).
struct ResultHandle {
  std::string id;
  log::EventDraft draft;
  std::string reply_json;
};
ResultHandle MakeResultHandle(const Actor& actor, std::string_view result_json, bool tool_error);

}  // namespace las::tools
