#include "tools/handle_refs.h"

#include "base/json_string.h"
#include "tools/coordination_events.h"
#include "trust/digest.h"

namespace las::tools {

std::string HandleIdFor(std::string_view owner_agent_id, std::string_view content) {
  return HandleIdForDigest(owner_agent_id, trust::Sha256Hex(trust::Sha256(content)));
}

std::string HandleIdForDigest(std::string_view owner_agent_id, std::string_view content_sha256_hex) {
  std::string input = "las-handle-v1";
  input.push_back('\0');
  input += std::to_string(owner_agent_id.size());
  input.push_back(':');
  input += owner_agent_id;
  input += content_sha256_hex;
  return "h-" + trust::Sha256Hex(trust::Sha256(input)).substr(0, 32);
}

std::string HandleRefJson(std::string_view handle_id, std::string_view media_type, size_t size) {
  std::string out = "{\"handle_id\":";
  AppendJsonString(handle_id, out);
  out += ",\"media_type\":";
  AppendJsonString(media_type, out);
  out += ",\"size\":" + std::to_string(size) + "}";
  return out;
}

ResultHandle MakeResultHandle(const Actor& actor, std::string_view result_json, bool tool_error) {
  const std::string id = HandleIdFor(actor.agent_id, result_json);
  ResultHandle out;
  out.id = id;
  out.draft = HandleCreatedEvent(actor, id, actor.agent_id, kJsonMediaType, result_json);
  const std::string ref = HandleRefJson(id, kJsonMediaType, result_json.size());
  std::string text = "The result is " + std::to_string(result_json.size()) +
                     " bytes, more than " + std::to_string(kResultHandleBytes) +
                     ", and was stored as handle " + id +
                     ". Read it with las__handle_read (handle_id, offset, length).";
  std::string reply = "{\"content\":[{\"type\":\"text\",\"text\":";
  AppendJsonString(text, reply);
  reply += "}],\"structuredContent\":{\"handle\":" + ref + "}";
  if (tool_error) reply += ",\"isError\":true";
  reply += "}";
  out.reply_json = std::move(reply);
  return out;
}

}  // namespace las::tools
