// The stable JSON shapes of the source inventory, shared by the las.admin tools and
// `las sources --json` (docs/SOURCES.md). New fields may be added; existing ones keep
// their meaning.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tools/sources.h"

namespace las::tools {

inline constexpr size_t kDefaultSourcePage = 50;
inline constexpr size_t kDefaultPreview = 5;

// The compact, paged list: sources [offset, offset+limit) each with visibility,
// permissions, counts per capability kind, the first `preview` names per kind (sorted)
// and has_more flags; no schemas. Plus total, offset, next_offset (null at the end) and
// has_more. `indent` < 0: compact.
std::string SourceListJson(const std::vector<Source>& sources, size_t offset, size_t limit,
                           size_t preview, int indent = -1);
// One source's full inventory: every tool with its input schema (when known), every
// prompt, resource and reducer.
std::string SourceDetailJson(const Source& source, int indent = -1);
// A page of it for a tool answer (las__inspect_source): the header (counts are totals),
// then the entries from `offset` in the order tools, prompts, resources, reducers, as many
// as fit kMaxPageBytes of response (at least one), each in its kind's array; plus offset,
// next_offset (null at the end) and truncated.
std::string SourceDetailPageJson(const Source& source, size_t offset);

}  // namespace las::tools
