// What an operator should know, before signing, about how a surface's tools reach
// clients (`las release draft` notes, `las check`'s tools row):
//
// - qualified names (`surface__tool`) that MCP clients holding tool names to
//   ^[a-zA-Z0-9_-]{1,64}$ (Claude's and OpenAI's) refuse: a "." or more than 64 bytes,
//   both of which a manifest may bind (docs/MANIFEST.md);
// - tools that require task-augmented calls (LiveTool::requires_tasks), which always fail;
// - descriptions longer than kLargeDescriptionBytes, which every tools/list carries whole;
// - descriptions holding characters a terminal or a client's view hides or reorders
//   (base/printable_text.h's unsafe code points; not a line break or tab, nor the ZWJ,
//   ZWNJ, variation selectors and soft hyphens ordinary emoji and words are made of).
//
// Notes, never refusals: the release binds what the child serves. Names are shown as
// ShownChildName has them.
//
// Thread safety: pure function.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trust/tool_binding_check.h"

namespace las::tools {

inline constexpr size_t kPortableToolNameBytes = 64;
inline constexpr size_t kLargeDescriptionBytes = 16 * 1024;

// Does every common MCP client take `qualified` as a tool name?
bool IsPortableToolName(std::string_view qualified);

// One note per kind of finding, each naming up to 5 tools (then "and N more").
std::vector<std::string> ToolListingNotes(std::string_view surface, std::span<const trust::LiveTool> tools);

}  // namespace las::tools
