#include "reducers/handles.h"

#include "reducers/strings.h"

namespace las::reducers {

void Apply(Handles& handles, uint64_t sequence, const log::Hash& chain_hash,
           const fb::Envelope& event) {
  if (event.payload_type() != fb::EventPayload::HandleCreated) return;
  const auto* p = event.payload_as_HandleCreated();
  const std::string_view id = View(p->handle_id());
  const size_t content_size = p->content() != nullptr ? p->content()->size() : 0;
  if (id.empty() || handles.by_id.find(id) != handles.by_id.end() ||
      p->size() != content_size) {
    ++handles.skipped;
    return;
  }
  HandleRecord r;
  r.handle_id = std::string(id);
  r.owner_agent_id = Str(p->owner_agent_id());
  r.media_type = Str(p->media_type());
  r.size = p->size();
  r.content_sha256 = Str(p->content_sha256());
  r.sequence = sequence;
  r.event_hash = chain_hash;
  r.created_micros = event.time_micros();
  handles.by_id.emplace(r.handle_id, std::move(r));
}

const HandleRecord* FindOwnedHandle(const Handles& handles, std::string_view handle_id,
                                    std::string_view agent_id) {
  auto it = handles.by_id.find(handle_id);
  if (it == handles.by_id.end() || it->second.owner_agent_id != agent_id) return nullptr;
  return &it->second;
}

}  // namespace las::reducers
