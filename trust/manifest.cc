#include "trust/manifest.h"

#include <algorithm>
#include <exception>
#include <initializer_list>
#include <new>
#include <set>
#include <utility>

#include "base/out_of_memory.h"
#include "trust/rfc3339.h"
#include "trust/strict_json_internal.h"

namespace las::trust {
namespace {

using internal::Json;

Status Bad(const std::string& path, const std::string& why) {
  return InvalidArgument("manifest: " + path + ": " + why);
}

bool AllChars(std::string_view s, bool (*ok)(char)) {
  return std::all_of(s.begin(), s.end(), ok);
}
bool IsLowerOrDigit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

const char* TypeName(const Json& v) { return v.type_name(); }

// Every key of `object` must be one of `known`: a field this version does not define
// could carry meaning a newer signer intended and this reader would ignore.
Status CheckKnownFields(const Json& object, const std::string& path,
                        std::initializer_list<std::string_view> known) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (std::find(known.begin(), known.end(), it.key()) == known.end()) {
      return Bad(path + "." + it.key(), "unknown field (schema_version " +
                                            std::to_string(kManifestSchemaVersion) +
                                            " does not define it)");
    }
  }
  return Status::Ok();
}

Result<const Json*> Field(const Json& object, const std::string& path, const char* key,
                          Json::value_t type, const char* type_word) {
  auto it = object.find(key);
  if (it == object.end()) return Bad(path + "." + key, "missing required field");
  if (it->type() != type) {
    return Bad(path + "." + key, std::string("must be ") + type_word + ", not " + TypeName(*it));
  }
  return &*it;
}

Result<std::string> StringField(const Json& object, const std::string& path, const char* key) {
  Result<const Json*> v = Field(object, path, key, Json::value_t::string, "a string");
  if (!v.ok()) return v.status();
  return (*v)->get<std::string>();
}

Result<const Json*> ArrayField(const Json& object, const std::string& path, const char* key) {
  return Field(object, path, key, Json::value_t::array, "an array");
}

// A JSON integer (not 1.0, not "1") in [min, max].
Result<uint64_t> IntegerField(const Json& object, const std::string& path, const char* key,
                              uint64_t min, uint64_t max) {
  const std::string where = path + "." + key;
  auto it = object.find(key);
  if (it == object.end()) return Bad(where, "missing required field");
  if (it->is_number_float()) {
    // Out of range whatever its form: an integer beyond 64 bits (18446744073709551617) is
    // read as a double too, and is no fraction.
    const double v = it->get<double>();
    if (!(v >= static_cast<double>(min) && v <= static_cast<double>(max))) {
      return Bad(where, "must be between " + std::to_string(min) + " and " + std::to_string(max));
    }
    return Bad(where, "must be an integer, not a fraction or exponent form");
  }
  if (!it->is_number_integer()) return Bad(where, std::string("must be an integer, not ") + TypeName(*it));
  if (it->is_number_integer() && !it->is_number_unsigned() && it->get<int64_t>() < 0) {
    return Bad(where, "must be at least " + std::to_string(min));
  }
  const uint64_t value = it->get<uint64_t>();
  if (value < min || value > max) {
    return Bad(where, "must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return value;
}

Result<Sha256Digest> DigestField(const Json& object, const std::string& path, const char* key) {
  Result<std::string> text = StringField(object, path, key);
  if (!text.ok()) return text.status();
  std::optional<Sha256Digest> digest = Sha256FromHex(*text);
  if (!digest) return Bad(path + "." + key, "must be 64 lowercase hex characters (SHA-256)");
  return *digest;
}

Result<std::string> AbsolutePathField(const Json& object, const std::string& path, const char* key) {
  Result<std::string> text = StringField(object, path, key);
  if (!text.ok()) return text.status();
  const std::string where = path + "." + key;
  if (text->empty() || text->front() != '/') return Bad(where, "must be an absolute path");
  if (text->find('\0') != std::string::npos) return Bad(where, "must not contain NUL");
  if (text->size() > kMaxPathBytes) return Bad(where, "is longer than " + std::to_string(kMaxPathBytes) + " bytes");
  return text;
}

Result<ToolBinding> ParseTool(const Json& v, const std::string& path) {
  if (!v.is_object()) return Bad(path, std::string("must be an object, not ") + TypeName(v));
  LAS_RETURN_IF_ERROR(CheckKnownFields(
      v, path, {"name", "input_schema_sha256", "description_sha256", "credential_templates"}));
  ToolBinding tool;
  Result<std::string> name = StringField(v, path, "name");
  if (!name.ok()) return name.status();
  if (!IsValidToolName(*name)) {
    return Bad(path + ".name", "\"" + *name + "\" is not a tool name ([A-Za-z0-9_.-], 1 to 128)");
  }
  tool.name = std::move(name).value();
  Result<Sha256Digest> schema = DigestField(v, path, "input_schema_sha256");
  if (!schema.ok()) return schema.status();
  tool.input_schema_sha256 = *schema;
  Result<Sha256Digest> description = DigestField(v, path, "description_sha256");
  if (!description.ok()) return description.status();
  tool.description_sha256 = *description;
  if (v.contains("credential_templates")) {
    const std::string tpath = path + ".credential_templates";
    Result<const Json*> templates =
        Field(v, path, "credential_templates", Json::value_t::object, "an object");
    if (!templates.ok()) return templates.status();
    for (auto it = (*templates)->begin(); it != (*templates)->end(); ++it) {
      const std::string where = tpath + "." + it.key();
      if (!IsValidArgumentName(it.key())) {
        return Bad(where, "is not an argument name ([A-Za-z_][A-Za-z0-9_-]*, up to 128)");
      }
      if (!it->is_string()) return Bad(where, std::string("must be a string, not ") + TypeName(*it));
      const std::string credential = it->get<std::string>();
      if (!IsValidCredentialName(credential)) {
        return Bad(where, "must name a credential ([a-z0-9][a-z0-9_.-]*, up to 64); "
                          "a manifest never holds a credential value");
      }
      tool.credential_templates.emplace(it.key(), credential);
    }
  }
  return tool;
}

Result<SurfaceBinding> ParseSurface(const Json& v, const std::string& path) {
  if (!v.is_object()) return Bad(path, std::string("must be an object, not ") + TypeName(v));
  LAS_RETURN_IF_ERROR(CheckKnownFields(v, path,
                                       {"name", "command", "cwd", "argv", "env", "binary_sha256",
                                        "code_path", "code_sha256", "tools"}));
  SurfaceBinding s;
  Result<std::string> name = StringField(v, path, "name");
  if (!name.ok()) return name.status();
  if (!IsValidSurfaceName(*name)) {
    return Bad(path + ".name", "\"" + *name +
                                   "\" is not a surface name ([a-z0-9_-], 1 to 64, no \"__\", "
                                   "no \"_\" at the end, not \"las\")");
  }
  s.name = std::move(name).value();

  Result<std::string> command = AbsolutePathField(v, path, "command");
  if (!command.ok()) return command.status();
  s.command = std::move(command).value();
  Result<std::string> cwd = AbsolutePathField(v, path, "cwd");
  if (!cwd.ok()) return cwd.status();
  s.cwd = std::move(cwd).value();

  Result<const Json*> argv = ArrayField(v, path, "argv");
  if (!argv.ok()) return argv.status();
  if ((*argv)->empty()) return Bad(path + ".argv", "must not be empty (argv[0] is the command)");
  if ((*argv)->size() > kMaxArgv) return Bad(path + ".argv", "has more than " + std::to_string(kMaxArgv) + " entries");
  for (size_t i = 0; i < (*argv)->size(); ++i) {
    const Json& a = (**argv)[i];
    const std::string where = path + ".argv[" + std::to_string(i) + "]";
    if (!a.is_string()) return Bad(where, std::string("must be a string, not ") + TypeName(a));
    std::string arg = a.get<std::string>();
    if (arg.find('\0') != std::string::npos) return Bad(where, "must not contain NUL");
    if (arg.size() > kMaxArgBytes) return Bad(where, "is longer than " + std::to_string(kMaxArgBytes) + " bytes");
    s.argv.push_back(std::move(arg));
  }
  if (s.argv[0] != s.command) return Bad(path + ".argv[0]", "must equal command exactly");

  Result<const Json*> env = ArrayField(v, path, "env");
  if (!env.ok()) return env.status();
  if ((*env)->size() > kMaxEnvNames) return Bad(path + ".env", "has more than " + std::to_string(kMaxEnvNames) + " names");
  std::set<std::string> env_seen;
  for (size_t i = 0; i < (*env)->size(); ++i) {
    const Json& e = (**env)[i];
    const std::string where = path + ".env[" + std::to_string(i) + "]";
    if (!e.is_string()) return Bad(where, std::string("must be a string, not ") + TypeName(e));
    std::string env_name = e.get<std::string>();
    if (!IsValidEnvName(env_name)) {
      return Bad(where, QuotedEnvEntry(env_name) + " is not an environment variable name a child may "
                        "receive ([A-Za-z_][A-Za-z0-9_]*, up to 128; PATH is fixed by Las; "
                        "LAS_CREDENTIAL_* only by injection)");
    }
    if (!env_seen.insert(env_name).second) return Bad(where, "duplicate name \"" + env_name + "\"");
    s.env.push_back(std::move(env_name));
  }

  Result<Sha256Digest> binary = DigestField(v, path, "binary_sha256");
  if (!binary.ok()) return binary.status();
  s.binary_sha256 = *binary;

  const bool has_code_path = v.contains("code_path");
  const bool has_code_sha = v.contains("code_sha256");
  if (has_code_path != has_code_sha) {
    return Bad(path + (has_code_path ? ".code_sha256" : ".code_path"),
               "code_path and code_sha256 come together or not at all");
  }
  if (has_code_path) {
    CodeBinding code;
    Result<std::string> code_path = AbsolutePathField(v, path, "code_path");
    if (!code_path.ok()) return code_path.status();
    code.path = std::move(code_path).value();
    if (std::find(s.argv.begin() + 1, s.argv.end(), code.path) == s.argv.end()) {
      return Bad(path + ".code_path", "must appear in argv after argv[0] (it is what the command runs)");
    }
    Result<Sha256Digest> code_sha = DigestField(v, path, "code_sha256");
    if (!code_sha.ok()) return code_sha.status();
    code.sha256 = *code_sha;
    s.code = std::move(code);
  }

  Result<const Json*> tools = ArrayField(v, path, "tools");
  if (!tools.ok()) return tools.status();
  if ((*tools)->size() > kMaxToolsPerSurface) {
    return Bad(path + ".tools", "has more than " + std::to_string(kMaxToolsPerSurface) + " tools");
  }
  std::set<std::string> tool_seen;
  for (size_t i = 0; i < (*tools)->size(); ++i) {
    const std::string where = path + ".tools[" + std::to_string(i) + "]";
    Result<ToolBinding> tool = ParseTool((**tools)[i], where);
    if (!tool.ok()) return tool.status();
    if (!tool_seen.insert(tool->name).second) {
      return Bad(where + ".name", "duplicate tool name \"" + tool->name + "\"");
    }
    s.tools.push_back(std::move(tool).value());
  }
  return s;
}

Result<Manifest> ParseManifestValue(const Json& root) {
  const std::string path = "$";
  if (!root.is_object()) return Bad(path, std::string("must be an object, not ") + TypeName(root));
  // schema_version first, so a newer manifest is reported as such rather than as a list
  // of unknown fields.
  Result<uint64_t> version = IntegerField(root, path, "schema_version", 1, UINT32_MAX);
  if (!version.ok()) return version.status();
  if (*version != kManifestSchemaVersion) {
    return Unsupported("manifest: $.schema_version: " + std::to_string(*version) +
                       " is not supported (this build reads " +
                       std::to_string(kManifestSchemaVersion) + ")");
  }
  LAS_RETURN_IF_ERROR(
      CheckKnownFields(root, path, {"schema_version", "sequence", "expires_at", "surfaces"}));
  Manifest m;
  m.schema_version = static_cast<uint32_t>(*version);
  Result<uint64_t> sequence = IntegerField(root, path, "sequence", 1, kMaxManifestSequence);
  if (!sequence.ok()) return sequence.status();
  m.sequence = *sequence;

  Result<std::string> expires = StringField(root, path, "expires_at");
  if (!expires.ok()) return expires.status();
  Result<int64_t> expires_micros = ParseRfc3339UtcMicros(*expires);
  if (!expires_micros.ok()) return Bad("$.expires_at", expires_micros.status().message());
  m.expires_at_micros = *expires_micros;

  Result<const Json*> surfaces = ArrayField(root, path, "surfaces");
  if (!surfaces.ok()) return surfaces.status();
  if ((*surfaces)->size() > kMaxSurfaces) {
    return Bad("$.surfaces", "has more than " + std::to_string(kMaxSurfaces) + " surfaces");
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < (*surfaces)->size(); ++i) {
    const std::string where = "$.surfaces[" + std::to_string(i) + "]";
    Result<SurfaceBinding> surface = ParseSurface((**surfaces)[i], where);
    if (!surface.ok()) return surface.status();
    if (!seen.insert(surface->name).second) {
      return Bad(where + ".name", "duplicate surface name \"" + surface->name + "\"");
    }
    m.surfaces.push_back(std::move(surface).value());
  }
  return m;
}

// [A-Za-z0-9_]: what an environment variable's name is made of.
bool IsEnvNameChar(char c) { return IsAlpha(c) || IsDigit(c) || c == '_'; }

}  // namespace

bool IsValidSurfaceName(std::string_view name) {
  // "las" is Las's own namespace (las__*); "__" separates surface from tool, and with no
  // "__" inside and no "_" at the end the first "__" of `surface__tool` is that separator:
  // "foo" + "_bar" and "foo_" + "bar" cannot both be "foo___bar".
  return !name.empty() && name.size() <= 64 && name != "las" &&
         name.find("__") == std::string_view::npos && name.back() != '_' &&
         AllChars(name, [](char c) { return IsLowerOrDigit(c) || c == '_' || c == '-'; });
}

bool IsValidToolName(std::string_view name) {
  return !name.empty() && name.size() <= 128 &&
         AllChars(name, [](char c) { return IsAlpha(c) || IsDigit(c) || c == '_' || c == '.' || c == '-'; });
}

std::string QuotedEnvEntry(std::string_view entry) {
  const size_t cut = static_cast<size_t>(std::find_if_not(entry.begin(), entry.end(), IsEnvNameChar) - entry.begin());
  if (cut == entry.size()) return "\"" + std::string(entry) + "\"";
  const auto stop = static_cast<unsigned char>(entry[cut]);  // shown when printable ASCII
  const size_t shown = cut + (stop > 0x20 && stop < 0x7f && stop != '"' ? 1 : 0);
  std::string quoted = "\"" + std::string(entry.substr(0, shown)) + "…\"";
  if (entry[cut] == '=') {
    quoted += " (a name with a value: give the name only; the child gets the value from Las's "
              "environment)";
  }
  return quoted;
}

bool IsValidEnvName(std::string_view name) {
  // PATH is set by Las itself to a fixed system value (see DESIGN, launch-time checks).
  // Credentials reach a child only injected into the tools that name them, and every
  // credential of every surface lives in a LAS_CREDENTIAL_ variable: passing one whole
  // would hand it to a child no template names, unwatched.
  return !name.empty() && name.size() <= 128 && name != "PATH" && !IsDigit(name[0]) &&
         !name.starts_with(kCredentialVariablePrefix) &&
         AllChars(name, IsEnvNameChar);
}

bool IsValidArgumentName(std::string_view name) {
  return !name.empty() && name.size() <= 128 && (IsAlpha(name[0]) || name[0] == '_') &&
         AllChars(name, [](char c) { return IsAlpha(c) || IsDigit(c) || c == '_' || c == '-'; });
}

bool IsValidCredentialName(std::string_view name) {
  return !name.empty() && name.size() <= 64 && IsLowerOrDigit(name[0]) &&
         AllChars(name, [](char c) { return IsLowerOrDigit(c) || c == '_' || c == '.' || c == '-'; });
}

const ToolBinding* SurfaceBinding::FindTool(std::string_view tool_name) const {
  for (const ToolBinding& t : tools) {
    if (t.name == tool_name) return &t;
  }
  return nullptr;
}

const SurfaceBinding* Manifest::FindSurface(std::string_view surface_name) const {
  for (const SurfaceBinding& s : surfaces) {
    if (s.name == surface_name) return &s;
  }
  return nullptr;
}

Reason ManifestRefusalReason(const Status& failure) {
  switch (failure.code()) {
    case Code::kUnsupported: return Reason::kManifestUnsupported;
    case Code::kIo: return Reason::kIoError;
    default: return Reason::kManifestInvalid;
  }
}

Result<Manifest> ParseManifest(std::string_view bytes) {
  StrictJsonLimits limits;
  limits.max_bytes = kMaxManifestBytes;
  limits.max_depth = kMaxManifestDepth;
  Result<Json> root = internal::ParseStrictJson(bytes, limits);
  if (!root.ok()) return Status(root.status().code(), "manifest: " + root.status().message());
  try {
    return ParseManifestValue(*root);
  } catch (const std::bad_alloc&) {
    return OutOfMemory("manifest");
  } catch (const std::exception& ex) {
    // Only reachable through a bug in the checks above (a get<> on an unchecked type).
    return InvalidArgument(std::string("manifest: ") + ex.what());
  }
}

Result<Manifest> ParseManifest(std::span<const uint8_t> bytes) {
  return ParseManifest(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

Status CheckExpiry(const Manifest& manifest, int64_t now_micros) {
  if (now_micros < manifest.expires_at_micros) return Status::Ok();
  return Denied("release expired at " + FormatRfc3339UtcMicros(manifest.expires_at_micros) +
                " (now " + FormatRfc3339UtcMicros(now_micros) + ")");
}

}  // namespace las::trust
