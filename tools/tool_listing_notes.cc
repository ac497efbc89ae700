#include "tools/tool_listing_notes.h"

#include "base/printable_text.h"
#include "tools/catalog.h"

namespace las::tools {

namespace {

constexpr size_t kMostNamed = 5;

std::string Named(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < kMostNamed; ++i) {
    out += (i == 0 ? "" : ", ") + names[i];
  }
  if (names.size() > kMostNamed) out += " and " + std::to_string(names.size() - kMostNamed) + " more";
  return out;
}

// Invisible code points that ordinary text is made of (probe HD2): the joiners of emoji
// sequences and of Persian or Indic words (ZWJ, ZWNJ), the emoji and text variation
// selectors (U+FE00..U+FE0F), the soft hyphen.
constexpr std::string_view kOrdinaryInvisibles[] = {"\u200D", "\u200C", "\u00AD"};

bool IsVariationSelectorAt(std::string_view text, size_t i) {  // U+FE00..U+FE0F: EF B8 80..8F
  return i + 2 < text.size() && text[i] == '\xEF' && text[i + 1] == '\xB8' &&
         static_cast<unsigned char>(text[i + 2]) >= 0x80 && static_cast<unsigned char>(text[i + 2]) <= 0x8F;
}

// Line breaks and tabs lay a description out, and the invisibles above belong to its
// words; every other unsafe code point (base/printable_text.h: controls, bidirectional
// controls, tag characters, ...) hides or reorders what a reader sees.
bool HidesText(std::string_view description) {
  std::string laid_out;
  laid_out.reserve(description.size());
  for (size_t i = 0; i < description.size();) {
    const char c = description[i];
    if (c == '\n' || c == '\r' || c == '\t') {
      laid_out += ' ';
      ++i;
      continue;
    }
    if (IsVariationSelectorAt(description, i)) {
      i += 3;
      continue;
    }
    bool ordinary = false;
    for (std::string_view invisible : kOrdinaryInvisibles) {
      if (description.substr(i).starts_with(invisible)) {
        i += invisible.size();
        ordinary = true;
        break;
      }
    }
    if (!ordinary) laid_out += description[i++];
  }
  return !IsPrintableText(laid_out);
}

}  // namespace

bool IsPortableToolName(std::string_view qualified) {
  if (qualified.empty() || qualified.size() > kPortableToolNameBytes) return false;
  for (const char c : qualified) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::vector<std::string> ToolListingNotes(std::string_view surface, std::span<const trust::LiveTool> tools) {
  std::vector<std::string> unportable;
  std::vector<std::string> large;
  std::vector<std::string> hiding;
  std::vector<std::string> tasks;
  for (const trust::LiveTool& tool : tools) {
    if (tool.requires_tasks) tasks.push_back(trust::ShownChildName(tool.name));
    const std::string qualified = std::string(surface) + std::string(kNameSeparator) + tool.name;
    if (!IsPortableToolName(qualified)) unportable.push_back(trust::ShownChildName(qualified));
    if (!tool.description) continue;
    if (tool.description->size() > kLargeDescriptionBytes) {
      large.push_back(trust::ShownChildName(tool.name) + " (" + std::to_string(tool.description->size()) + " bytes)");
    }
    if (HidesText(*tool.description)) hiding.push_back(trust::ShownChildName(tool.name));
  }
  std::vector<std::string> notes;
  if (!unportable.empty()) {
    notes.push_back("listed under names that clients holding tool names to ^[a-zA-Z0-9_-]{1,64}$ "
                    "(Claude's, OpenAI's) refuse, with a \".\" or over 64 bytes: " + Named(unportable) +
                    "; such a client reaches them through las__call (`las serve --lazy`)");
  }
  if (!tasks.empty()) {
    notes.push_back("require task-augmented calls (execution.taskSupport \"required\"), which Las "
                    "(MCP 2024-11-05) does not offer, so every call of theirs fails: " + Named(tasks));
  }
  if (!large.empty()) {
    notes.push_back("descriptions over " + std::to_string(kLargeDescriptionBytes) +
                    " bytes, which every tools/list carries whole: " + Named(large));
  }
  if (!hiding.empty()) {
    notes.push_back("descriptions holding characters a terminal or client hides or reorders "
                    "(controls, bidirectional or invisible characters): " + Named(hiding));
  }
  return notes;
}

}  // namespace las::tools
