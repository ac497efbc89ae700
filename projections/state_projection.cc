#include "projections/state_projection.h"

#include "projections/state_codec.h"

namespace las::projections {
namespace {

void WriteSpace(CanonicalWriter& out, const reducers::KeySpace& space) {
  out.BeginObject();
  for (const auto& [key, record] : space) {  // std::map: ascending byte order
    const reducers::StateVersion& v = record.current;
    out.Key(key);
    out.BeginObject();
    out.Key("author_agent_id");
    out.String(v.author_agent_id);
    out.Key("reducer");
    out.String(v.reducer);
    out.Key("sequences");
    out.Uints(record.sequences);
    out.Key("time_micros");
    out.Int(v.time_micros);
    out.Key("value");
    out.String(v.value);
    out.Key("value_sha256");
    out.String(v.value_sha256);
    out.Key("version");
    out.Uint(v.version);
    out.EndObject();
  }
  out.EndObject();
}

}  // namespace

void StateProjection::WriteCanonical(CanonicalWriter& out) const {
  out.BeginObject();
  out.Key("blackboard");
  WriteSpace(out, store_.blackboard);
  out.Key("private");
  out.BeginObject();
  for (const auto& [agent, space] : store_.private_by_agent) {
    out.Key(agent);
    WriteSpace(out, space);
  }
  out.EndObject();
  out.Key("skipped");
  out.Uint(store_.skipped);
  out.EndObject();
}

}  // namespace las::projections

namespace las::projections {
namespace {

// Per key: the current version whole, then every version's sequence as the difference
// from the one before (they ascend, so the varints stay short) and its chain hash.
void SaveSpace(StateWriter& w, const reducers::KeySpace& space) {
  w.Uint(space.size());
  for (const auto& [key, record] : space) {
    const reducers::StateVersion& v = record.current;
    w.String(key);
    w.Int(v.time_micros);
    w.String(v.author_agent_id);
    w.String(v.reducer);
    w.String(v.value);
    w.String(v.value_sha256);
    w.Uint(record.sequences.size());
    uint64_t previous = 0;
    for (size_t i = 0; i < record.sequences.size(); ++i) {
      w.Uint(record.sequences[i] - previous);
      w.Fixed(record.hashes[i]);
      previous = record.sequences[i];
    }
  }
}

void RestoreSpace(StateReader& in, reducers::KeySpace& space) {
  uint64_t keys = 0;
  in.Uint(keys);
  for (uint64_t i = 0; i < keys && in.ok(); ++i) {
    std::string key;
    reducers::StateKey record;
    reducers::StateVersion& v = record.current;
    in.String(key);
    in.Int(v.time_micros);
    in.String(v.author_agent_id);
    in.String(v.reducer);
    in.String(v.value);
    in.String(v.value_sha256);
    uint64_t versions = 0;
    // Each version takes at least a byte and a hash: a count beyond the bytes left is damage.
    if (!in.Uint(versions) || versions == 0 ||
        versions > in.remaining() / (1 + sizeof(log::Hash))) {
      return in.Fail();
    }
    record.sequences.reserve(versions);
    record.hashes.reserve(versions);
    uint64_t sequence = 0;
    for (uint64_t j = 0; j < versions && in.ok(); ++j) {
      uint64_t delta = 0;
      if (!in.Uint(delta) || delta == 0) return in.Fail();  // sequences strictly ascend
      sequence += delta;
      record.sequences.push_back(sequence);
      in.Fixed(record.hashes.emplace_back());
    }
    v.version = versions;
    v.sequence = sequence;
    if (in.ok()) space[key] = std::move(record);
  }
}

}  // namespace

bool StateProjection::Save(std::string& out) const {
  StateWriter w(&out);
  SaveSpace(w, store_.blackboard);
  w.Uint(store_.private_by_agent.size());
  for (const auto& [agent, space] : store_.private_by_agent) {
    w.String(agent);
    SaveSpace(w, space);
  }
  w.Uint(store_.skipped);
  return true;
}

bool StateProjection::Restore(std::string_view state) {
  StateReader in(state);
  RestoreSpace(in, store_.blackboard);
  uint64_t agents = 0;
  in.Uint(agents);
  for (uint64_t i = 0; i < agents && in.ok(); ++i) {
    std::string agent;
    in.String(agent);
    RestoreSpace(in, store_.private_by_agent[agent]);
  }
  in.Uint(store_.skipped);
  reducers::RecountHeldBytes(store_);
  return in.done();
}

}  // namespace las::projections
