// Writing a release manifest: the inverse of ParseManifest (trust/manifest.h), for the
// operator tooling (`las release draft`, `las release sign`).
//
// SerializeManifest produces one stable, human-reviewable spelling of a Manifest:
//   - two-space indentation, one field per line, fields in the order of docs/MANIFEST.md
//     (schema_version, sequence, expires_at, surfaces; per surface name, command, cwd,
//     argv, env, binary_sha256, code_path, code_sha256, tools; per tool name,
//     input_schema_sha256, description_sha256, credential_templates);
//   - short string lists (argv, env) and credential templates on one line each;
//   - surfaces and tools in the order the Manifest holds them (callers that want a
//     canonical order sort first: `las release draft` sorts both by name);
//   - digests as 64 lowercase hex, expires_at as FormatRfc3339UtcMicros, strings escaped
//     as JSON requires (control characters \uXXXX, everything else literal UTF-8);
//   - a trailing newline.
// Equal Manifests give equal bytes, so signing a re-serialized manifest is reproducible.
//
// Contract: for any Manifest that ParseManifest could have produced,
// ParseManifest(SerializeManifest(m)) succeeds and yields a Manifest equal to `m`
// (tests/trust/manifest_writer_test.cc). SerializeManifest itself does not validate:
// callers that build a Manifest by hand call ValidateManifest (which is exactly that
// round trip) before writing or signing it.
//
// Thread safety: free functions, no shared state.
#pragma once

#include <string>

#include "base/status.h"
#include "trust/manifest.h"

namespace las::trust {

std::string SerializeManifest(const Manifest& manifest);

// Ok if SerializeManifest(manifest) parses back (ParseManifest) to an equal Manifest;
// otherwise ParseManifest's error (InvalidArgument with the JSON path), or
// InvalidArgument if a value does not survive the round trip (a value the format cannot
// spell, such as an expiry outside years 0001-9999).
Status ValidateManifest(const Manifest& manifest);

// Field-by-field equality of two manifests (digests, argv, env, tools, templates).
bool ManifestsEqual(const Manifest& a, const Manifest& b);

}  // namespace las::trust
