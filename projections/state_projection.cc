#include "projections/state_projection.h"

#include <cstdio>

#include "projections/state_codec.h"

namespace las::projections {
namespace {

void WriteSpace(CanonicalWriter& out, const reducers::KeySpace& space) {
  out.BeginObject();
  for (const auto& [key, record] : space) {  // std::map: ascending byte order
    out.Key(key);
    out.BeginObject();
    out.Key("versions");
    out.BeginObject();
    for (const auto& v : record.versions) {
      const bool current = &v == &record.current();
      char padded[24];
      std::snprintf(padded, sizeof padded, "%020llu", static_cast<unsigned long long>(v.version));
      out.Key(padded);
      out.BeginObject();
      out.Key("author_agent_id");
      out.String(v.author_agent_id);
      out.Key("reducer");
      out.String(v.reducer);
      out.Key("sequence");
      out.Uint(v.sequence);
      out.Key("time_micros");
      out.Int(v.time_micros);
      if (current) {
        out.Key("value");
        out.String(v.value);
      }
      out.Key("value_sha256");
      out.String(v.value_sha256);
      out.EndObject();
    }
    out.EndObject();
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

void SaveSpace(StateWriter& w, const reducers::KeySpace& space) {
  w.Uint(space.size());
  for (const auto& [key, record] : space) {
    w.String(key);
    w.Uint(record.versions.size());
    for (const auto& v : record.versions) {
      w.Uint(v.version);
      w.Uint(v.sequence);
      w.Int(v.time_micros);
      w.String(v.author_agent_id);
      w.String(v.reducer);
      w.String(v.value);
      w.String(v.value_sha256);
    }
  }
}

void RestoreSpace(StateReader& in, reducers::KeySpace& space) {
  uint64_t keys = 0;
  in.Uint(keys);
  for (uint64_t i = 0; i < keys && in.ok(); ++i) {
    std::string key;
    uint64_t versions = 0;
    in.String(key);
    in.Uint(versions);
    reducers::StateKey record;
    for (uint64_t j = 0; j < versions && in.ok(); ++j) {
      reducers::StateVersion v;
      in.Uint(v.version);
      in.Uint(v.sequence);
      in.Int(v.time_micros);
      in.String(v.author_agent_id);
      in.String(v.reducer);
      in.String(v.value);
      in.String(v.value_sha256);
      record.versions.push_back(std::move(v));
    }
    if (in.ok() && !record.versions.empty()) space[key] = std::move(record);
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
  return in.done();
}

}  // namespace las::projections
