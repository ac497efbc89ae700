#include "tools/docs_source.h"

#include <string>

namespace las::tools {
namespace {

constexpr std::string_view kManual = R"(# Las operator manual

Las is one stdio MCP endpoint in front of many signed child servers ("surfaces").
Clients see `surface__tool`; every decision is an event in an append-only log.

- Start: `las serve --log DIR --registry FILE` with `LAS_RELEASE_MANIFEST`,
  `LAS_RELEASE_SIGNATURE`, `LAS_TRUST_STORE`, `LAS_RELEASE_WATERMARK`, `LAS_WORKSPACE`.
- See what is served: `las sources`, `las inspect catalog`, `las inspect calls`.
- Follow the log live: `las events tail -f`.
- Turn a source off: `las sources disable ID --reason R` (a running server takes it live
  through its operator socket), or the `las__disable_source` tool of a server started
  with `--admin`. It survives restart.
- Small context windows: `las serve --lazy` lists only `las__search`, `las__describe`,
  `las__list_tools`, `las__call` and `las__onboarding`.
)";

constexpr std::string_view kTroubleshooting = R"(# Troubleshooting

A surface missing from `tools/list`: the running server's `las__list_sources` (served
with `las serve --admin`) says why in its row, `No catalog loaded for X: <reason>`; so does
`las check X` from a shell, with no server needed (in the codes of docs/RELEASES.md:
`surface-unknown` where the server says `not-signed`).

- `no-release`: no LAS_RELEASE_* configured; only Las's own tools are served.
- `not-signed`: configured in the registry but not bound by the signed release.
- `not-in-registry`: signed, but the registry does not configure it (docs/REGISTRY.md).
- `skipped`: subtracted by LAS_ONLY / LAS_SKIP.
- `start-failed`, `list-failed`: the child did not start or answer tools/list.
- `digest-mismatch`, `tools-mismatch`: the child is not what was signed; re-draft and
  re-sign (`las release draft`, `las release sign`), then `las check`.
- `disabled` in `las sources`: an operator disabled it; `las sources enable ID`.
- `not-recorded` in `las sources`: that view reads the log, which holds no catalog of the
  surface (none was ever admitted); `las check X` says why.

A call refused with `source-disabled` in `las inspect calls --json`: the source is disabled.
)";

constexpr std::string_view kAuthoring = R"(# Authoring a surface

A surface is an MCP server over stdio. Las requires `tools/list`; `resources/list` and
`prompts/list` are optional (answer -32601 "Method not found" if you have none).

1. Keep the tool names free of `__`, give every tool an `inputSchema` object and a
   one-line description: clients search names first, then titles, descriptions and
   schema property names.
2. `las release draft --surface NAME -- /abs/command args` writes its manifest entry.
3. Add it to the registry (docs/REGISTRY.md): `las check` checks only configured surfaces.
4. `las release sign --secret-key KEY --bump`, then `las check NAME`, then restart
   `las serve`.
)";

constexpr std::string_view kTroublePrompt =
    "A Las surface is missing or failing. Run `las check` (or call `las__list_sources`), find "
    "the surface's reason code, look it up in las://docs/troubleshooting, and propose the "
    "one operator command that fixes it.";

constexpr std::string_view kAuthorPrompt =
    "Help me publish a new MCP server as a Las surface. Follow las://docs/authoring step by "
    "step and check each tool name, schema and description against its rules.";

}  // namespace

const std::vector<DocText>& DocResources() {
  static const std::vector<DocText> kDocs = {
      {"authoring", "las://docs/authoring", "How to write and sign a new surface", kAuthoring},
      {"operator-manual", "las://docs/operator-manual",
       "Starting Las, inspecting it and turning sources on and off", kManual},
      {"troubleshooting", "las://docs/troubleshooting",
       "What each reason code means and the command that fixes it", kTroubleshooting},
  };
  return kDocs;
}

const std::vector<DocText>& DocPrompts() {
  static const std::vector<DocText> kPrompts = {
      {"author-surface", "", "Walk through publishing a new surface", kAuthorPrompt},
      {"troubleshoot-surface", "", "Diagnose a missing or failing surface", kTroublePrompt},
  };
  return kPrompts;
}

const DocText* FindDoc(std::string_view name_or_uri) {
  for (const auto& doc : DocResources()) {
    if (doc.name == name_or_uri || doc.uri == name_or_uri) return &doc;
  }
  for (const auto& prompt : DocPrompts()) {
    if (prompt.name == name_or_uri) return &prompt;
  }
  return nullptr;
}

std::vector<CapabilityItem> DocResourceItems() {
  std::vector<CapabilityItem> items;
  for (const auto& doc : DocResources()) {
    items.push_back({std::string(doc.name), std::string(doc.description), std::string(doc.uri),
                     "text/markdown"});
  }
  return items;
}

std::vector<CapabilityItem> DocPromptItems() {
  std::vector<CapabilityItem> items;
  for (const auto& prompt : DocPrompts()) {
    items.push_back({std::string(prompt.name), std::string(prompt.description), "", ""});
  }
  return items;
}

std::vector<CapabilityItem> StdReducerItems() {
  return {
      {"append", "Append the value to the array at the key", "", ""},
      {"max", "Keep the larger of the stored and the written number", "", ""},
      {"merge_object", "Merge the written object's members into the stored object", "", ""},
      {"replace", "Replace the stored value with the written one", "", ""},
      {"set_union", "Union of the stored and written arrays, as a set", "", ""},
  };
}

}  // namespace las::tools
