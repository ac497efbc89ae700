// The release manifest: what an operator signs to admit child MCP servers ("surfaces").
// The JSON format, its rules and its evolution are documented in docs/MANIFEST.md; this
// header is its data model and its strict parser.
//
// ParseManifest is meant to run on bytes whose signature has already been verified
// (trust/signature.h): verify the raw bytes, then parse exactly those bytes.
//
// Errors: InvalidArgument for anything malformed, with the JSON path of the offending
// value ("$.surfaces[0].tools[1].name: ..."); Unsupported for a schema_version this build
// does not know; kIo when memory ran out (base/out_of_memory.h): no verdict on the bytes. Thread safety: value types and free functions, no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "trust/digest.h"
#include "trust/reason.h"

namespace las::trust {

inline constexpr uint32_t kManifestSchemaVersion = 1;
inline constexpr size_t kMaxManifestBytes = 1024 * 1024;
inline constexpr size_t kMaxManifestDepth = 8;
inline constexpr uint64_t kMaxManifestSequence = (uint64_t{1} << 53) - 1;  // exact in every JSON reader
inline constexpr size_t kMaxSurfaces = 256;
inline constexpr size_t kMaxToolsPerSurface = 1024;
inline constexpr size_t kMaxArgv = 1024;
inline constexpr size_t kMaxEnvNames = 256;
inline constexpr size_t kMaxPathBytes = 4096;
inline constexpr size_t kMaxArgBytes = 32 * 1024;

struct ToolBinding {
  std::string name;
  Sha256Digest input_schema_sha256{};  // SHA-256 of the JCS form of the tool's inputSchema
  // SHA-256 of the JCS form of the tool's `description` JSON value: a quoted string, or
  // `null` when the child sends none (so "absent" and "empty" differ).
  Sha256Digest description_sha256{};
  // Argument name -> credential name. Las fills the argument from the named credential at
  // call time; the manifest never holds a credential value.
  std::map<std::string, std::string> credential_templates;
};

struct CodeBinding {
  std::string path;  // absolute; one of the surface's argv[1..]
  Sha256Digest sha256{};
};

struct SurfaceBinding {
  std::string name;
  std::string command;             // absolute path of the executable
  std::string cwd;                 // absolute working directory
  std::vector<std::string> argv;   // the exact argv; argv[0] == command
  std::vector<std::string> env;    // names of the variables the child receives
  Sha256Digest binary_sha256{};    // of the file at `command`
  std::optional<CodeBinding> code; // absent when the command is itself the code
  std::vector<ToolBinding> tools;

  // Borrowed from this surface; nullptr if no tool has that name.
  const ToolBinding* FindTool(std::string_view tool_name) const;
};

struct Manifest {
  uint32_t schema_version = kManifestSchemaVersion;
  uint64_t sequence = 0;         // 1 .. kMaxManifestSequence
  int64_t expires_at_micros = 0; // Unix epoch microseconds, UTC
  std::vector<SurfaceBinding> surfaces;

  // Borrowed from this manifest; nullptr if no surface has that name.
  const SurfaceBinding* FindSurface(std::string_view surface_name) const;
};

// Parses and validates `bytes` (strict JSON, at most kMaxManifestBytes, depth at most
// kMaxManifestDepth) against the schema_version 1 format. See the header comment.
Result<Manifest> ParseManifest(std::span<const uint8_t> bytes);
Result<Manifest> ParseManifest(std::string_view bytes);

// The trust reason of a ParseManifest failure: manifest-unsupported, manifest-invalid, or
// io-error when memory ran out (not the manifest's fault).
Reason ManifestRefusalReason(const Status& failure);

// Ok while now_micros < manifest.expires_at_micros; Denied ("release expired at ...")
// from the expiry instant on. `now_micros` comes from the admission's one injected clock
// reading (base/clock.h).
Status CheckExpiry(const Manifest& manifest, int64_t now_micros);

// The name rules of docs/MANIFEST.md, for tools that build manifests.
// [a-z0-9_-]{1,64}, no "__", not ending in "_", not "las": a qualified name
// `surface__tool` then names one surface and one tool, split at its first "__".
bool IsValidSurfaceName(std::string_view name);
bool IsValidToolName(std::string_view name);     // [A-Za-z0-9_.-]{1,128}
// The prefix of the environment variables that hold credentials (tools/credentials.h).
inline constexpr std::string_view kCredentialVariablePrefix = "LAS_CREDENTIAL_";
// [A-Za-z_][A-Za-z0-9_]{0,127}, not PATH, not LAS_CREDENTIAL_*.
bool IsValidEnvName(std::string_view name);
// An environment entry as a refusal may quote it, between double quotes: up to its first
// character that no name holds ("NAME=…", "NAME:…", "sk-…"): NAME=VALUE, NAME:VALUE or a
// value written where a name belongs may hold a secret, which must reach neither stderr nor
// the log (probes JY2, KB7).
std::string QuotedEnvEntry(std::string_view entry);
bool IsValidArgumentName(std::string_view name); // [A-Za-z_][A-Za-z0-9_-]{0,127}
bool IsValidCredentialName(std::string_view name);  // [a-z0-9][a-z0-9_.-]{0,63}

}  // namespace las::trust
