// Event drafts for the decisions tools/ makes. One function per event kind, taking plain
// values, so every caller records the same fields the same way. Nothing here takes a
// secret: arguments are recorded before credential injection, bounded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "log/envelope.h"
#include "trust/release_verifier.h"
#include "trust/tool_binding_check.h"

namespace las::tools {

// Who did it: the session's agent and id, or the operator/system (empty).
struct Actor {
  std::string agent_id;
  std::string session_id;
};

// Bounded copy of a JSON text for the log: at most `limit` bytes, cut at a UTF-8 boundary.
struct BoundedText {
  std::string text;
  uint64_t full_size = 0;
  bool truncated = false;
};
BoundedText Bound(std::string_view text, size_t limit);

log::EventDraft ReleaseAcceptedEvent(const trust::AcceptedRelease& release);
// `key_id`, `sequence` and `manifest_sha256` (hex) of the refused release, empty / 0 when
// it was refused before its signature verified.
log::EventDraft ReleaseRejectedEvent(std::string_view key_id, uint64_t sequence,
                                     std::string_view manifest_sha256, std::string_view reason,
                                     std::string_view detail);
log::EventDraft WatermarkAdvancedEvent(std::string_view key_id, uint64_t from, uint64_t to,
                                       std::string_view manifest_sha256);
log::EventDraft SurfaceAdmittedEvent(const trust::AcceptedRelease& release,
                                     const trust::SurfaceBinding& surface);
log::EventDraft SurfaceRejectedEvent(std::string_view surface, uint64_t release_sequence,
                                     std::string_view reason, std::string_view detail);
// Each tool's digests, its credential templates' as `binding` (its signed surface; null:
// none) signs them, so that `las grant` from the log names the definition a server serves.
log::EventDraft CatalogLoadedEvent(std::string_view surface,
                                   const std::vector<trust::LiveTool>& live,
                                   const trust::SurfaceBinding* binding);
log::EventDraft ToolWithheldEvent(std::string_view surface, std::string_view tool,
                                  std::string_view reason);
// `restart_after_ms` < 0: Las will not start the surface again.
log::EventDraft SurfaceStoppedEvent(std::string_view surface, std::string_view reason,
                                    std::string_view detail, int64_t restart_after_ms);
log::EventDraft SessionOpenedEvent(const Actor& actor, std::string_view protocol_version,
                                   std::string_view client_name,
                                   std::string_view client_version,
                                   std::string_view transport, bool implicit_root);
log::EventDraft SessionClosedEvent(const Actor& actor, std::string_view reason);
// `actor`: the agent the refused client named, and no session.
log::EventDraft SessionRefusedEvent(const Actor& actor, std::string_view reason,
                                    std::string_view protocol_version,
                                    std::string_view client_name,
                                    std::string_view client_version,
                                    std::string_view transport);
// The reason recorded for a session whose process ended without closing it, by the next
// process to open the log.
inline constexpr std::string_view kSessionLost = "lost";
// SessionOpened's protocol version, client name and client version: cut to this many bytes,
// at a character boundary.
inline constexpr size_t kMaxRecordedClientTextBytes = 256;
// An unknown tool's name as ToolCallDenied records it: cut to this many bytes, at a
// character boundary.
inline constexpr size_t kMaxRecordedToolNameBytes = 256;
// ToolCallRequested records the client's request id (JSON text) as is: the endpoint
// refuses a longer one than kMaxRequestIdBytes (tools/mcp_endpoint.h) before any call.
log::EventDraft ToolCallRequestedEvent(const Actor& actor, std::string_view call_id,
                                       std::string_view surface, std::string_view tool,
                                       std::string_view definition_sha256,
                                       const BoundedText& arguments,
                                       std::string_view request_id);
// `detail`: what was wrong with an answer not relayed, in Las's words (never child text).
log::EventDraft ToolCallCompletedEvent(const Actor& actor, std::string_view call_id,
                                       fb::CallOutcome outcome, const BoundedText& result,
                                       int64_t duration_micros, std::string_view error_code,
                                       std::string_view detail = {});
// `detail`: where arguments failed their schema (value-free; trust/argument_schema.h).
// `request_id_json`: the client's JSON-RPC id, as JSON text.
log::EventDraft ToolCallDeniedEvent(const Actor& actor, std::string_view call_id,
                                    std::string_view surface, std::string_view tool,
                                    std::string_view reason, std::string_view detail,
                                    std::string_view request_id_json);

}  // namespace las::tools
