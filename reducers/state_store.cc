#include "reducers/state_store.h"

#include <algorithm>

#include "reducers/strings.h"

namespace las::reducers {
namespace {

void Hold(StateStore& store, std::string_view key, const StateVersion& version) {
  auto it = store.held_bytes.find(version.author_agent_id);
  if (it == store.held_bytes.end()) {
    it = store.held_bytes.emplace(version.author_agent_id, 0).first;
  }
  it->second += HeldBytesOf(key, version.value);
}

void Release(StateStore& store, std::string_view key, const StateVersion& version) {
  auto it = store.held_bytes.find(version.author_agent_id);
  if (it == store.held_bytes.end()) return;
  const uint64_t bytes = HeldBytesOf(key, version.value);
  it->second -= std::min(it->second, bytes);
  if (it->second == 0) store.held_bytes.erase(it);
}

}  // namespace

void Apply(StateStore& store, uint64_t sequence, const log::Hash& chain_hash,
           const fb::Envelope& event) {
  if (event.payload_type() != fb::EventPayload::StateWritten) return;
  const auto* p = event.payload_as_StateWritten();
  KeySpace& space = p->scope() == fb::StateScope::Blackboard
                        ? store.blackboard
                        : store.private_by_agent[Str(p->owner_agent_id())];
  const std::string_view key = View(p->key());
  auto it = space.find(key);
  const uint64_t current = it == space.end() ? 0 : it->second.current.version;
  if (p->version() != current + 1) {
    ++store.skipped;
    return;
  }
  if (it == space.end()) {
    it = space.emplace(std::string(key), StateKey{}).first;
  } else {
    Release(store, it->first, it->second.current);
  }
  ReadVersion(sequence, event, it->second.current);
  it->second.sequences.push_back(sequence);
  it->second.hashes.push_back(chain_hash);
  Hold(store, it->first, it->second.current);
}

void RecountHeldBytes(StateStore& store) {
  store.held_bytes.clear();
  auto count = [&](const KeySpace& space) {
    for (const auto& [key, state] : space) Hold(store, key, state.current);
  };
  count(store.blackboard);
  for (const auto& [agent, space] : store.private_by_agent) count(space);
}

uint64_t HeldBytes(const StateStore& store, std::string_view agent_id) {
  auto it = store.held_bytes.find(agent_id);
  return it == store.held_bytes.end() ? 0 : it->second;
}

void ReadVersion(uint64_t sequence, const fb::Envelope& event, StateVersion& into) {
  const auto* p = event.payload_as_StateWritten();
  into.version = p->version();
  into.sequence = sequence;
  into.time_micros = event.time_micros();
  Assign(into.author_agent_id, event.agent_id());
  Assign(into.reducer, p->reducer());
  Assign(into.value, p->value());
  Assign(into.value_sha256, p->value_sha256());
}

const KeySpace* SpaceOf(const StateStore& store, bool blackboard, std::string_view agent_id) {
  if (blackboard) return &store.blackboard;
  auto it = store.private_by_agent.find(agent_id);
  return it == store.private_by_agent.end() ? nullptr : &it->second;
}

const StateKey* FindKey(const StateStore& store, bool blackboard, std::string_view agent_id,
                        std::string_view key) {
  const KeySpace* space = SpaceOf(store, blackboard, agent_id);
  if (space == nullptr) return nullptr;
  auto it = space->find(key);
  return it == space->end() ? nullptr : &it->second;
}

HistoryPage History(const StateKey& key, uint64_t after_version, size_t limit) {
  HistoryPage page;
  // Versions are dense from 1: version v sits at index v - 1.
  const size_t count = key.sequences.size();
  size_t index = static_cast<size_t>(std::min<uint64_t>(after_version, count));
  for (; index < count && page.versions.size() < limit; ++index) {
    page.versions.push_back({index + 1, key.sequences[index], key.hashes[index]});
  }
  page.more = index < count;
  return page;
}

}  // namespace las::reducers
