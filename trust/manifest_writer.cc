#include "trust/manifest_writer.h"

#include <cstdio>
#include <string_view>

#include "base/json_string.h"
#include "trust/rfc3339.h"

namespace las::trust {
namespace {

// A JSON string literal (the manifest is UTF-8; ParseManifest rejects anything else).
std::string Quote(std::string_view text) {
  std::string out;
  AppendJsonString(text, out);
  return out;
}

std::string InlineList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += Quote(items[i]);
  }
  return out + "]";
}

std::string InlineObject(const std::map<std::string, std::string>& items) {
  if (items.empty()) return "{}";
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : items) {
    out += first ? " " : ", ";
    first = false;
    out += Quote(key) + ": " + Quote(value);
  }
  return out + " }";
}

// Appends `"key": value` lines at one indentation, with commas between them.
class Fields {
 public:
  Fields(std::string& out, int indent) : out_(out), pad_(static_cast<size_t>(indent), ' ') {}
  void Add(std::string_view key, const std::string& value) {
    if (!first_) out_ += ",\n";
    first_ = false;
    out_ += pad_ + Quote(key) + ": " + value;
  }
  void End() { out_ += "\n"; }

 private:
  std::string& out_;
  std::string pad_;
  bool first_ = true;
};

std::string ToolJson(const ToolBinding& tool, int indent) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::string out = pad + "{\n";
  Fields f(out, indent + 2);
  f.Add("name", Quote(tool.name));
  f.Add("input_schema_sha256", Quote(Sha256Hex(tool.input_schema_sha256)));
  f.Add("description_sha256", Quote(Sha256Hex(tool.description_sha256)));
  if (!tool.credential_templates.empty()) {
    f.Add("credential_templates", InlineObject(tool.credential_templates));
  }
  f.End();
  return out + pad + "}";
}

std::string SurfaceJson(const SurfaceBinding& s, int indent) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::string out = pad + "{\n";
  Fields f(out, indent + 2);
  f.Add("name", Quote(s.name));
  f.Add("command", Quote(s.command));
  f.Add("cwd", Quote(s.cwd));
  f.Add("argv", InlineList(s.argv));
  f.Add("env", InlineList(s.env));
  f.Add("binary_sha256", Quote(Sha256Hex(s.binary_sha256)));
  if (s.code) {
    f.Add("code_path", Quote(s.code->path));
    f.Add("code_sha256", Quote(Sha256Hex(s.code->sha256)));
  }
  std::string tools;
  if (s.tools.empty()) {
    tools = "[]";
  } else {
    tools = "[\n";
    for (size_t i = 0; i < s.tools.size(); ++i) {
      tools += ToolJson(s.tools[i], indent + 4);
      tools += i + 1 < s.tools.size() ? ",\n" : "\n";
    }
    tools += pad + "  ]";
  }
  f.Add("tools", tools);
  f.End();
  return out + pad + "}";
}

bool ToolsEqual(const ToolBinding& a, const ToolBinding& b) {
  return a.name == b.name && a.input_schema_sha256 == b.input_schema_sha256 &&
         a.description_sha256 == b.description_sha256 &&
         a.credential_templates == b.credential_templates;
}

bool SurfacesEqual(const SurfaceBinding& a, const SurfaceBinding& b) {
  if (a.name != b.name || a.command != b.command || a.cwd != b.cwd || a.argv != b.argv ||
      a.env != b.env || a.binary_sha256 != b.binary_sha256 ||
      a.code.has_value() != b.code.has_value() || a.tools.size() != b.tools.size()) {
    return false;
  }
  if (a.code && (a.code->path != b.code->path || a.code->sha256 != b.code->sha256)) return false;
  for (size_t i = 0; i < a.tools.size(); ++i) {
    if (!ToolsEqual(a.tools[i], b.tools[i])) return false;
  }
  return true;
}

}  // namespace

std::string SerializeManifest(const Manifest& manifest) {
  std::string out = "{\n";
  Fields f(out, 2);
  f.Add("schema_version", std::to_string(manifest.schema_version));
  f.Add("sequence", std::to_string(manifest.sequence));
  f.Add("expires_at", Quote(FormatRfc3339UtcMicros(manifest.expires_at_micros)));
  std::string surfaces;
  if (manifest.surfaces.empty()) {
    surfaces = "[]";
  } else {
    surfaces = "[\n";
    for (size_t i = 0; i < manifest.surfaces.size(); ++i) {
      surfaces += SurfaceJson(manifest.surfaces[i], 4);
      surfaces += i + 1 < manifest.surfaces.size() ? ",\n" : "\n";
    }
    surfaces += "  ]";
  }
  f.Add("surfaces", surfaces);
  f.End();
  return out + "}\n";
}

bool ManifestsEqual(const Manifest& a, const Manifest& b) {
  if (a.schema_version != b.schema_version || a.sequence != b.sequence ||
      a.expires_at_micros != b.expires_at_micros || a.surfaces.size() != b.surfaces.size()) {
    return false;
  }
  for (size_t i = 0; i < a.surfaces.size(); ++i) {
    if (!SurfacesEqual(a.surfaces[i], b.surfaces[i])) return false;
  }
  return true;
}

Status ValidateManifest(const Manifest& manifest) {
  Result<Manifest> parsed = ParseManifest(SerializeManifest(manifest));
  if (!parsed.ok()) return parsed.status();
  if (!ManifestsEqual(*parsed, manifest)) {
    // Only reachable for values the format cannot spell (e.g. an expiry outside years
    // 0001-9999); name it rather than write something that would read back differently.
    return InvalidArgument("manifest: the serialized form does not read back identically");
  }
  return Status::Ok();
}

}  // namespace las::trust
