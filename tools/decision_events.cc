#include "tools/decision_events.h"

#include "tools/definition_digest.h"
#include "tools/event_fields.h"
#include "trust/digest.h"
#include "trust/rfc3339.h"

namespace las::tools {

using event_fields::Bytes;
using event_fields::FinishAs;
using event_fields::Str;

namespace {

using flatbuffers::FlatBufferBuilder;

// The credential templates' digest of `tool` as `binding` signs them ("" for none).
std::string TemplatesDigest(const trust::SurfaceBinding* binding, const std::string& tool) {
  const trust::ToolBinding* signed_tool = binding ? binding->FindTool(tool) : nullptr;
  return signed_tool ? CredentialTemplatesDigestHex(signed_tool->credential_templates) : "";
}

std::vector<flatbuffers::Offset<fb::ToolDigest>> Digests(FlatBufferBuilder& f,
                                                         const std::vector<trust::LiveTool>& live,
                                                         const trust::SurfaceBinding* binding) {
  std::vector<flatbuffers::Offset<fb::ToolDigest>> out;
  for (const auto& tool : live) {
    auto schema = trust::InputSchemaDigest(tool.input_schema_json);
    auto description = trust::DescriptionDigest(tool.description);
    out.push_back(fb::CreateToolDigest(
        f, Str(f, tool.name), Str(f, schema.ok() ? trust::Sha256Hex(*schema) : ""),
        Str(f, description.ok() ? trust::Sha256Hex(*description) : ""),
        Str(f, TemplatesDigest(binding, tool.name))));
  }
  return out;
}

}  // namespace

BoundedText Bound(std::string_view text, size_t limit) {
  BoundedText out;
  out.full_size = text.size();
  if (text.size() <= limit) {
    out.text = std::string(text);
    return out;
  }
  size_t cut = limit;
  // Step back over UTF-8 continuation bytes so the record stays valid text.
  while (cut > 0 && (static_cast<uint8_t>(text[cut]) & 0xC0) == 0x80) --cut;
  out.text = std::string(text.substr(0, cut));
  out.truncated = true;
  return out;
}

log::EventDraft ReleaseAcceptedEvent(const trust::AcceptedRelease& release) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto manifest = Bytes(f, release.manifest_bytes);
  auto signature = f.CreateVector(release.signature.data(), release.signature.size());
  auto public_key =
      f.CreateVector(release.public_key.bytes.data(), release.public_key.bytes.size());
  auto payload = fb::CreateReleaseAccepted(
      f, Str(f, release.key_id), release.manifest.sequence, manifest, signature,
      Str(f, trust::Sha256Hex(release.manifest_sha256)),
      Str(f, trust::FormatRfc3339UtcMicros(release.manifest.expires_at_micros)), public_key);
  return b.Finish(payload, "", "");
}

log::EventDraft ReleaseRejectedEvent(std::string_view key_id, uint64_t sequence,
                                     std::string_view manifest_sha256, std::string_view reason,
                                     std::string_view detail) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateReleaseRejected(f, Str(f, key_id), sequence, Str(f, manifest_sha256),
                                           Str(f, reason), Str(f, detail));
  return b.Finish(payload, "", "");
}

log::EventDraft WatermarkAdvancedEvent(std::string_view key_id, uint64_t from, uint64_t to,
                                       std::string_view manifest_sha256) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload =
      fb::CreateWatermarkAdvanced(f, Str(f, key_id), from, to, Str(f, manifest_sha256));
  return b.Finish(payload, "", "");
}

log::EventDraft SurfaceAdmittedEvent(const trust::AcceptedRelease& release,
                                     const trust::SurfaceBinding& surface) {
  log::EventBuilder b;
  auto& f = b.fbb();
  std::vector<flatbuffers::Offset<fb::ToolDigest>> tools;
  for (const auto& tool : surface.tools) {
    tools.push_back(fb::CreateToolDigest(f, Str(f, tool.name),
                                         Str(f, trust::Sha256Hex(tool.input_schema_sha256)),
                                         Str(f, trust::Sha256Hex(tool.description_sha256)),
                                         Str(f, CredentialTemplatesDigestHex(
                                                    tool.credential_templates))));
  }
  auto payload = fb::CreateSurfaceAdmitted(
      f, Str(f, surface.name), Str(f, release.key_id), release.manifest.sequence,
      Str(f, surface.command), Str(f, trust::Sha256Hex(surface.binary_sha256)),
      Str(f, surface.code ? trust::Sha256Hex(surface.code->sha256) : ""), f.CreateVector(tools));
  return b.Finish(payload, "", "");
}

log::EventDraft SurfaceRejectedEvent(std::string_view surface, uint64_t release_sequence,
                                     std::string_view reason, std::string_view detail) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateSurfaceRejected(f, Str(f, surface), release_sequence, Str(f, reason),
                                           Str(f, detail));
  return b.Finish(payload, "", "");
}

log::EventDraft CatalogLoadedEvent(std::string_view surface,
                                   const std::vector<trust::LiveTool>& live,
                                   const trust::SurfaceBinding* binding) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto tools = Digests(f, live, binding);
  auto payload = fb::CreateCatalogLoaded(f, Str(f, surface), f.CreateVector(tools));
  return b.Finish(payload, "", "");
}

log::EventDraft ToolWithheldEvent(std::string_view surface, std::string_view tool,
                                  std::string_view reason) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateToolWithheld(f, Str(f, surface), Str(f, tool), Str(f, reason));
  return b.Finish(payload, "", "");
}

log::EventDraft SurfaceStoppedEvent(std::string_view surface, std::string_view reason,
                                    std::string_view detail, int64_t restart_after_ms) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateSurfaceStopped(f, Str(f, surface), Str(f, reason), Str(f, detail),
                                          restart_after_ms);
  return b.Finish(payload, "", "");
}

log::EventDraft SessionOpenedEvent(const Actor& actor, std::string_view protocol_version,
                                   std::string_view client_name,
                                   std::string_view client_version,
                                   std::string_view transport, bool implicit_root) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateSessionOpened(f, Str(f, protocol_version), Str(f, client_name),
                                         Str(f, client_version), Str(f, transport), implicit_root);
  return FinishAs(b, payload, actor);
}

log::EventDraft SessionRefusedEvent(const Actor& actor, std::string_view reason,
                                    std::string_view protocol_version,
                                    std::string_view client_name,
                                    std::string_view client_version,
                                    std::string_view transport) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload =
      fb::CreateSessionRefused(f, Str(f, reason), Str(f, protocol_version), Str(f, client_name),
                               Str(f, client_version), Str(f, transport));
  return FinishAs(b, payload, actor);
}

log::EventDraft SessionClosedEvent(const Actor& actor, std::string_view reason) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateSessionClosed(f, Str(f, reason));
  return FinishAs(b, payload, actor);
}

log::EventDraft ToolCallRequestedEvent(const Actor& actor, std::string_view call_id,
                                       std::string_view surface, std::string_view tool,
                                       std::string_view definition_sha256,
                                       const BoundedText& arguments,
                                       std::string_view request_id) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateToolCallRequested(
      f, Str(f, call_id), Str(f, surface), Str(f, tool), Str(f, definition_sha256),
      Str(f, arguments.text), arguments.full_size, arguments.truncated,
      Str(f, request_id));
  return FinishAs(b, payload, actor);
}

log::EventDraft ToolCallCompletedEvent(const Actor& actor, std::string_view call_id,
                                       fb::CallOutcome outcome, const BoundedText& result,
                                       int64_t duration_micros, std::string_view error_code,
                                       std::string_view detail) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateToolCallCompleted(
      f, Str(f, call_id), outcome, Str(f, result.text),
      result.full_size, result.truncated, duration_micros, Str(f, error_code),
      detail.empty() ? flatbuffers::Offset<flatbuffers::String>() : Str(f, detail));
  return FinishAs(b, payload, actor);
}

log::EventDraft ToolCallDeniedEvent(const Actor& actor, std::string_view call_id,
                                    std::string_view surface, std::string_view tool,
                                    std::string_view reason, std::string_view detail,
                                    std::string_view request_id_json) {
  log::EventBuilder b;
  auto& f = b.fbb();
  auto payload = fb::CreateToolCallDenied(f, Str(f, call_id), Str(f, surface), Str(f, tool),
                                          Str(f, reason), Str(f, detail),
                                          Str(f, request_id_json));
  return FinishAs(b, payload, actor);
}

}  // namespace las::tools
