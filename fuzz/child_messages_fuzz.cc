// Feeds: what a child MCP server writes on its stdout, through what Las does with it:
// transport::LineFramer (a small line limit, so over-long lines occur), ParseMessage per
// line (SalvageTopLevelMember for a cut line), and each response's `result` through the
// launcher's readers (tools/surface_launcher.h: ParseLiveTools on the result and on its
// `tools` member, ParseToolTitles, DeclaresCapability, ParseCapabilityList) and the
// result checks (Skarbiec's CheckSkarbiecResult, EchoesCredential).
// Checks, besides no crash: every live tool's inputSchema text is strict JSON whose
// canonical digest can be taken (trust::InputSchemaDigest), as CheckToolList needs.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "tools/credentials.h"
#include "tools/surface_launcher.h"
#include "transport/json_text.h"
#include "transport/jsonrpc.h"
#include "transport/line_reader.h"
#include "trust/skarbiec_policy.h"
#include "trust/tool_binding_check.h"

namespace {

namespace t = las::transport;

void CheckTools(std::string_view tools_json) {
  auto live = las::tools::ParseLiveTools(tools_json);
  (void)las::tools::ParseToolTitles(tools_json);
  if (!live.ok()) return;
  for (const auto& tool : *live) {
    LAS_FUZZ_CHECK(las::trust::InputSchemaDigest(tool.input_schema_json).ok(),
                   "a live tool's inputSchema has no canonical digest");
    (void)las::trust::DescriptionDigest(tool.description);
  }
}

void OnResult(std::string_view result) {
  CheckTools(result);
  std::vector<t::JsonMember> members;
  if (t::ObjectMembers(result, &members) == t::JsonTextError::kNone) {
    for (const auto& member : members) {
      if (member.key == "tools") CheckTools(member.raw);
    }
  }
  (void)las::tools::DeclaresCapability(result, "resources");
  (void)las::tools::ParseCapabilityList(result, "resources");
  (void)las::tools::ParseCapabilityList(result, "prompts");
  for (const auto& pinned : las::trust::SkarbiecPinnedTools()) {
    (void)las::trust::CheckSkarbiecResult(pinned.name, result);
  }
  (void)las::tools::EchoesCredential(result, {"secret-credential-value"});
}

void OnLine(const t::LineEvent& event) {
  if (event.kind == t::LineEvent::Kind::kTooLong) {
    (void)t::SalvageTopLevelMember(event.bytes, "id");
    return;
  }
  const t::ParsedLine parsed = t::ParseMessage(event.bytes);
  if (!parsed.ok()) return;
  const t::Message& m = *parsed.message;
  if (m.kind == t::MessageKind::kResponse && !m.is_error) OnResult(m.result);
  if (m.kind == t::MessageKind::kNotification) (void)t::CancelledRequestId(m.params);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  t::LineFramer framer(4096);
  // Two reads, split where the first byte says, as a pipe may deliver them.
  const size_t split = size == 0 ? 0 : data[0] % (size + 1);
  framer.Feed(input.substr(0, split), OnLine);
  framer.Feed(input.substr(split), OnLine);
  framer.Finish(OnLine);
  LAS_FUZZ_CHECK(framer.buffered_bytes() == 0, "Finish left bytes in the framer");
  return 0;
}
