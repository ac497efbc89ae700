#include "projections/calls_projection.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "base/hex.h"
#include "projections/state_codec.h"

namespace las::projections {

void CallsProjection::WriteCanonical(CanonicalWriter& out) const {
  // The open calls are a hash map: visit them in key order without copying them.
  using Entry = std::pair<const std::string, reducers::OpenCall>;
  std::vector<const Entry*> sorted;
  sorted.reserve(summary_.open.size());
  for (const auto& entry : summary_.open) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(),
            [](const Entry* a, const Entry* b) { return a->first < b->first; });

  out.BeginObject();
  out.Key("completed");
  out.Uint(summary_.completed);
  out.Key("denied");
  out.Uint(summary_.denied);
  out.Key("ledger_hash");
  out.String(ToHex(summary_.ledger_hash));
  out.Key("open");
  out.BeginObject();
  for (const Entry* entry : sorted) {
    const reducers::OpenCall& c = entry->second;
    out.Key(entry->first);
    out.BeginObject();
    out.Key("agent_id");
    out.String(c.agent_id);
    out.Key("requested_sequence");
    out.Uint(c.requested_sequence);
    out.Key("session_id");
    out.String(c.session_id);
    out.Key("surface");
    out.String(c.surface);
    out.Key("tool");
    out.String(c.tool);
    out.EndObject();
  }
  out.EndObject();
  out.Key("requested");
  out.Uint(summary_.requested);
  out.EndObject();
}

// State: requested, completed, denied, the ledger hash (32 bytes as a string), the number
// of open calls, then per open call (in the hash map's order; order does not matter on
// restore) its id and fields.
bool CallsProjection::Save(std::string& out) const {
  StateWriter w(&out);
  w.Uint(summary_.requested);
  w.Uint(summary_.completed);
  w.Uint(summary_.denied);
  w.String(std::string_view(reinterpret_cast<const char*>(summary_.ledger_hash.data()),
                            summary_.ledger_hash.size()));
  w.Uint(summary_.open.size());
  for (const auto& [id, c] : summary_.open) {
    w.String(id);
    w.String(c.surface);
    w.String(c.tool);
    w.String(c.agent_id);
    w.String(c.session_id);
    w.Uint(c.requested_sequence);
  }
  return true;
}

bool CallsProjection::Restore(std::string_view state) {
  StateReader in(state);
  uint64_t count = 0;
  std::string hash;
  in.Uint(summary_.requested);
  in.Uint(summary_.completed);
  in.Uint(summary_.denied);
  if (!in.String(hash) || hash.size() != summary_.ledger_hash.size()) return false;
  std::memcpy(summary_.ledger_hash.data(), hash.data(), hash.size());
  if (!in.Uint(count) || count > state.size()) return false;  // each record takes bytes
  summary_.open.reserve(count);
  std::string id;
  for (uint64_t i = 0; i < count && in.ok(); ++i) {
    reducers::OpenCall c;
    in.String(id);
    in.String(c.surface);
    in.String(c.tool);
    in.String(c.agent_id);
    in.String(c.session_id);
    in.Uint(c.requested_sequence);
    if (in.ok() && !summary_.open.try_emplace(id, std::move(c)).second) return false;
  }
  return in.done();
}

}  // namespace las::projections
