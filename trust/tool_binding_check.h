// Does a child's live tools/list equal what the release signed for its surface?
//
// Compared exactly, per tool name: the set of names (an extra or a missing tool fails),
// the canonical SHA-256 of the tool's inputSchema, and the canonical SHA-256 of its
// description — the digest definitions of docs/MANIFEST.md:
//
//   input_schema_sha256 = SHA-256(JCS(inputSchema))
//   description_sha256  = SHA-256(JCS(description as a JSON string)), or SHA-256("null")
//                         when the child sends no description
//
// Any difference is kToolsMismatch; the detail lists every difference found (sorted by
// tool name, at most kMaxReportedToolDifferences) so one `las check` run shows them all.
//
// Thread safety: free functions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "trust/digest.h"
#include "trust/manifest.h"
#include "trust/reason.h"

namespace las::trust {

inline constexpr size_t kMaxReportedToolDifferences = 16;

// One entry of a child's tools/list result.
struct LiveTool {
  std::string name;
  std::string input_schema_json;           // the raw JSON text of inputSchema
  std::optional<std::string> description;  // the decoded string; nullopt if absent
  // `execution.taskSupport` is "required" (MCP 2025-11 tasks): a plain call fails, and Las
  // (protocol 2024-11-05) offers no tasks. Unsigned: only for draft's and check's notes.
  bool requires_tasks = false;
};

// The digests a manifest pins, computed from live values (for `las release draft`).
// InvalidArgument if the schema is not strict JSON / the description is not UTF-8.
Result<Sha256Digest> InputSchemaDigest(std::string_view input_schema_json);
Result<Sha256Digest> DescriptionDigest(const std::optional<std::string>& description);

// A name the child listed, as a detail may carry it: printable (base/printable_text.h) and
// at most 128 bytes (then "..."), its `"` and `\` escaped, so that inside a detail's
// quotes it can neither close them nor draw on the operator's terminal.
std::string ShownChildName(std::string_view child_name);

// Accepted iff `live` names exactly the tools of `surface` with equal digests.
Verdict CheckToolList(const SurfaceBinding& surface, std::span<const LiveTool> live);

}  // namespace las::trust
