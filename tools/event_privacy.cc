#include "tools/event_privacy.h"

#include "log/envelope.h"
#include "log/events_generated.h"

namespace las::tools {
namespace {

std::string_view View(const flatbuffers::String* text) {
  return text == nullptr ? std::string_view() : text->string_view();
}

}  // namespace

std::vector<std::string_view> WithheldFrom(const log::StoredEvent& event,
                                           std::string_view agent_id) {
  const fb::Envelope& envelope = log::EnvelopeOf(event);
  const bool own = View(envelope.agent_id()) == agent_id;
  switch (envelope.payload_type()) {
    case fb::EventPayload::StateWritten: {
      const auto* p = envelope.payload_as_StateWritten();
      if (p->scope() == fb::StateScope::Private && View(p->owner_agent_id()) != agent_id) {
        return {"key", "value", "value_sha256"};
      }
      return {};
    }
    case fb::EventPayload::MessageSent:
      if (own || View(envelope.payload_as_MessageSent()->to_agent_id()) == agent_id) return {};
      return {"subject", "body"};
    case fb::EventPayload::HandleCreated:
      if (View(envelope.payload_as_HandleCreated()->owner_agent_id()) == agent_id) return {};
      return {"handle_id", "content", "content_sha256"};
    case fb::EventPayload::ToolCallRequested:
      return own ? std::vector<std::string_view>{} : std::vector<std::string_view>{"arguments"};
    case fb::EventPayload::ToolCallCompleted:
      return own ? std::vector<std::string_view>{} : std::vector<std::string_view>{"result"};
    case fb::EventPayload::ToolCallDenied:
      return own ? std::vector<std::string_view>{} : std::vector<std::string_view>{"detail"};
    default:
      return {};
  }
}

}  // namespace las::tools
