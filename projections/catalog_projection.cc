#include "projections/catalog_projection.h"

#include "projections/state_codec.h"

#include <algorithm>
#include <vector>

namespace las::projections {

void CatalogProjection::WriteCanonical(CanonicalWriter& out) const {
  out.BeginObject();
  for (const auto& [name, s] : catalog_.surfaces) {  // std::map: ascending key order
    out.Key(name);
    out.BeginObject();
    out.Key("admitted");
    out.Bool(s.admitted);
    out.Key("detail");
    out.String(s.detail);
    out.Key("reason");
    out.String(s.reason);
    out.Key("release_sequence");
    out.Uint(s.release_sequence);
    out.Key("sequence");
    out.Uint(s.sequence);
    out.Key("tools");
    out.BeginObject();  // by tool name (unique within a surface)
    std::vector<const reducers::RecordedTool*> tools;
    for (const auto& tool : s.tools) tools.push_back(&tool);
    std::sort(tools.begin(), tools.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (size_t i = 0; i < tools.size(); ++i) {
      const auto* tool = tools[i];
      if (i > 0 && tools[i - 1]->name == tool->name) continue;  // keys must be unique
      out.Key(tool->name);
      out.BeginObject();
      // Only for a tool with templates: a log without any keeps its digest. Whether the
      // field was recorded at all says only which Las wrote the event: not in the digest.
      if (!tool->credential_templates_sha256.empty()) {
        out.Key("credential_templates_sha256");
        out.String(tool->credential_templates_sha256);
      }
      out.Key("description_sha256");
      out.String(tool->description_sha256);
      out.Key("input_schema_sha256");
      out.String(tool->input_schema_sha256);
      out.EndObject();
    }
    out.EndObject();
    out.EndObject();
  }
  out.EndObject();
}

bool CatalogProjection::Save(std::string& out) const {
  StateWriter w(&out);
  w.Uint(catalog_.surfaces.size());
  for (const auto& [name, s] : catalog_.surfaces) {
    w.String(name);
    w.Bool(s.admitted);
    w.Uint(s.release_sequence);
    w.String(s.reason);
    w.String(s.detail);
    w.Uint(s.sequence);
    w.Uint(s.tools.size());
    for (const auto& tool : s.tools) {
      w.String(tool.name);
      w.String(tool.input_schema_sha256);
      w.String(tool.description_sha256);
      w.String(tool.credential_templates_sha256);
      w.Bool(tool.credential_templates_recorded);
    }
  }
  return true;
}

bool CatalogProjection::Restore(std::string_view state) {
  StateReader in(state);
  uint64_t count = 0;
  std::string name;
  in.Uint(count);
  for (uint64_t i = 0; i < count && in.ok(); ++i) {
    reducers::RecordedSurface s;
    uint64_t tools = 0;
    in.String(name);
    in.Bool(s.admitted);
    in.Uint(s.release_sequence);
    in.String(s.reason);
    in.String(s.detail);
    in.Uint(s.sequence);
    in.Uint(tools);
    for (uint64_t t = 0; t < tools && in.ok(); ++t) {
      reducers::RecordedTool tool;
      in.String(tool.name);
      in.String(tool.input_schema_sha256);
      in.String(tool.description_sha256);
      in.String(tool.credential_templates_sha256);
      in.Bool(tool.credential_templates_recorded);
      if (in.ok()) s.tools.push_back(std::move(tool));
    }
    if (in.ok()) catalog_.surfaces[name] = std::move(s);
  }
  return in.done();
}

}  // namespace las::projections
